// Serves the web console's build (console/dist, `make console`) under /console/: its files from memory, read
// once at start, and index.html for every other path below it (the console routes in the browser). Every
// answer carries a Content-Security-Policy that lets the console's own files run and nothing else.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { PAGE_HEADERS } from './page-headers.ts';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

export const CONSOLE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  ...PAGE_HEADERS,
  'cross-origin-opener-policy': 'same-origin',
};

interface File {
  body: Buffer;
  type: string;
}

/** Every file of the build, by its URL path under /console/. */
function readBuild(dir: string): Map<string, File> {
  const files = new Map<string, File>();
  const visit = (current: string): void => {
    for (const name of readdirSync(current)) {
      const full = join(current, name);
      if (statSync(full).isDirectory()) visit(full);
      else files.set(relative(dir, full).split(sep).join('/'), { body: readFileSync(full), type: TYPES[extname(name)] ?? 'application/octet-stream' });
    }
  };
  visit(dir);
  return files;
}

/** Registers the console's routes when its build is in `dir`; `false` (nothing registered) when it is not. */
export function consoleRoutes(app: FastifyInstance, dir: string): boolean {
  let files: Map<string, File>;
  try {
    files = readBuild(dir);
  } catch {
    return false;
  }
  const index = files.get('index.html');
  if (!index) return false;
  app.get('/console', { config: { auth: false }, schema: { hide: true } }, (_request, reply) => reply.code(308).header('location', '/console/').send());
  app.get('/console/*', { config: { auth: false }, schema: { hide: true } }, (request, reply) => {
    const path = (request.params as { '*': string })['*'];
    const file = files.get(path);
    void reply.headers(CONSOLE_HEADERS);
    // Built assets have content hashes in their names: cached for good. Anything else is a page of the console.
    if (file && path !== 'index.html')
      return reply
        .header('cache-control', path.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache')
        .type(file.type)
        .send(file.body);
    if (path.startsWith('assets/')) return reply.code(404).type('text/plain').send('Not found');
    return reply.header('cache-control', 'no-cache').type(index.type).send(index.body);
  });
  return true;
}
