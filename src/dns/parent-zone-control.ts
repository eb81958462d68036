// A loopback HTTP endpoint that changes a running development parent zone, so `make delegate` /
// `make undelegate` (scripts/dev-dns.ts) can flip a domain's delegation in the zone `make dev` serves.
// Development only, like the zone server itself: no authentication, loopback only.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ParentZoneServer } from './parent-zone-server.ts';
import type { ParentZoneRecordType } from './parent-zone.ts';

const RECORD_TYPES: readonly string[] = ['A', 'AAAA', 'CNAME', 'TXT'];
const MAX_BODY = 64 * 1024;

export interface ParentZoneControl {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * Serves `PUT /delegations/<domain>` (`{"nameservers": [...]}`), `DELETE /delegations/<domain>` and
 * `PUT /records/<name>/<type>` (`{"values": [...]}`, empty to remove) for `zone`.
 */
export async function startParentZoneControl(zone: ParentZoneServer, options: { port?: number } = {}): Promise<ParentZoneControl> {
  const server: Server = createServer((req, res) => {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(`${JSON.stringify(body)}\n`);
    };
    handle(zone, req)
      .then((answer) => reply(200, answer))
      .catch((err: unknown) => reply(err instanceof NotFound ? 404 : 400, { error: err instanceof Error ? err.message : String(err) }));
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

class NotFound extends Error {}

async function handle(zone: ParentZoneServer, req: IncomingMessage): Promise<unknown> {
  const parts = new URL(req.url ?? '/', 'http://x').pathname.split('/').filter(Boolean).map(decodeURIComponent);
  const body = req.method === 'PUT' ? await readJson(req) : {};
  if (parts[0] === 'delegations' && parts.length === 2 && parts[1]) {
    if (req.method === 'PUT') {
      zone.delegate(parts[1], strings(body, 'nameservers'));
      return { delegated: parts[1], nameservers: strings(body, 'nameservers') };
    }
    if (req.method === 'DELETE') {
      zone.undelegate(parts[1]);
      return { undelegated: parts[1] };
    }
  }
  if (parts[0] === 'records' && parts.length === 3 && parts[1] && req.method === 'PUT') {
    const type = (parts[2] ?? '').toUpperCase();
    if (!RECORD_TYPES.includes(type)) throw new Error(`type must be one of ${RECORD_TYPES.join(', ')}`);
    zone.setRecord(parts[1], type as ParentZoneRecordType, strings(body, 'values'));
    return { name: parts[1], type, values: strings(body, 'values') };
  }
  throw new NotFound(`no such operation: ${req.method} ${req.url}`);
}

function strings(body: unknown, field: string): string[] {
  const value = (body as Record<string, unknown>)[field];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw new Error(`${field} must be an array of strings`);
  return value;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw new Error('body too large');
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error('body is not JSON');
  }
}
