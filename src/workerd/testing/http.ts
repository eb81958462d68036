import { request, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';

export interface TestResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One request through the entry point at `port` with `Host: host` (fetch cannot set Host). */
export function send(
  port: number,
  host: string,
  path = '/',
  options: {
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    socketPath?: string;
    /** Called when the response head arrives, before its body: the request is in flight. */
    onHead?: (res: IncomingMessage) => void;
  } = {},
): Promise<TestResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        ...(options.socketPath ? { socketPath: options.socketPath } : { host: '127.0.0.1', port }),
        path,
        method: options.method ?? 'GET',
        headers: { host, ...options.headers },
        agent: false,
      },
      (res) => {
        options.onHead?.(res);
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}
