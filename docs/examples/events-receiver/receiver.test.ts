import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createReceiver, type ReceiverOptions, type RefEvent } from './receiver.ts';

const SECRET = 'a shared secret';
const ZERO = '0'.repeat(40);

function event(repo: string, seq: number, ref = 'refs/heads/main', action: RefEvent['action'] = 'update'): RefEvent {
  const oid = (n: number) => n.toString(16).padStart(40, 'a');
  return {
    action,
    ref_type: ref.startsWith('refs/tags/') ? 'tag' : 'branch',
    ref_name: ref,
    old: action === 'create' ? ZERO : oid(seq - 1),
    new: action === 'delete' ? ZERO : oid(seq),
    pusher: 'developer',
    correlation_id: `req-${seq}`,
    repo,
    _service: { schema_version: 1, seq: String(seq), entry_kind: 'push', request_id: `req-${seq}` },
  };
}

const sign = (body: string, secret = SECRET) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

/** A receiver on a free port; `lines` collects what it prints. */
async function receiver(options: ReceiverOptions = {}) {
  const lines: string[] = [];
  const server = createReceiver({ secret: SECRET, configFile: '.dev/state/cw-git.yaml', print: (line) => lines.push(line), ...options });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  stop = () => new Promise((resolve) => server.close(() => resolve()));
  const post = async (body: string, signature: string | null = sign(body)) => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...(signature ? { 'x-service-signature': signature } : {}) }, body });
    await res.body?.cancel();
    return res.status;
  };
  const deliver = (events: RefEvent[]) => post(JSON.stringify(events));
  return { lines, post, deliver };
}

describe('events receiver example', () => {
  it('accepts a batch signed with the secret and prints one line per event', async () => {
    const r = await receiver();
    expect(await r.deliver([event('acme/site', 1, 'refs/heads/main', 'create'), event('acme/site', 2, 'refs/tags/v1', 'create')])).toBe(204);
    expect(r.lines).toEqual([`acme/site 1 create refs/heads/main 000000000000..aaaaaaaaaaaa developer`, `acme/site 2 create refs/tags/v1 000000000000..aaaaaaaaaaaa developer`]);
  });

  it('refuses a tampered body, a wrong secret and a missing signature with 401, before parsing', async () => {
    const r = await receiver();
    const body = JSON.stringify([event('acme/site', 1)]);
    expect(await r.post(body.replace('developer', 'mallory'), sign(body))).toBe(401);
    expect(await r.post(body, sign(body, 'another secret'))).toBe(401);
    expect(await r.post(body, null)).toBe(401);
    expect(await r.post(body, 'sha256=zz')).toBe(401);
    // Not JSON at all: 401, not 400, so the parser never saw it.
    expect(await r.post('{not json', sign('something else'))).toBe(401);
    expect(await r.post('{not json')).toBe(400);
    expect(r.lines).toEqual([]);
  });

  it('prints an event once however often it is delivered', async () => {
    const r = await receiver();
    const batch = [event('acme/site', 1), event('acme/site', 2)];
    expect(await r.deliver(batch)).toBe(204);
    expect(await r.deliver(batch)).toBe(204);
    expect(await r.deliver([event('acme/site', 2), event('acme/site', 2), event('acme/site', 3)])).toBe(204);
    expect(r.lines.map((line) => line.split(' ').slice(0, 2).join(' '))).toEqual(['acme/site 1', 'acme/site 2', 'acme/site 3']);
  });

  it('keeps two refs of one seq (one transaction) apart', async () => {
    const r = await receiver();
    expect(await r.deliver([event('acme/site', 1, 'refs/heads/main'), event('acme/site', 1, 'refs/tags/v1', 'create')])).toBe(204);
    expect(r.lines).toHaveLength(2);
  });

  it('sorts the events of one batch by seq within each repository', async () => {
    const r = await receiver();
    expect(await r.deliver([event('acme/site', 3), event('acme/api', 2), event('acme/site', 1), event('acme/api', 1), event('acme/site', 2)])).toBe(204);
    expect(r.lines.map((line) => line.split(' ').slice(0, 2).join(' '))).toEqual(['acme/site 1', 'acme/site 2', 'acme/site 3', 'acme/api 1', 'acme/api 2']);
    expect(r.lines.some((line) => line.includes('gap'))).toBe(false);
  });

  it('reports a jump in seq with the command that backfills it, and goes on', async () => {
    const r = await receiver();
    expect(await r.deliver([event('acme/site', 1), event('acme/site', 2)])).toBe(204);
    expect(await r.deliver([event('acme/site', 6), event('acme/site', 5)])).toBe(204);
    expect(r.lines).toEqual([
      expect.stringMatching(/^acme\/site 1 /),
      expect.stringMatching(/^acme\/site 2 /),
      'acme/site gap: seqs 3..4 not received (last 2, now 5); backfill: cw-git wal ls acme/site --from 3 --config .dev/state/cw-git.yaml --json',
      expect.stringMatching(/^acme\/site 5 /),
      expect.stringMatching(/^acme\/site 6 /),
    ]);
  });

  it('answers 2xx only once the batch is processed: a failure answers 500 and the retry resumes where it stopped', async () => {
    let failOnce = true;
    const r = await receiver({
      handle: (e) => {
        if (e._service.seq === '2' && failOnce) {
          failOnce = false;
          throw new Error('database down');
        }
      },
    });
    const batch = [event('acme/site', 1), event('acme/site', 2), event('acme/site', 3)];
    expect(await r.deliver(batch)).toBe(500);
    expect(await r.deliver(batch)).toBe(204);
    expect(r.lines.filter((line) => !line.startsWith('batch failed')).map((line) => line.split(' ')[1])).toEqual(['1', '2', '3']);
  });

  it('forgets the oldest dedup keys past its bound', async () => {
    const r = await receiver({ remember: 2 });
    expect(await r.deliver([event('acme/site', 1), event('acme/site', 2), event('acme/site', 3)])).toBe(204);
    expect(await r.deliver([event('acme/site', 1), event('acme/site', 3)])).toBe(204);
    // seq 1 was forgotten, so it prints again (late, not a gap); seq 3 is still remembered.
    expect(r.lines.map((line) => line.split(' ')[1])).toEqual(['1', '2', '3', '1']);
  });

  it('refuses a body that is not an array of events with 400', async () => {
    const r = await receiver();
    expect(await r.post(JSON.stringify({ repo: 'acme/site' }))).toBe(400);
    expect(await r.post(JSON.stringify([{ repo: 'acme/site', ref_name: 'refs/heads/main', _service: { seq: 7 } }]))).toBe(400);
    expect(r.lines).toEqual([]);
  });
});
