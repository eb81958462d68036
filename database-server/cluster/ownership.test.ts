import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logging/log.ts';
import { MemoryObjectStore } from '../../src/object-store/memory-object-store.ts';
import type { GetOptions, ListOptions, ObjectStore, PutBody, PutOptions } from '../../src/object-store/object-store.ts';
import { ForwardingObjectStore } from '../../src/object-store/testing/forwarding-object-store.ts';
import type { Fencing } from '../replication-port.ts';
import { LEASE_PREFIX, LeaseStore } from './lease-store.ts';
import { Ownership } from './ownership.ts';
import { preferredReplica } from './placement.ts';

const LEASE_MS = 3000;

/**
 * Replicas sharing one bucket and one hand-driven clock; each records what it opened and closed. `wrap` gives a
 * replica its own view of the bucket (a slow one, say).
 */
function cluster(
  names: string[],
  tenants: string[],
  wrap?: (name: string, store: ObjectStore, clock: { now: number }) => ObjectStore,
  hooks: { closing?: (name: string, tenant: string, reason: string) => Promise<void>; opening?: (name: string, tenant: string) => void } = {},
) {
  const store = new MemoryObjectStore();
  const clock = { now: 0 };
  const events: string[] = [];
  const replicas = names.map((name) => {
    const fenced = new Map<string, Fencing>();
    const ownership = new Ownership({
      store: wrap ? wrap(name, store, clock) : store,
      self: { name, nonce: `${name}-nonce`, url: `http://${name}`, adminUrl: `http://${name}-admin` },
      leaseMs: LEASE_MS,
      log: silentLogger,
      clock: () => clock.now,
      hooks: {
        tenants: async () => tenants,
        adopt: async (tenant, fencing, resumed) => {
          fenced.set(tenant, fencing);
          events.push(`${name} adopts ${tenant}@${fencing.epoch}${resumed === undefined ? '' : ` resuming ${resumed}`}`);
          hooks.opening?.(name, tenant);
          return true;
        },
        drop: async (tenant, reason) => {
          events.push(`${name} drops ${tenant} (${reason})`);
          await hooks.closing?.(name, tenant, reason);
        },
        discard: async (tenant) => void events.push(`${name} discards ${tenant}`),
        highestEpoch: async () => 0,
      },
    });
    return { name, ownership, fenced };
  });
  return { store, clock, events, replicas };
}

/** Every replica's round, at `at`. */
async function round(c: ReturnType<typeof cluster>, at: number, only = c.replicas): Promise<void> {
  c.clock.now = at;
  for (const r of only) await r.ownership.tick();
}

function owners(c: ReturnType<typeof cluster>, tenants: string[]): Record<string, string[]> {
  return Object.fromEntries(tenants.map((t) => [t, c.replicas.filter((r) => r.ownership.held().has(t)).map((r) => r.name)]));
}

/**
 * One replica `a` on `store`, alone: the epoch of each database it opened (and the epoch it resumed, if it did), and
 * each drop as "<tenant> <reason>".
 */
function alone(store: ObjectStore) {
  const clock = { now: 0 };
  const events: string[] = [];
  const epochs = new Map<string, number>();
  const resumed = new Map<string, number | undefined>();
  const a = new Ownership({
    store,
    self: { name: 'a', nonce: 'a-nonce', url: 'http://a', adminUrl: 'http://a-admin' },
    leaseMs: LEASE_MS,
    log: silentLogger,
    clock: () => clock.now,
    hooks: {
      tenants: async () => TENANTS,
      adopt: async (tenant, fencing, from) => {
        epochs.set(tenant, fencing.epoch);
        resumed.set(tenant, from);
        return true;
      },
      drop: async (tenant, reason) => void events.push(`${tenant} ${reason}`),
      discard: async (tenant) => void events.push(`${tenant} discarded`),
      highestEpoch: async () => 0,
    },
  });
  return { a, clock, events, epochs, resumed };
}

const TENANTS = Array.from({ length: 12 }, (_, i) => `db-${i}`);
const MANY = Array.from({ length: 60 }, (_, i) => `db-${i}`);

describe('Ownership', () => {
  it('gives every database exactly one owner and spreads them over the replicas', async () => {
    const c = cluster(['a', 'b', 'c'], TENANTS);
    for (let t = 0; t <= 10 * LEASE_MS; t += LEASE_MS / 3) await round(c, t);
    const byTenant = owners(c, TENANTS);
    for (const tenant of TENANTS) expect(byTenant[tenant], tenant).toHaveLength(1);
    for (const r of c.replicas) expect(r.ownership.held().size, r.name).toBeGreaterThan(0);
  });

  it("takes a silent replica's databases over only after its lease, at the next epoch, and the silent one stops writing first", async () => {
    const c = cluster(['a', 'b'], TENANTS);
    for (let t = 0; t <= 6 * LEASE_MS; t += LEASE_MS / 3) await round(c, t);
    const [a, b] = c.replicas as [(typeof c.replicas)[0], (typeof c.replicas)[0]];
    const lost = [...a.ownership.held().keys()];
    expect(lost.length).toBeGreaterThan(0);
    const silentFrom = 6 * LEASE_MS;

    // `a` beats no more. Until its lease has passed on b's clock, nothing of it is taken.
    let t = silentFrom;
    for (; t < silentFrom + LEASE_MS - 1; t += LEASE_MS / 3) {
      await round(c, t, [b]);
      for (const tenant of lost) expect(b.ownership.held().has(tenant)).toBe(false);
    }
    // a's own deadline came before b's takeover: by then it may no longer ship or acknowledge.
    c.clock.now = silentFrom + LEASE_MS - 1;
    for (const tenant of lost) expect(a.ownership.surelyHeld(tenant)).toBe(false);
    expect(() => a.fenced.get(lost[0] ?? '')?.guard()).toThrow(/no longer held/);
    for (; t <= silentFrom + 3 * LEASE_MS; t += LEASE_MS / 3) await round(c, t, [b]);
    for (const tenant of lost) {
      expect(b.ownership.held().has(tenant), tenant).toBe(true);
      const lease = await new LeaseStore(c.store).read(tenant);
      expect(lease?.lease.holder?.name).toBe('b');
      expect(b.fenced.get(tenant)?.epoch).toBe((a.fenced.get(tenant)?.epoch ?? 0) + 1);
    }
  });

  it('hands a database over when its holder stops gracefully: the lease is free at once', async () => {
    const c = cluster(['a', 'b'], TENANTS);
    for (let t = 0; t <= 6 * LEASE_MS; t += LEASE_MS / 3) await round(c, t);
    const [a, b] = c.replicas as [(typeof c.replicas)[0], (typeof c.replicas)[0]];
    const moving = [...a.ownership.held().keys()];
    await a.ownership.stop();
    for (const tenant of moving) expect(c.events).toContain(`a drops ${tenant} (stop)`);
    await round(c, 6 * LEASE_MS + 1, [b]);
    for (const tenant of moving) expect(b.ownership.held().has(tenant)).toBe(true);
  });

  it('gives a restarted replica (same name, new process) its databases back without waiting out the lease', async () => {
    const c = cluster(['a', 'b'], TENANTS);
    for (let t = 0; t <= 6 * LEASE_MS; t += LEASE_MS / 3) await round(c, t);
    const [a] = c.replicas as [(typeof c.replicas)[0]];
    const before = [...a.ownership.held().keys()].sort();
    const again = new Ownership({
      store: c.store,
      self: { name: 'a', nonce: 'a-restarted', url: 'http://a', adminUrl: 'http://a-admin' },
      leaseMs: LEASE_MS,
      log: silentLogger,
      clock: () => c.clock.now,
      hooks: { tenants: async () => TENANTS, adopt: async () => true, drop: async () => {}, discard: async () => {}, highestEpoch: async () => 0 },
    });
    c.clock.now += 1;
    await again.tick();
    expect([...again.held().keys()].sort()).toEqual(before);
  });

  it('takes back, at the next epoch and from the files it kept, the databases it lost when its own heartbeat failed and nobody took (review-164 F1)', async () => {
    const inner = new MemoryObjectStore();
    let beatsFail = false;
    const store = new (class extends ForwardingObjectStore {
      override put(key: string, body: PutBody, options?: PutOptions) {
        if (beatsFail && key.startsWith('cluster/members/')) return Promise.reject(new Error('the bucket did not answer'));
        return super.put(key, body, options);
      }
    })(inner);
    const { a, clock, events, epochs, resumed } = alone(store);
    await a.tick();
    expect(a.held().size).toBe(TENANTS.length);
    expect(resumed.get('db-0')).toBeUndefined();
    const first = a.fencing('db-0', epochs.get('db-0') ?? 0);
    // The heartbeat fails past the deadline: everything is dropped (its files kept), nothing written.
    beatsFail = true;
    clock.now = LEASE_MS;
    await a.tick();
    expect(events).toHaveLength(TENANTS.length);
    expect(events.every((e) => e.endsWith(' expired'))).toBe(true);
    expect(a.held().size).toBe(0);
    // The bucket answers again: the same process takes them back, at the next epoch, over its own lease unwritten
    // since: from the files it kept, which nothing is discarded of.
    beatsFail = false;
    await a.tick();
    expect(a.held().size).toBe(TENANTS.length);
    expect(epochs.get('db-0')).toBe(2);
    expect(resumed.get('db-0')).toBe(1);
    expect(events.filter((e) => e.endsWith(' discarded'))).toEqual([]);
    // What the first epoch was still uploading may not be written, nor its commit acknowledged: held again, but not
    // under that lease (the second epoch's takeover listed the bucket without it).
    expect(a.surelyHeld('db-0')).toBe(true);
    expect(a.surelyHeld('db-0', 1)).toBe(false);
    expect(() => first.guard()).toThrow(/no longer held/);
    expect(() => a.fencing('db-0', 2).guard()).not.toThrow();
  });

  it('writes the leases of the databases it takes several at a time, not one after another', async () => {
    let writing = 0;
    let peak = 0;
    const store = new (class extends ForwardingObjectStore {
      override async put(key: string, body: PutBody, options?: PutOptions) {
        if (!key.startsWith(LEASE_PREFIX)) return super.put(key, body, options);
        peak = Math.max(peak, ++writing);
        try {
          await new Promise((resolve) => setImmediate(resolve));
          return await super.put(key, body, options);
        } finally {
          writing--;
        }
      }
    })(new MemoryObjectStore());
    const { a } = alone(store);
    await a.tick();
    expect(a.held().size).toBe(TENANTS.length);
    expect(peak).toBeGreaterThan(1);
  });

  it('after a bucket outage, leaves each replica a lease to take back its own databases before taking them (review-164 F1)', async () => {
    let down = false;
    const failing = (_name: string, store: ObjectStore) =>
      new (class extends ForwardingObjectStore {
        override get(key: string, options?: GetOptions) {
          return down ? Promise.reject(new Error('the bucket did not answer')) : super.get(key, options);
        }
        override put(key: string, body: PutBody, options?: PutOptions) {
          return down ? Promise.reject(new Error('the bucket did not answer')) : super.put(key, body, options);
        }
        override list(prefix: string, options?: ListOptions) {
          return down ? Promise.reject(new Error('the bucket did not answer')) : super.list(prefix, options);
        }
      })(store);
    const c = cluster(['a', 'b'], TENANTS, failing);
    const [a, b] = c.replicas as [(typeof c.replicas)[0], (typeof c.replicas)[0]];
    let t = 0;
    for (; t <= 6 * LEASE_MS; t += LEASE_MS / 3) await round(c, t);
    const ofA = [...a.ownership.held().keys()];
    expect(ofA.length).toBeGreaterThan(0);
    // The bucket is down for three leases: both drop everything, keeping the files.
    down = true;
    for (const end = t + 3 * LEASE_MS; t <= end; t += LEASE_MS / 3) {
      c.clock.now = t;
      for (const r of c.replicas) await r.ownership.tick().catch(() => {});
    }
    expect(a.ownership.held().size + b.ownership.held().size).toBe(0);
    // Back: b looks first, before a has beaten again. It takes none of a's; a then takes them back, resuming.
    down = false;
    await round(c, t, [b]);
    for (const tenant of ofA) expect(b.ownership.held().has(tenant), tenant).toBe(false);
    await round(c, t + 1, [a]);
    for (const tenant of ofA) expect(c.events).toContain(`a adopts ${tenant}@2 resuming 1`);
  });

  it('keeps nothing a heartbeat renews only after the deadline passed: the databases are lost, not held on', async () => {
    let slowBeat = false;
    let release = () => {};
    const answered = new Promise<void>((resolve) => (release = resolve));
    let landed = () => {};
    const beatLanded = new Promise<void>((resolve) => (landed = resolve));
    const store = new (class extends ForwardingObjectStore {
      override async put(key: string, body: PutBody, options?: PutOptions) {
        const written = await super.put(key, body, options);
        // Landed in the bucket, answered late (the process stalled, or the answer did).
        if (slowBeat && key.startsWith('cluster/members/')) {
          landed();
          await answered;
        }
        return written;
      }
    })(new MemoryObjectStore());
    const { a, clock, events } = alone(store);
    await a.tick();
    expect(a.held().size).toBe(TENANTS.length);
    // The next beat is sent before the deadline and answered after it, with no deadline watch run meanwhile: what it
    // renews may have been taken by then (had it landed late), so the databases are lost (and taken back at a new epoch).
    slowBeat = true;
    clock.now = 2000;
    const ticking = a.tick();
    await beatLanded;
    // Past the deadline the first beat gave (2,400), before the one this beat would give (4,400).
    clock.now = 3200;
    release();
    await ticking;
    expect(events.filter((e) => e.endsWith(' expired'))).toHaveLength(TENANTS.length);
  });

  it('never resumes from the kept files a database another replica took meanwhile, and discards them once it sees that (review-164 F1)', async () => {
    let cut = false;
    const c = cluster(['a', 'b'], ['t'], (name, store) =>
      name !== 'a'
        ? store
        : new (class extends ForwardingObjectStore {
            override put(key: string, body: PutBody, options?: PutOptions) {
              if (cut && key.startsWith('cluster/members/')) return Promise.reject(new Error('the bucket did not answer'));
              return super.put(key, body, options);
            }
          })(store),
    );
    const [a, b] = c.replicas as [(typeof c.replicas)[0], (typeof c.replicas)[0]];
    await round(c, 0, [a]);
    expect(a.ownership.held().has('t')).toBe(true);
    // a's heartbeat fails: past its deadline it drops t, keeping its files; b, seeing a silent for a lease, takes t.
    cut = true;
    await round(c, LEASE_MS, [a]);
    expect(c.events.filter((e) => e.startsWith('a drops'))).toEqual(['a drops t (expired)']);
    let t = LEASE_MS;
    for (; !b.ownership.held().has('t'); t += LEASE_MS / 3) await round(c, t, [b]);
    expect(c.events).toContain('b adopts t@2');
    // a is back: it sees b's lease and discards its files.
    cut = false;
    await round(c, t + 1, [a]);
    expect(c.events.at(-1)).toBe('a discards t');
    expect(a.ownership.held().has('t')).toBe(false);
    // b stops (its lease free, written by b): a takes t back from the bucket, not resuming anything.
    await b.ownership.stop();
    await round(c, t + 2, [a]);
    expect(a.ownership.held().has('t')).toBe(true);
    expect(c.events.filter((e) => e.startsWith('a adopts'))).toEqual(['a adopts t@1', 'a adopts t@3']);
  });

  it('never takes a lease whose holder it has not seen beat before a whole lease has passed', async () => {
    const c = cluster(['a', 'b'], TENANTS);
    const [a, b] = c.replicas as [(typeof c.replicas)[0], (typeof c.replicas)[0]];
    await round(c, 0, [a]);
    expect(a.ownership.held().size).toBe(TENANTS.length);
    // b finds a's leases but not a's heartbeat (a started a moment ago, or its beat is not listed yet).
    await c.store.delete('cluster/members/a.json');
    for (let t = 0; t < LEASE_MS; t += LEASE_MS / 3) await round(c, t, [b]);
    expect(b.ownership.held().size).toBe(0);
    for (let t = LEASE_MS; t <= 3 * LEASE_MS; t += LEASE_MS / 3) await round(c, t, [b]);
    expect(b.ownership.held().size).toBe(TENANTS.length);
  });

  it("never takes a live replica's databases because its own round ran long: a holder is judged by the last listing, not by the time since", async () => {
    // b's first lease write of a round takes most of a lease on the clock (a slow bucket, many takeovers before it),
    // and a, alive, beats meanwhile. b's own deadline still holds, so b may still acquire; it must not count a dead
    // on the strength of a listing made before that write.
    let slowWrites = 0;
    const meanwhile: (() => Promise<void>)[] = [];
    const c = cluster(['a', 'b', 'c'], MANY, (name, store, clock) =>
      name !== 'b'
        ? store
        : new (class extends ForwardingObjectStore {
            override async put(key: string, body: PutBody, options?: PutOptions) {
              const written = await super.put(key, body, options);
              if (slowWrites > 0 && key.startsWith(LEASE_PREFIX)) {
                slowWrites--;
                clock.now += 0.7 * LEASE_MS;
                for (const run of meanwhile) await run();
              }
              return written;
            }
          })(store),
    );
    for (let t = 0; t <= 6 * LEASE_MS; t += LEASE_MS / 3) await round(c, t);
    const [a, b] = c.replicas as [(typeof c.replicas)[0], (typeof c.replicas)[0]];
    const ofA = [...a.ownership.held().keys()];
    // c stops beating; a and b go on. c's last heartbeat was first listed by b at 6⅓ leases, so at 7⅓ b finds c's
    // lease expired and takes c's databases, in a round that lists a's heartbeat of 7 leases: a's beat of 7⅓ is
    // slow to land (a beats every third of a lease: the heartbeat b lists is at most that old).
    for (let t = 6 * LEASE_MS + LEASE_MS / 3; t <= 7 * LEASE_MS; t += LEASE_MS / 3) await round(c, t, [a, b]);
    meanwhile.push(() => a.ownership.tick());
    slowWrites = 1;
    await round(c, 7 * LEASE_MS + LEASE_MS / 3, [b]);
    const fromC = [...b.ownership.held().keys()].filter((t) => !ofA.includes(t));
    expect(fromC.length, "b took c's databases").toBeGreaterThan(0);
    for (const tenant of ofA) expect(b.ownership.held().has(tenant), `${tenant} taken by b from a, alive`).toBe(false);
  });

  it('reads the bucket for ids the last round did not list only within a budget: past it, requests wait for the next listing', async () => {
    let leaseReads = 0;
    const c = cluster(['a', 'b'], TENANTS, (name, store) =>
      name === 'a'
        ? store
        : new (class extends ForwardingObjectStore {
            override get(key: string, options?: Parameters<ObjectStore['get']>[1]) {
              if (key.startsWith(LEASE_PREFIX)) leaseReads++;
              return super.get(key, options);
            }
          })(store),
    );
    for (let t = 0; t <= 3 * LEASE_MS; t += LEASE_MS / 3) await round(c, t);
    const [a, b] = c.replicas as [(typeof c.replicas)[0], (typeof c.replicas)[0]];
    // A database a creates now, which b's last round has not listed.
    expect(await a.ownership.claimNew('fresh')).toBeDefined();
    leaseReads = 0;
    // A flood of made-up ids within one second: a budget of reads, the rest wait for b's next round.
    const made = Array.from({ length: 100 }, (_, i) => b.ownership.route(`made-up-${i}`, { budgeted: true }));
    const fresh = b.ownership.route('fresh', { budgeted: true });
    await new Promise((resolve) => setImmediate(resolve));
    expect(leaseReads).toBeLessThanOrEqual(20);
    const listedBefore = leaseReads;
    await round(c, c.clock.now + 1, [b]);
    const routes = await Promise.all(made);
    expect(routes.filter((r) => r.kind === 'absent').length).toBeGreaterThanOrEqual(80);
    expect(routes.every((r) => r.kind === 'absent' || r.kind === 'unknown')).toBe(true);
    // The real new database is found either way: by the read, or by the listing it waited for.
    expect(await fresh).toMatchObject({ kind: 'forward', holder: { name: 'a' } });
    // The round read the new lease once, and the request for it (listed: a database that exists) once more; the
    // made-up ids waiting read nothing.
    expect(leaseReads - listedBefore).toBeLessThanOrEqual(2);
    // Not budgeted (the admin API, the operator's calls): always read.
    leaseReads = 0;
    await b.ownership.route('made-up-admin');
    expect(leaseReads).toBe(1);
  });

  it('reads an id after all when no listing comes (the bucket failing): never absent without a listing', async () => {
    const c = cluster(['a'], TENANTS);
    await round(c, 0);
    const [a] = c.replicas as [(typeof c.replicas)[0]];
    // Over the budget, and no round follows: each request waits two rounds' time (2 s here), then reads.
    const routes = await Promise.all(Array.from({ length: 25 }, (_, i) => a.ownership.route(`made-up-${i}`, { budgeted: true })));
    expect(routes.map((r) => r.kind)).toEqual(routes.map(() => 'unknown'));
  });

  it('lets a creation whose claim went through but whose next step failed claim again, rather than refuse it for good', async () => {
    const c = cluster(['a', 'b'], []);
    await round(c, 0);
    const [a, b] = c.replicas as [(typeof c.replicas)[0], (typeof c.replicas)[0]];
    const first = await a.ownership.claimNew('fresh');
    expect(first?.epoch).toBe(1);
    // Tried again while still held here: the same lease. Given up (the metadata could not be written): the next epoch.
    expect((await a.ownership.claimNew('fresh'))?.epoch).toBe(1);
    await a.ownership.forget('fresh');
    await new LeaseStore(c.store).write(
      { tenant: 'fresh', epoch: 1, holder: { name: 'a', nonce: 'a-nonce', url: 'http://a', adminUrl: 'http://a-admin' }, renewedAt: new Date(0).toISOString(), renewals: 0 },
      (await new LeaseStore(c.store).read('fresh'))?.etag,
    );
    expect((await a.ownership.claimNew('fresh'))?.epoch).toBe(2);
    // Another live replica's claim is still refused.
    expect(await b.ownership.claimNew('fresh')).toBeUndefined();
  });

  it("leaves alone the lease another replica took after this one's lapsed: a creation failing late deletes only its own (review-178 R-B)", async () => {
    const c = cluster(['a', 'b'], ['n']);
    const [a, b] = c.replicas as [(typeof c.replicas)[0], (typeof c.replicas)[0]];
    await round(c, 0, [a]);
    // a creates 'n', then its bucket calls hang (no heartbeat): b, beating alone, takes the lapsed lease at epoch 2.
    expect((await a.ownership.claimNew('n'))?.epoch).toBe(1);
    for (let at = 0; at <= 10_000; at += 1000) await round(c, at, [b]);
    expect(b.ownership.held().get('n')).toBe(2);
    // a's metadata write fails (its guard: the deadline passed): the creation forgets the lease.
    await a.ownership.forget('n');
    expect((await new LeaseStore(c.store).read('n'))?.lease).toMatchObject({ epoch: 2, holder: { name: 'b' } });
    await round(c, 12_000, [b]);
    expect(c.events).not.toContain('b drops n (lost)');
    expect(b.ownership.held().get('n')).toBe(2);
    // b's own forget (the database deleted there) still deletes its lease, and a deleted database's leftover lease,
    // held by nobody alive, goes too.
    await b.ownership.forget('n');
    expect(await new LeaseStore(c.store).read('n')).toBeUndefined();
    await new LeaseStore(c.store).write({ tenant: 'left', epoch: 3, holder: null, renewedAt: '', renewals: 0 }, undefined);
    await a.ownership.forget('left');
    expect(await new LeaseStore(c.store).read('left')).toBeUndefined();
  });

  it('gives up a database whose lease another process deleted, or whose metadata is gone for a whole lease (review-164 F3)', async () => {
    // An owner paused in the middle of deleting a database, taken over meanwhile, resumes: it deletes the metadata
    // and the new owner's lease. The new owner must not go on serving the deleted database with its old tokens.
    const described = ['t', 'u'];
    const c = cluster(['b'], described);
    const [b] = c.replicas as [(typeof c.replicas)[0]];
    await round(c, 0);
    expect([...b.ownership.held().keys()].sort()).toEqual(['t', 'u']);
    described.splice(0, 1);
    await c.store.delete(`${LEASE_PREFIX}t.json`);
    await round(c, 1000);
    expect(b.ownership.held().has('t')).toBe(false);
    expect(c.events.filter((e) => e.includes('drops'))).toEqual(['b drops t (lost)']);
    // Metadata gone, lease left (a delete cut short before its lease went): given up once a lease has passed.
    described.splice(0, 1);
    for (let t = 2000; t < 2000 + LEASE_MS; t += LEASE_MS / 3) await round(c, t);
    expect(b.ownership.held().has('u')).toBe(true);
    await round(c, 2000 + LEASE_MS);
    expect(b.ownership.held().has('u')).toBe(false);
    expect(c.events.filter((e) => e.includes('drops'))).toEqual(['b drops t (lost)', 'b drops u (lost)']);
    expect((await new LeaseStore(c.store).read('u'))?.lease.holder).toBeNull();
  });

  it('keeps a database it has just created though the listing of its round did not show it yet (review-164 F3)', async () => {
    // Its metadata is written right after its claim; here the listings show it only a lease less a round later.
    const tenants: string[] = [];
    const c = cluster(['a'], tenants);
    const [a] = c.replicas as [(typeof c.replicas)[0]];
    await round(c, 0);
    expect(await a.ownership.claimNew('created')).toBeDefined();
    for (let t = LEASE_MS / 3; t <= 3 * LEASE_MS; t += LEASE_MS / 3) {
      if (t >= LEASE_MS) tenants.splice(0, 1, 'created');
      await round(c, t);
    }
    expect(a.ownership.held().has('created')).toBe(true);
  });

  it('waits, when stopping, for a handover under way: it leaves only once that lease is free (review-164 F4)', async () => {
    let finish: () => void = () => {};
    const shipping = new Promise<void>((resolve) => (finish = resolve));
    // a's handovers ship until the test lets them finish.
    const c = cluster(['a', 'b'], TENANTS, undefined, { closing: (name, _tenant, reason) => (name === 'a' && reason === 'handover' ? shipping : Promise.resolve()) });
    const [a, b] = c.replicas as [(typeof c.replicas)[0], (typeof c.replicas)[0]];
    await round(c, 0, [a]);
    for (let t = 1000; t <= 2 * LEASE_MS; t += LEASE_MS / 3) await round(c, t, [b, a]);
    const tenant = c.events.find((e) => e.startsWith('a drops') && e.endsWith('(handover)'))?.split(' ')[2] ?? '';
    expect(tenant).not.toBe('');
    let stopped = false;
    const stopping = a.ownership.stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(stopped).toBe(false);
    finish();
    await stopping;
    expect((await new LeaseStore(c.store).read(tenant))?.lease.holder).toBeNull();
  });

  it('passes over a replica that could not open a database: it is not retried there every round, and another serves it (review-164 F11)', async () => {
    // Placed on b, which cannot open it (its shards' memory full, say): b took it back every round, restoring it
    // each time, and a handed it back to b whenever it had it, so nobody served it.
    const tenant = TENANTS.find((t) => preferredReplica(t, ['a', 'b']) === 'b') ?? '';
    const c = cluster(['a', 'b'], [tenant], undefined, {
      opening: (name) => {
        if (name === 'b') throw new Error('SQLITE_NOMEM: no memory left to open another database in its shard');
      },
    });
    const [a, b] = c.replicas as [(typeof c.replicas)[0], (typeof c.replicas)[0]];
    await round(c, 0, [a]);
    for (let t = 1000; t <= 20 * LEASE_MS; t += LEASE_MS / 3) {
      await round(c, t, [b, a]);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(c.events.filter((e) => e.startsWith('b adopts')).length).toBeLessThanOrEqual(2);
    expect(a.ownership.held().has(tenant)).toBe(true);
    expect(b.ownership.held().has(tenant)).toBe(false);
    // A restarted b (another process) is tried again.
    expect((await new LeaseStore(c.store).read(tenant))?.lease.failedToOpen?.map((f) => f.nonce)).toEqual(['b-nonce']);
  });

  it('lets exactly one of two replicas racing for a new database win it', async () => {
    for (let attempt = 0; attempt < 10; attempt++) {
      const c = cluster(['a', 'b'], []);
      await round(c, 0);
      const [a, b] = c.replicas as [(typeof c.replicas)[0], (typeof c.replicas)[0]];
      const won = await Promise.all([a.ownership.claimNew('fresh'), b.ownership.claimNew('fresh')]);
      expect(won.filter((f) => f !== undefined)).toHaveLength(1);
    }
  });
});
