import { request } from 'node:http';
import { CONTROL_CF, CONTROL_CF_HEADER } from './dispatcher/config.ts';

/** A request to a generation's control socket (the dispatcher's `Control` entrypoint), with Node's HTTP client. */
export function control<T>(socketPath: string, method: string, path: string, body?: unknown, timeoutMs = 10_000): Promise<{ status: number; body: T }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      {
        socketPath,
        method,
        path,
        headers: { host: 'control', [CONTROL_CF_HEADER]: CONTROL_CF, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
        timeout: timeoutMs,
        agent: false,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          const type = res.headers['content-type'] ?? '';
          try {
            resolve({ status: res.statusCode ?? 0, body: (type.includes('json') ? JSON.parse(text) : text) as T });
          } catch (err) {
            reject(err as Error);
          }
        });
        res.on('error', reject);
      },
    );
    req.once('timeout', () => req.destroy(new Error(`the dispatcher did not answer ${method} ${path} within ${timeoutMs} ms`)));
    req.once('error', reject);
    req.end(payload);
  });
}
