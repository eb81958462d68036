// A webhook receiver for cw-git's ref events that follows the spec's consumer checklist: the signature is
// checked (constant time) before the body is parsed, events are deduplicated by (repo, seq, ref_name) in
// bounded memory, sorted by seq within each repository, a jump in seq is reported with the command that
// backfills it from the write-ahead log, and the answer is 2xx only once the whole batch is processed.
// Node's standard library only:
//
//   PORT=8787 WEBHOOK_SECRET=… CW_GIT_CONFIG=.dev/state/cw-git.yaml node docs/examples/events-receiver/receiver.ts
//
// It prints one line per event: `<repo> <seq> <action> <ref> <old>..<new> <pusher>` (object ids shortened).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** One ref event, as the spec's "Ref event" table defines it. */
export interface RefEvent {
  action: 'create' | 'update' | 'delete';
  ref_type: string;
  ref_name: string;
  old: string;
  new: string;
  pusher: string;
  correlation_id: string;
  repo: string;
  _service: { schema_version: number; seq: string; entry_kind: string; request_id: string };
}

export interface ReceiverOptions {
  /** The shared secret (`events.webhook_secret`); without one, signatures are not checked. */
  secret?: string | undefined;
  /** Named in the backfill command: the cw-git configuration file. */
  configFile?: string;
  /** Where lines go (default: stdout). */
  print?: (line: string) => void;
  /** Your own work for one event, after it is known new and in order; a throw answers 500 and the bridge retries. */
  handle?: (event: RefEvent) => void | Promise<void>;
  /** Dedup keys remembered, the oldest forgotten first (default 100000). */
  remember?: number;
}

/** A delivery is at most 500 events of well under 1 KiB; anything much larger is not from the bridge. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;
const SIGNATURE = /^sha256=([0-9a-f]{64})$/i;
const SEQ = /^(0|[1-9][0-9]*)$/;

/** A request answered with a 4xx: nothing of it was processed. */
class Refused extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** Whether `header` is `sha256=` and the HMAC-SHA256 of `body` keyed with `secret`, compared in constant time. */
export function signatureMatches(body: Buffer, header: string | undefined, secret: string): boolean {
  const match = SIGNATURE.exec(header ?? '');
  if (!match) return false;
  const expected = createHmac('sha256', secret).update(body).digest();
  // Both 32 bytes: timingSafeEqual takes as long whichever byte differs.
  return timingSafeEqual(Buffer.from(match[1] as string, 'hex'), expected);
}

/** The events of a body that is a JSON array of ref events, or why it is not. */
export function parseBatch(body: Buffer): RefEvent[] {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    throw new Refused(400, 'the body is not JSON');
  }
  if (!Array.isArray(value)) throw new Refused(400, 'the body is not a JSON array of events');
  for (const event of value as Partial<RefEvent>[]) {
    const fine = typeof event?.repo === 'string' && typeof event.ref_name === 'string' && typeof event._service?.seq === 'string' && SEQ.test(event._service.seq);
    if (!fine) throw new Refused(400, 'an event lacks repo, ref_name or _service.seq (a decimal string)');
  }
  return value as RefEvent[];
}

/** Dedup keys in insertion order; past `limit`, the oldest are forgotten (a Set iterates oldest first). */
class SeenKeys {
  readonly #keys = new Set<string>();
  readonly #limit: number;
  constructor(limit: number) {
    this.#limit = limit;
  }
  has(key: string): boolean {
    return this.#keys.has(key);
  }
  add(key: string): void {
    this.#keys.add(key);
    for (const oldest of this.#keys) {
      if (this.#keys.size <= this.#limit) break;
      this.#keys.delete(oldest);
    }
  }
}

/** The receiver's memory and its processing of one verified, parsed batch. */
export class EventLog {
  readonly #seen: SeenKeys;
  /** Per repository, the highest seq processed. */
  readonly #last = new Map<string, bigint>();
  readonly #print: (line: string) => void;
  readonly #handle: (event: RefEvent) => void | Promise<void>;
  readonly #configFile: string;

  constructor(options: ReceiverOptions = {}) {
    this.#seen = new SeenKeys(options.remember ?? 100_000);
    this.#print = options.print ?? ((line) => process.stdout.write(`${line}\n`));
    this.#handle = options.handle ?? (() => {});
    this.#configFile = options.configFile ?? 'cw-git.yaml';
  }

  /** Processes every new event of the batch, per repository in seq order; returns how many were new. */
  async process(events: readonly RefEvent[]): Promise<number> {
    const byRepo = Map.groupBy(events, (event) => event.repo);
    let fresh = 0;
    for (const [repo, batch] of byRepo) {
      // Stable: the events of one seq (one transaction) keep the order they came in.
      const ordered = batch.toSorted((a, b) => compare(BigInt(a._service.seq), BigInt(b._service.seq)));
      for (const event of ordered) {
        const key = `${repo}\u0000${event._service.seq}\u0000${event.ref_name}`;
        if (this.#seen.has(key)) continue;
        const seq = BigInt(event._service.seq);
        const last = this.#last.get(repo);
        if (last !== undefined && seq > last + 1n) this.#reportGap(repo, last, seq);
        await this.#handle(event);
        this.#print(line(event));
        // Only now: a throw above leaves the event unseen, so the bridge's retry processes it.
        this.#seen.add(key);
        if (last === undefined || seq > last) this.#last.set(repo, seq);
        fresh++;
      }
    }
    return fresh;
  }

  #reportGap(repo: string, last: bigint, next: bigint): void {
    const from = last + 1n;
    const missed = next - 1n === from ? `seq ${from}` : `seqs ${from}..${next - 1n}`;
    this.#print(`${repo} gap: ${missed} not received (last ${last}, now ${next}); backfill: cw-git wal ls ${repo} --from ${from} --config ${this.#configFile} --json`);
  }
}

function compare(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function line(event: RefEvent): string {
  const short = (oid: string) => oid.slice(0, 12);
  return `${event.repo} ${event._service.seq} ${event.action} ${event.ref_name} ${short(event.old)}..${short(event.new)} ${event.pusher}`;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new Refused(413, `the body is over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function answer(res: ServerResponse, status: number, message?: string): void {
  if (message === undefined) res.writeHead(status).end();
  else res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' }).end(`${message}\n`);
}

/** The HTTP server: POST a batch anywhere; 204 once processed, 401/400/413 refused, 500 when `handle` threw. */
export function createReceiver(options: ReceiverOptions = {}): Server {
  const log = new EventLog(options);
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  // One batch at a time: order holds across deliveries, and two copies of one batch cannot both pass dedup.
  let queue: Promise<unknown> = Promise.resolve();
  return createServer((req, res) => {
    if (req.method !== 'POST') return answer(res, 405, 'POST a batch of events');
    const work = async () => {
      const body = await readBody(req);
      if (options.secret !== undefined && !signatureMatches(body, req.headers['x-service-signature'] as string | undefined, options.secret)) {
        throw new Refused(401, 'bad or missing X-Service-Signature');
      }
      await log.process(parseBatch(body));
    };
    const done = queue.then(work);
    queue = done.catch(() => {});
    done.then(
      () => answer(res, 204),
      (err: unknown) => {
        if (err instanceof Refused) return answer(res, err.status, err.message);
        print(`batch failed, answering 500 so it is sent again: ${(err as Error).message}`);
        answer(res, 500, 'processing failed; send it again');
      },
    );
  });
}

if (import.meta.main) {
  const port = Number(process.env.PORT ?? 8787);
  const secret = process.env.WEBHOOK_SECRET || undefined;
  const server = createReceiver({ secret, configFile: process.env.CW_GIT_CONFIG ?? 'cw-git.yaml' });
  server.listen(port, '127.0.0.1', () => {
    process.stdout.write(`events receiver on http://127.0.0.1:${port}/ (${secret ? 'signatures checked' : 'WEBHOOK_SECRET unset: signatures NOT checked'})\n`);
  });
  process.once('SIGINT', () => server.close());
  process.once('SIGTERM', () => server.close());
}
