import { request, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';

export interface TestResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * How long a test request may take, head and body, unless the caller says otherwise: under the tests' own
 * timeout (60 s), so a server that never answers fails the test with this request named, not with a timeout
 * of the whole test.
 */
export const TEST_REQUEST_TIMEOUT_MS = 30_000;

/** The error of a test request that got no complete answer in time: names the request and how far it got. */
export class TestRequestTimeoutError extends Error {
  constructor(method: string, host: string, path: string, timeoutMs: number, headArrived: boolean) {
    super(`${method} http://${host}${path} got no complete answer within ${timeoutMs} ms (${headArrived ? 'its head arrived, its body did not end' : 'not even its head arrived'})`);
    this.name = 'TestRequestTimeoutError';
  }
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
    /** The whole exchange's bound (default {@link TEST_REQUEST_TIMEOUT_MS}); past it the request is aborted and rejects. */
    timeoutMs?: number;
  } = {},
): Promise<TestResponse> {
  const method = options.method ?? 'GET';
  const timeoutMs = options.timeoutMs ?? TEST_REQUEST_TIMEOUT_MS;
  return new Promise<TestResponse>((resolve, reject) => {
    let headArrived = false;
    const req = request(
      {
        ...(options.socketPath ? { socketPath: options.socketPath } : { host: '127.0.0.1', port }),
        path,
        method,
        headers: { host, ...options.headers },
        agent: false,
      },
      (res) => {
        headArrived = true;
        options.onHead?.(res);
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on('error', reject);
      },
    );
    // A total bound, not a socket idle timeout: a server trickling bytes forever must fail the test too.
    const timer = setTimeout(() => req.destroy(new TestRequestTimeoutError(method, host, path, timeoutMs, headArrived)), timeoutMs);
    req.on('close', () => clearTimeout(timer));
    req.on('error', reject);
    req.end(options.body);
  });
}
