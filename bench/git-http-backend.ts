// The git benchmark's reference server: stock `git http-backend` run as a CGI per request behind a minimal
// Node HTTP server, serving bare repositories from local disk (what a web server with git's CGI would do).
// Runs as a process of its own: `node bench/git-http-backend.ts --root DIR --port N` (prints "listening").
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { parseArgs } from 'node:util';

/** CGI environment of one request (RFC 3875), with what git's http-backend reads besides. */
function cgiEnv(req: IncomingMessage, root: string): NodeJS.ProcessEnv {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    GIT_PROJECT_ROOT: root,
    GIT_HTTP_EXPORT_ALL: '1',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GATEWAY_INTERFACE: 'CGI/1.1',
    SERVER_PROTOCOL: `HTTP/${req.httpVersion}`,
    REQUEST_METHOD: req.method ?? 'GET',
    PATH_INFO: decodeURIComponent(url.pathname),
    QUERY_STRING: url.search.slice(1),
    REMOTE_ADDR: req.socket.remoteAddress ?? '',
    CONTENT_TYPE: req.headers['content-type'] ?? '',
  };
  if (req.headers['content-length']) env.CONTENT_LENGTH = req.headers['content-length'];
  if (req.headers['content-encoding']) env.HTTP_CONTENT_ENCODING = req.headers['content-encoding'];
  const protocol = req.headers['git-protocol'];
  if (typeof protocol === 'string') env.GIT_PROTOCOL = protocol;
  return env;
}

/**
 * Runs http-backend for one request: the CGI header block becomes the HTTP status and headers, the rest streams.
 * (Also the git server of the URL import tests, behind their HTTPS server: e2e/harness/git-https-source.ts.)
 */
export function handle(req: IncomingMessage, res: ServerResponse, root: string): void {
  const child = spawn('git', ['http-backend'], { env: cgiEnv(req, root), stdio: ['pipe', 'pipe', 'inherit'] });
  req.pipe(child.stdin);
  child.stdin.on('error', () => {});
  let head = Buffer.alloc(0);
  let started = false;
  child.stdout.on('data', (chunk: Buffer) => {
    if (started) {
      if (!res.write(chunk)) child.stdout.pause();
      return;
    }
    head = Buffer.concat([head, chunk]);
    const text = head.toString('latin1');
    const crlf = text.indexOf('\r\n\r\n');
    const lf = text.indexOf('\n\n');
    const end = crlf >= 0 && (lf < 0 || crlf < lf) ? crlf + 4 : lf >= 0 ? lf + 2 : -1;
    if (end < 0) return;
    let status = 200;
    for (const line of text.slice(0, end).split(/\r?\n/)) {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const [name, value] = [line.slice(0, colon).trim(), line.slice(colon + 1).trim()];
      if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
      else res.setHeader(name, value);
    }
    res.writeHead(status);
    started = true;
    if (head.byteLength > end) res.write(head.subarray(end));
  });
  res.on('drain', () => child.stdout.resume());
  child.on('close', (code) => {
    if (!started) res.writeHead(502).end(`git http-backend exited with ${code}\n`);
    else res.end();
  });
  // The client went away before the answer was complete (a request's own 'close' only means its body ended).
  res.on('close', () => {
    if (!res.writableFinished) child.kill('SIGKILL');
  });
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { root: { type: 'string' }, port: { type: 'string' }, host: { type: 'string', default: '127.0.0.1' } } });
  if (!values.root || !values.port) {
    process.stderr.write('usage: node bench/git-http-backend.ts --root DIR --port N [--host ADDR]\n');
    process.exit(2);
  }
  const root = values.root;
  const server = createServer((req, res) => handle(req, res, root));
  server.keepAliveTimeout = 60_000;
  server.listen(Number(values.port), values.host, () => process.stdout.write(`listening on http://${values.host}:${values.port}\n`));
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
}
