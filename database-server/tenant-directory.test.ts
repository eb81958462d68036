import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect as tcpConnect } from 'node:net';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createClient, type Client } from '@libsql/client';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../src/logging/log.ts';
import { startHranaServer, type HranaServer } from './hrana/http-server.ts';
import { LocalEngine } from './shards/local-engine.ts';
import { DEFAULT_DAILY_QUOTAS, DEFAULT_DATABASE_LIMITS } from './sql/sql-limits.ts';
import { StreamRegistry } from './hrana/stream-registry.ts';
import { UsageMeter } from './sql/usage-meter.ts';
import { listAll } from '../src/object-store/list-all.ts';
import { MemoryObjectStore } from '../src/object-store/memory-object-store.ts';
import type { GetOptions, ObjectStore, PutBody, PutOptions, PutResult } from '../src/object-store/object-store.ts';
import { ForwardingObjectStore } from '../src/object-store/testing/forwarding-object-store.ts';
import { GateStore } from '../src/object-store/testing/gate-object-store.ts';
import { bucketReplication } from './bucket-replication.ts';
import { CopyUnavailableError, RestorePointUnavailableError, TenantNotFoundError, type DesiredTenant } from './tenant-admin-types.ts';
import { deleteReplica } from './replication/replica-admin.ts';
import { NotOwnerError, TenantDirectory, type DirectoryCluster } from './tenant-directory.ts';
import { DurabilityUnconfirmedError, LEASE_TAKEN } from './durability-unconfirmed.ts';
import { ownershipCluster } from './ownership-cluster.ts';
import { LeaseReads } from './cluster/testing/lease-reads.ts';
import type { Fencing } from './replication-port.ts';
import { Ownership, type OwnershipHooks } from './cluster/ownership.ts';
import { TenantMetaStore } from './tenant-meta.ts';
import { tokenSha256 } from './token-index.ts';
import { OpenDatabases, trackOpenDatabases } from './open-databases.ts';
import type { DatabaseEngine } from './shards/engine-port.ts';

// cw-db as main.ts wires it, minus S3 and the timers: a TenantDirectory on a MemoryObjectStore, real SQLite files
// through LibsqlEngine, and the real Hrana server, driven with the official client.
const roots: string[] = [];
const nodes: Node[] = [];

afterEach(() => {
  vi.useRealTimers();
});

afterAll(async () => {
  for (const node of nodes) await node.close();
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

interface Node {
  directory: TenantDirectory;
  server: HranaServer;
  streams: StreamRegistry;
  engine: DatabaseEngine;
  client(tenant: string, token: string, options?: { trailingSlash?: boolean }): Client;
  post(pathTenant: string | null, token: string | undefined, sql?: string): Promise<{ status: number; body: unknown }>;
  close(): Promise<void>;
}

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'cw-db-dir-'));
  roots.push(dir);
  return dir;
}

async function startNode(
  store: ObjectStore,
  options: {
    now?: () => number;
    load?: boolean;
    cluster?: DirectoryCluster;
    openDatabases?: OpenDatabases;
    meter?: UsageMeter;
    maxWalBytes?: number;
    shippingAtOnce?: number;
    snapshotWaitOnReleaseMs?: number;
  } = {},
): Promise<Node> {
  const local = new LocalEngine({ directory: tempDir(), manualCheckpoints: true });
  const engine = options.openDatabases ? trackOpenDatabases(local, options.openDatabases) : local;
  const streams = new StreamRegistry();
  const meter = options.meter ?? new UsageMeter();
  const directory = new TenantDirectory({
    engine,
    limitPolicy: {
      defaults: { ...DEFAULT_DATABASE_LIMITS, ...DEFAULT_DAILY_QUOTAS },
      maxima: { statementTimeoutMs: 30_000, maxSizeBytes: 10 * 1024 ** 3, rowsReadPerDay: 10 ** 10, rowsWrittenPerDay: 10 ** 9 },
    },
    streams,
    meter,
    metas: new TenantMetaStore(store),
    replication: bucketReplication(store, undefined, undefined, options.maxWalBytes === undefined ? {} : { maxWalBytes: options.maxWalBytes }),
    log: silentLogger,
    ...(options.now ? { now: options.now } : {}),
    ...(options.cluster ? { cluster: options.cluster } : {}),
    ...(options.openDatabases ? { openDatabases: options.openDatabases } : {}),
    ...(options.shippingAtOnce === undefined ? {} : { shippingAtOnce: options.shippingAtOnce }),
    ...(options.snapshotWaitOnReleaseMs === undefined ? {} : { snapshotWaitOnReleaseMs: options.snapshotWaitOnReleaseMs }),
  });
  if (options.load) {
    await directory.load();
    await directory.whenAllReady();
  }
  const server = await startHranaServer({
    port: 0,
    engine,
    streams,
    meter,
    authorize: (r, t) => directory.authorize(r, t),
    afterCommit: (t, after) => directory.afterCommit(t, after),
    unserved: (t) => directory.unserved(t),
  });
  const clients: Client[] = [];
  let closed = false;
  const node: Node = {
    directory,
    server,
    streams,
    engine,
    client(tenant, token, { trailingSlash = true } = {}) {
      const client = createClient({ url: `http://127.0.0.1:${server.port}/v1/${tenant}${trailingSlash ? '/' : ''}`, authToken: token });
      clients.push(client);
      return client;
    },
    async post(pathTenant, token, sql = 'SELECT 1') {
      const response = await fetch(`http://127.0.0.1:${server.port}/v1/${pathTenant === null ? '' : `${pathTenant}/`}v2/pipeline`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
        body: JSON.stringify({ baton: null, requests: [{ type: 'execute', stmt: { sql } }, { type: 'close' }] }),
      });
      return { status: response.status, body: await response.json() };
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const client of clients) client.close();
      await server.close();
      await directory.close();
    },
  };
  nodes.push(node);
  return node;
}

/** One Hrana pipeline of `sql` steps on the stream `baton` names (none: a new one), as the client sends it. */
async function pipeline(node: Node, tenant: string, token: string, baton: string | null, sql: string[]): Promise<PipelineReply> {
  const response = await fetch(`http://127.0.0.1:${node.server.port}/v1/${tenant}/v2/pipeline`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ baton, requests: sql.map((text) => ({ type: 'execute', stmt: { sql: text } })) }),
  });
  const body = (await response.json()) as Omit<PipelineReply, 'status' | 'error'> & { code?: string };
  return response.ok ? { status: response.status, ...body } : { status: response.status, error: body };
}
interface PipelineReply {
  status: number;
  baton?: string | null;
  results?: Array<{ type: string; error?: { code?: string } }>;
  error?: { code?: string };
}

const grant = (token: string, extra: { readOnly?: boolean; expiresAt?: number } = {}) => ({
  sha256: tokenSha256(token),
  readOnly: extra.readOnly ?? false,
  ...(extra.expiresAt === undefined ? {} : { expiresAt: extra.expiresAt }),
});
const desired = (tokens: string[], extra: Partial<DesiredTenant> = {}): DesiredTenant => ({ tokens: tokens.map((t) => grant(t)), durability: 'async', ...extra });

async function keys(store: ObjectStore, prefix = ''): Promise<string[]> {
  const found: string[] = [];
  for await (const { key } of listAll(store, prefix)) found.push(key);
  return found;
}

/** Fails the next read of `key` while `armed` (from the first, unless disarmed), as a store that did not answer for a moment. */
class ReadFails extends ForwardingObjectStore {
  readonly #key: string;
  armed = true;
  /** Runs before the read fails: what happens elsewhere while it hangs. */
  meanwhile: (() => Promise<void>) | undefined;

  constructor(inner: ObjectStore, key: string) {
    super(inner);
    this.#key = key;
  }

  override async get(key: string, options?: GetOptions) {
    if (key !== this.#key || !this.armed) return super.get(key, options);
    this.armed = false;
    await this.meanwhile?.();
    throw new Error('the store did not answer');
  }
}

/** The store refuses the next write of `key` while `armed` (a bucket failing for one object). */
class PutFails extends ForwardingObjectStore {
  readonly #key: string;
  armed = false;

  constructor(inner: ObjectStore, key: string) {
    super(inner);
    this.#key = key;
  }

  override async put(key: string, body: PutBody, options?: PutOptions): Promise<PutResult> {
    if (key !== this.#key || !this.armed) return super.put(key, body, options);
    this.armed = false;
    throw new Error('the store did not answer');
  }
}

/** A node where `tenant` was just created: it serves (its base copy is taken), the upload of that copy held. */
async function createdWithBaseHeld(tenant: string, token: string): Promise<{ bucket: MemoryObjectStore; gate: GateStore; node: Node }> {
  const bucket = new MemoryObjectStore();
  const gate = new GateStore(bucket, (key) => key.startsWith(`replicas/${tenant}/`));
  const node = await startNode(gate);
  await node.directory.ensure(tenant, desired([token]));
  await gate.reached;
  return { bucket, gate, node };
}

/**
 * Runs `body` on a node serving `tenant` (shipping every 10 ms) once some 70 MiB of WAL made a snapshot due (every
 * 64 MiB) and that snapshot's upload is held; released after `body` if it did not release it.
 */
async function whileSnapshotHeld(
  tenant: string,
  token: string,
  options: { cluster?: DirectoryCluster; shippingAtOnce?: number; project?: string },
  body: (held: { bucket: MemoryObjectStore; gate: GateStore; node: Node }) => Promise<void>,
): Promise<void> {
  const bucket = new MemoryObjectStore();
  // Held: the first snapshot after the generation's base (segment numbers from 1 on).
  const gate = new GateStore(bucket, (key) => key.startsWith(`replicas/${tenant}/`) && key.includes('/snapshots/') && !key.includes('/snapshots/0000000000-'));
  const { project, ...nodeOptions } = options;
  const node = await startNode(gate, nodeOptions);
  await node.directory.ensure(tenant, desired([token], project === undefined ? {} : { project }));
  const rounds = node.directory.shipEvery(10);
  try {
    const client = node.client(tenant, token);
    await client.execute('CREATE TABLE t (v BLOB)');
    for (let i = 0; i < 7; i++) await client.execute('INSERT INTO t SELECT zeroblob(100000) FROM generate_series(1, 100)');
    await gate.reached;
    await body({ bucket, gate, node });
  } finally {
    rounds.stop();
    gate.release();
  }
}

async function names(client: Client, table = 't'): Promise<unknown[]> {
  return (await client.execute(`SELECT name FROM ${table} ORDER BY rowid`)).rows.map((r) => r.name);
}

/**
 * Waits until the tenants' base snapshots are copied and up: an idle close passes over a database whose snapshot is
 * being copied (it would wait for the copy under the lock), and a database ensured a moment ago is still copying.
 */
async function copied(node: { directory: { ship(tenant: string): Promise<boolean> } }, tenants: readonly string[]): Promise<void> {
  await Promise.all(tenants.map((tenant) => node.directory.ship(tenant)));
}

describe('TenantDirectory behind the Hrana server', () => {
  it('serves a new tenant to the holder of its token, and refuses wrong tokens, other paths and unknown tenants', async () => {
    const node = await startNode(new MemoryObjectStore());
    expect(await node.directory.ensure('alpha', desired(['tok-alpha']))).toEqual({ created: true });
    await node.directory.ensure('beta', desired(['tok-beta']));
    const alpha = node.client('alpha', 'tok-alpha');
    await alpha.execute('CREATE TABLE t (name TEXT)');
    await alpha.execute({ sql: 'INSERT INTO t VALUES (?)', args: ['a1'] });
    expect(await names(alpha)).toEqual(['a1']);

    expect(await node.post('alpha', 'tok-wrong')).toEqual({ status: 401, body: expect.objectContaining({ code: 'UNAUTHORIZED' }) });
    expect(await node.post('alpha', undefined)).toEqual({ status: 401, body: expect.objectContaining({ code: 'UNAUTHORIZED' }) });
    expect(await node.post(null, 'tok-wrong')).toMatchObject({ status: 401 });
    expect(await node.post('beta', 'tok-alpha')).toEqual({ status: 403, body: expect.objectContaining({ code: 'FORBIDDEN' }) });
    expect(await node.post('gamma', 'tok-alpha')).toEqual({ status: 404, body: expect.objectContaining({ code: 'TENANT_NOT_FOUND' }) });
    await expect(node.client('beta', 'tok-alpha').execute('SELECT 1')).rejects.toThrow();
  });

  it('serves the /v1/v2/pipeline form (a URL without a trailing slash) on the tenant the token names', async () => {
    const node = await startNode(new MemoryObjectStore());
    await node.directory.ensure('alpha', desired(['tok-alpha']));
    await node.directory.ensure('beta', desired(['tok-beta']));
    await node.client('alpha', 'tok-alpha').execute("CREATE TABLE t AS SELECT 'in alpha' AS name");
    await node.client('beta', 'tok-beta').execute("CREATE TABLE t AS SELECT 'in beta' AS name");
    // The last segment is dropped by the client: the token alone names the tenant.
    expect(await names(node.client('whatever', 'tok-alpha', { trailingSlash: false }))).toEqual(['in alpha']);
    expect(await names(node.client('alpha', 'tok-beta', { trailingSlash: false }))).toEqual(['in beta']);
  });

  it('lets a read-only token read but not write', async () => {
    const node = await startNode(new MemoryObjectStore());
    await node.directory.ensure('alpha', { tokens: [grant('tok-rw'), grant('tok-ro', { readOnly: true })], durability: 'async' });
    await node.client('alpha', 'tok-rw').execute("CREATE TABLE t AS SELECT 'x' AS name");
    const reader = node.client('alpha', 'tok-ro');
    expect(await names(reader)).toEqual(['x']);
    await expect(reader.execute("INSERT INTO t VALUES ('y')")).rejects.toMatchObject({ code: 'SQLITE_READONLY' });
    await expect(reader.execute('CREATE TABLE u (n INTEGER)')).rejects.toMatchObject({ code: 'SQLITE_READONLY' });
    expect(await names(reader)).toEqual(['x']);
  });

  it('rotates tokens with ensure: the old ones are refused at once, the data stays', async () => {
    const node = await startNode(new MemoryObjectStore());
    await node.directory.ensure('alpha', desired(['tok-old']));
    await node.client('alpha', 'tok-old').execute("CREATE TABLE t AS SELECT 'kept' AS name");
    expect(await node.directory.ensure('alpha', desired(['tok-new']))).toEqual({ created: false });
    expect(await node.post('alpha', 'tok-old')).toMatchObject({ status: 401 });
    expect(await node.post(null, 'tok-old')).toMatchObject({ status: 401 });
    expect(await names(node.client('alpha', 'tok-new'))).toEqual(['kept']);
  });

  it('refuses a token from its expiry time on, by the injected clock', async () => {
    let now = 1_000_000;
    const node = await startNode(new MemoryObjectStore(), { now: () => now });
    await node.directory.ensure('alpha', { tokens: [grant('tok-short', { expiresAt: 1_000_500 }), grant('tok-long')], durability: 'async' });
    expect(await node.post('alpha', 'tok-short')).toMatchObject({ status: 200 });
    now = 1_000_500;
    expect(await node.post('alpha', 'tok-short')).toMatchObject({ status: 401 });
    expect(await node.post('alpha', 'tok-long')).toMatchObject({ status: 200 });
  });

  it('deletes a tenant: its token answers 404, and nothing of it is left on disk or in the bucket', async () => {
    const store = new MemoryObjectStore();
    const node = await startNode(store);
    await node.directory.ensure('alpha', desired(['tok-alpha'], { durability: 'sync' }));
    // A neighbour whose id starts with the deleted one's: its keys share that prefix but not the tenant's root.
    await node.directory.ensure('alpha-b', desired(['tok-beta'], { durability: 'sync' }));
    for (const [tenant, token] of [
      ['alpha', 'tok-alpha'],
      ['alpha-b', 'tok-beta'],
    ] as const) {
      const client = node.client(tenant, token);
      await client.execute('CREATE TABLE t (name TEXT)');
      await client.execute("INSERT INTO t VALUES ('x')");
    }
    await node.directory.saveUsage(new Map());
    const ofAlpha = (k: string) => k.startsWith('tenants/alpha.') || k.startsWith('replicas/alpha/');
    expect((await keys(store)).filter(ofAlpha)).toEqual(
      expect.arrayContaining(['tenants/alpha.json', 'tenants/alpha.usage.json', expect.stringMatching(/^replicas\/alpha\/generations\/.+\.seg\.gz$/)]),
    );

    await node.directory.delete('alpha');
    expect(await node.post(null, 'tok-alpha')).toEqual({ status: 404, body: { code: 'TENANT_NOT_FOUND', message: 'The database was deleted' } });
    expect(await node.post('alpha', 'tok-alpha')).toMatchObject({ status: 404 });
    expect(await node.directory.describe('alpha')).toBeUndefined();
    const file = node.engine.databasePath('alpha');
    expect([file, `${file}-wal`, `${file}-shm`].filter((f) => existsSync(f))).toEqual([]);
    expect(existsSync(node.engine.databasePath('alpha-b'))).toBe(true);
    const left = await keys(store);
    expect(left.filter(ofAlpha)).toEqual([]);
    expect(left).toEqual(expect.arrayContaining(['tenants/alpha-b.json', 'tenants/alpha-b.usage.json']));
    expect(left.some((k) => k.startsWith('replicas/alpha-b/'))).toBe(true);
    expect(await names(node.client('alpha-b', 'tok-beta'))).toEqual(['x']);
    // A deletion of what is already gone succeeds.
    await node.directory.delete('alpha');
  });

  it('deletes a tenant whose base snapshot is still uploading: nothing of it lands after the deletion', async () => {
    const { bucket, gate, node } = await createdWithBaseHeld('alpha', 'tok-alpha');
    const deleted = node.directory.delete('alpha');
    gate.release();
    await Promise.all([deleted, gate.passed]);
    expect((await keys(bucket)).filter((k) => k.startsWith('replicas/alpha/') || k.startsWith('tenants/alpha.'))).toEqual([]);
  });

  it("closes the tenant's open streams when it is deleted, so no transaction keeps its lock", async () => {
    const node = await startNode(new MemoryObjectStore());
    await node.directory.ensure('alpha', desired(['tok-alpha']));
    const client = node.client('alpha', 'tok-alpha');
    await client.execute('CREATE TABLE t (name TEXT)');
    const tx = await client.transaction('write');
    await tx.execute("INSERT INTO t VALUES ('uncommitted')");
    expect(node.server.streams.lockFor('alpha').holder).not.toBeNull();
    await node.directory.delete('alpha');
    // delete() closes the streams of the registry it was given; the server must be serving from that registry.
    expect(node.server.streams.lockFor('alpha').holder).toBeNull();
    tx.close();
  });

  it('refuses a request let in before its database was deleted and run after (its body still coming): no file of it comes back', async () => {
    const node = await startNode(new MemoryObjectStore());
    await node.directory.ensure('alpha', desired(['tok-alpha']));
    // A server of its own on the same directory, to see when the request has been let in.
    let letIn!: () => void;
    const authorized = new Promise<void>((resolve) => (letIn = resolve));
    const server = await startHranaServer({
      port: 0,
      engine: node.engine,
      streams: node.streams,
      authorize: async (r, t) => {
        const caller = await node.directory.authorize(r, t);
        letIn();
        return caller;
      },
      unserved: (t) => node.directory.unserved(t),
    });
    const body = JSON.stringify({ baton: null, requests: [{ type: 'execute', stmt: { sql: 'CREATE TABLE t (x)' } }, { type: 'close' }] });
    const socket = tcpConnect(server.port, '127.0.0.1');
    const answer = new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      socket.on('end', () => resolve(text));
    });
    socket.write(`POST /v1/alpha/v2/pipeline HTTP/1.1\r\nhost: cw-db\r\nauthorization: Bearer tok-alpha\r\nconnection: close\r\ncontent-length: ${body.length}\r\n\r\n${body.slice(0, 10)}`);
    await authorized;
    await node.directory.delete('alpha');
    socket.end(body.slice(10));
    expect(await answer).toContain('"code":"TENANT_NOT_FOUND"');
    const file = node.engine.databasePath('alpha');
    expect([file, `${file}-wal`, `${file}-shm`].filter((f) => existsSync(f))).toEqual([]);
    await server.close();
  });

  it('restores every tenant of the bucket on a start with an empty data directory', async () => {
    const store = new MemoryObjectStore();
    const first = await startNode(store);
    await first.directory.ensure('alpha', desired(['tok-alpha']));
    const writer = first.client('alpha', 'tok-alpha');
    await writer.execute('CREATE TABLE t (name TEXT)');
    await writer.batch(["INSERT INTO t VALUES ('one')", "INSERT INTO t VALUES ('two')"], 'write');
    await first.directory.flushAll();

    const second = await startNode(store, { load: true });
    expect(await names(second.client('alpha', 'tok-alpha'))).toEqual(['one', 'two']);
    expect(await second.post('alpha', 'tok-wrong')).toMatchObject({ status: 401 });
  });

  it('answers 503 for a tenant whose copy cannot be restored, and serves the others', async () => {
    const store = new MemoryObjectStore();
    const first = await startNode(store);
    for (const tenant of ['alpha', 'beta']) {
      await first.directory.ensure(tenant, desired([`tok-${tenant}`], { durability: 'sync' }));
      await first.client(tenant, `tok-${tenant}`).execute(`CREATE TABLE t AS SELECT '${tenant}' AS name`);
    }
    const snapshots = (await keys(store, 'replicas/alpha/')).filter((k) => k.endsWith('.db.gz'));
    expect(snapshots.length).toBeGreaterThan(0);
    for (const key of snapshots) await store.put(key, 'not a gzipped database');

    const second = await startNode(store, { load: true });
    expect(await second.post('alpha', 'tok-alpha')).toEqual({ status: 503, body: expect.objectContaining({ code: 'DATABASE_UNAVAILABLE' }) });
    expect(await names(second.client('beta', 'tok-beta'))).toEqual(['beta']);
  });

  it('closes a database idle past the bound, opens it again on its next request, and goes on with the same generation', async () => {
    let clock = Date.now();
    const now = () => clock;
    const store = new MemoryObjectStore();
    const first = await startNode(store, { now, openDatabases: new OpenDatabases({ now }) });
    await first.directory.ensure('alpha', desired(['tok-alpha']));
    await first.directory.ensure('beta', desired(['tok-beta']));
    const alpha = first.client('alpha', 'tok-alpha');
    await alpha.execute('CREATE TABLE t (name TEXT)');
    await alpha.execute("INSERT INTO t VALUES ('one')");
    // beta is inside a transaction: its stream holds the connection, so it is never closed under it.
    const transaction = await first.client('beta', 'tok-beta').transaction('write');
    await transaction.execute('CREATE TABLE t (name TEXT)');
    await first.directory.flushAll();
    await copied(first, ['alpha', 'beta']);
    clock += 10 * 60_000;

    expect(await first.directory.closeIdle({ idleMs: 5 * 60_000, graceMs: 10_000 })).toBe(1);
    expect((await first.directory.describe('alpha'))?.open).toBe(false);
    expect((await first.directory.describe('beta'))?.open).toBe(true);
    await transaction.execute("INSERT INTO t VALUES ('kept')");
    await transaction.commit();

    await alpha.execute("INSERT INTO t VALUES ('two')");
    expect((await first.directory.describe('alpha'))?.open).toBe(true);
    expect(await names(alpha)).toEqual(['one', 'two']);
    await first.directory.flushAll();
    // One generation, one base snapshot: reopening took no new one.
    expect((await keys(store, 'replicas/alpha/')).filter((k) => k.endsWith('.db.gz'))).toHaveLength(1);

    const second = await startNode(store, { load: true });
    expect(await names(second.client('alpha', 'tok-alpha'))).toEqual(['one', 'two']);
    expect(await names(second.client('beta', 'tok-beta'))).toEqual(['kept']);
  });

  it('closes the least recently used past the bound of open databases, not one used within the grace', async () => {
    let clock = Date.now();
    const now = () => clock;
    const open = new OpenDatabases({ now });
    const node = await startNode(new MemoryObjectStore(), { now, openDatabases: open });
    for (const tenant of ['alpha', 'beta', 'gamma']) {
      await node.directory.ensure(tenant, desired([`tok-${tenant}`]));
      await node.client(tenant, `tok-${tenant}`).execute('SELECT 1');
      clock += 20_000;
    }
    await copied(node, ['alpha', 'beta', 'gamma']);
    // gamma was used last, at the time of the round: within the grace, so over a bound of 1 only alpha and beta go.
    clock -= 20_000;
    expect(await node.directory.closeIdle({ idleMs: 3_600_000, maxOpenPerShard: 1, graceMs: 10_000 })).toBe(2);
    expect(open.idleSince(Number.POSITIVE_INFINITY)).toEqual(['gamma']);
    expect((await node.client('alpha', 'tok-alpha').execute('SELECT 1 AS one')).rows[0]?.one).toBe(1);
    expect(open.isOpen('alpha')).toBe(true);
  });

  it('passes over a database a stream holds for the next over the bound, so the shard comes down to the bound', async () => {
    let clock = Date.now();
    const now = () => clock;
    const open = new OpenDatabases({ now });
    const node = await startNode(new MemoryObjectStore(), { now, openDatabases: open });
    for (const tenant of ['alpha', 'beta', 'gamma']) await node.directory.ensure(tenant, desired([`tok-${tenant}`]));
    // alpha, used first, is held by a stream inside a transaction: it cannot close, and must not take beta's place.
    const transaction = await node.client('alpha', 'tok-alpha').transaction('write');
    await transaction.execute('SELECT 1');
    clock += 20_000;
    for (const tenant of ['beta', 'gamma']) await node.client(tenant, `tok-${tenant}`).execute('SELECT 1');
    await copied(node, ['beta', 'gamma']);
    clock += 20_000;
    expect(await node.directory.closeIdle({ idleMs: 3_600_000, maxOpenPerShard: 1, graceMs: 10_000 })).toBe(2);
    expect(open.idleSince(Number.POSITIVE_INFINITY)).toEqual(['alpha']);
    await transaction.commit();
  });

  it('never waits on a database whose request is still running: the round closes the others at once', async () => {
    let clock = Date.now();
    const now = () => clock;
    const open = new OpenDatabases({ now });
    const node = await startNode(new MemoryObjectStore(), { now, openDatabases: open });
    for (const tenant of ['alpha', 'beta']) {
      await node.directory.ensure(tenant, desired([`tok-${tenant}`]));
      await node.client(tenant, `tok-${tenant}`).execute('SELECT 1');
    }
    await copied(node, ['alpha', 'beta']);
    // A request of alpha began long ago and still runs: it holds alpha's lock, as a pipeline request does.
    const request = {};
    await node.streams.lockFor('alpha').acquire(request, 1_000, () => new Error('not free'));
    clock += 10 * 60_000;
    const started = performance.now();
    expect(await node.directory.closeIdle({ idleMs: 5 * 60_000, maxOpenPerShard: 1, graceMs: 10_000 })).toBe(1);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(open.idleSince(Number.POSITIVE_INFINITY)).toEqual(['alpha']);
    node.streams.lockFor('alpha').release(request);
    expect(await node.directory.closeIdle({ idleMs: 5 * 60_000, graceMs: 10_000 })).toBe(1);
    expect(open.count).toBe(0);
  });

  it('keeps the project each database is in, across a restart, for sharing a shard out; one never told is a project of its own', async () => {
    const store = new MemoryObjectStore();
    const first = await startNode(store);
    await first.directory.ensure('alpha', desired(['tok-alpha'], { project: 'shop' }));
    await first.directory.ensure('beta', desired(['tok-beta']));
    // Asked again without it (an older operator): the project stays.
    await first.directory.ensure('alpha', desired(['tok-alpha']));
    expect([first.directory.projectOf('alpha'), first.directory.projectOf('beta'), first.directory.projectOf('nobody')]).toEqual(['shop', 'beta', 'nobody']);
    await first.directory.ensure('beta', desired(['tok-beta'], { project: 'blog' }));
    await first.close();
    const second = await startNode(store, { load: true });
    expect([second.directory.projectOf('alpha'), second.directory.projectOf('beta')]).toEqual(['shop', 'blog']);
  });

  it('on a start, opens each database only to start its generation and closes it again; a request opens it', async () => {
    const store = new MemoryObjectStore();
    const first = await startNode(store);
    for (const tenant of ['alpha', 'beta', 'gamma']) {
      await first.directory.ensure(tenant, desired([`tok-${tenant}`]));
      await first.client(tenant, `tok-${tenant}`).execute(`CREATE TABLE t AS SELECT '${tenant}' AS name`);
    }
    await first.directory.flushAll();

    const open = new OpenDatabases();
    const second = await startNode(store, { load: true, openDatabases: open });
    expect(open.count).toBe(0);
    expect(await names(second.client('beta', 'tok-beta'))).toEqual(['beta']);
    expect(open.idleSince(Number.POSITIVE_INFINITY)).toEqual(['beta']);
  });

  it("ships each tenant on rounds of its own: one tenant's upload still going does not hold back another's commits (found by a hostile run)", async () => {
    const bucket = new MemoryObjectStore();
    const gate = new GateStore(bucket, (key) => key.startsWith('replicas/alpha/') && key.includes('/segments/'));
    const node = await startNode(gate);
    await node.directory.ensure('alpha', desired(['tok-alpha']));
    await node.directory.ensure('beta', desired(['tok-beta']));
    const rounds = node.directory.shipEvery(10);
    try {
      await node.client('alpha', 'tok-alpha').execute('CREATE TABLE t (name TEXT)');
      await gate.reached;
      await node.client('beta', 'tok-beta').execute('CREATE TABLE t (name TEXT)');
      await expect.poll(async () => (await keys(bucket, 'replicas/beta/')).some((k) => k.includes('/segments/')), { timeout: 5_000 }).toBe(true);
    } finally {
      rounds.stop();
      gate.release();
    }
  });

  it('ships at most its cap of tenants at once, however many have commits pending (review-164 F8)', async () => {
    const bucket = new HeldSegments(new MemoryObjectStore());
    const node = await startNode(bucket, { shippingAtOnce: 2 });
    const tenants = await written(node, 5);
    bucket.reset();
    await node.directory.flushAll();
    expect(bucket.mostAtOnce).toBe(2);
    expect(new Set(bucket.arrivals)).toEqual(new Set(tenants));
  });

  it('begins each round with the tenants the cap left over: those shipped first are not served first again (review-164 F8)', async () => {
    const bucket = new HeldSegments(new MemoryObjectStore());
    const node = await startNode(bucket, { shippingAtOnce: 2 });
    const tenants = await written(node, 5);
    bucket.reset();
    bucket.hold = true;
    const rounds = node.directory.shipEvery(10);
    try {
      await expect.poll(() => bucket.arrivals.length, { timeout: 5_000 }).toBe(2);
      // The two shipping first have commits pending again by the time theirs land.
      for (const tenant of bucket.arrivals) await node.client(tenant, `tok-${tenant}`).execute("INSERT INTO t VALUES ('again')");
      bucket.release();
      await expect.poll(() => bucket.arrivals.length, { timeout: 5_000 }).toBe(7);
      // The three left over start before the two shipped first start again, but for one: two tenants picked in the
      // same round reach the bucket in either order (their segments are read and encoded first), so t4 and t0's
      // second may swap. Served first again, t0 and t1 would both start again before t4.
      expect(new Set(bucket.arrivals.slice(0, 6))).toEqual(new Set(tenants));
      expect(bucket.mostAtOnce).toBe(2);
    } finally {
      rounds.stop();
      bucket.release();
    }
  });

  it("counts a tenant against the cap while it uploads, not while its checkpoint waits for a transaction's lock (review-171 F1)", async () => {
    const bucket = new HeldSegments(new MemoryObjectStore());
    const node = await startNode(bucket, { shippingAtOnce: 2 });
    await written(node, 3);
    // t0 and t1 commit again and leave a transaction open: their checkpoints wait for the lock the stream holds.
    const batons = new Map<string, string | null>();
    for (const tenant of ['t0', 't1']) batons.set(tenant, (await pipeline(node, tenant, `tok-${tenant}`, null, ["INSERT INTO t VALUES ('x')", 'BEGIN', "INSERT INTO t VALUES ('y')"])).baton ?? null);
    bucket.reset();
    const rounds = node.directory.shipEvery(20);
    try {
      await expect.poll(() => bucket.arrivals, { timeout: 5_000 }).toEqual(expect.arrayContaining(['t0', 't1', 't2']));
    } finally {
      rounds.stop();
      for (const [tenant, baton] of batons) await pipeline(node, tenant, `tok-${tenant}`, baton, ['ROLLBACK']);
    }
  });

  it('flushes every tenant, the next starting as soon as any upload ends, not once the whole batch has (review-171 F4)', async () => {
    const bucket = new HeldSegments(new MemoryObjectStore());
    const node = await startNode(bucket, { shippingAtOnce: 2 });
    const tenants = await written(node, 3);
    bucket.reset();
    bucket.hold = true;
    bucket.holdOnly = 't0';
    const flushing = node.directory.flushAll();
    try {
      await expect.poll(() => bucket.arrivals, { timeout: 5_000 }).toEqual(expect.arrayContaining(['t1', 't2']));
    } finally {
      bucket.release();
    }
    await flushing;
    expect(new Set(bucket.arrivals)).toEqual(new Set(tenants));
  });

  it('goes on shipping a tenant while its snapshot uploads (found by a hostile run: a minute for 1 GiB, its WAL grew meanwhile)', async () => {
    await whileSnapshotHeld('alpha', 'tok-alpha', {}, async ({ bucket, node }) => {
      const alpha = node.client('alpha', 'tok-alpha');
      const segments = async () => (await keys(bucket, 'replicas/alpha/')).filter((k) => k.includes('/segments/')).length;
      const before = await segments();
      await alpha.execute("INSERT INTO t VALUES (x'00')");
      await expect.poll(segments, { timeout: 5_000 }).toBeGreaterThan(before);
    });
  }, 20_000);

  it("ships another project's commits while one project's uploads hold every place: it is lent one (review-174, the rounds' cap)", async () => {
    const bucket = new HeldSegments(new MemoryObjectStore());
    const node = await startNode(bucket, { shippingAtOnce: 2 });
    for (const [tenant, project] of [
      ['t0', 'p1'],
      ['t1', 'p1'],
      ['u', 'p2'],
    ] as const) {
      await node.directory.ensure(tenant, desired([`tok-${tenant}`], { project }));
      await node.client(tenant, `tok-${tenant}`).execute('CREATE TABLE t (name TEXT)');
    }
    await node.directory.flushAll();
    bucket.reset();
    bucket.hold = true;
    for (const tenant of ['t0', 't1']) await node.client(tenant, `tok-${tenant}`).execute("INSERT INTO t VALUES ('x')");
    const rounds = node.directory.shipEvery(10);
    try {
      await expect.poll(() => bucket.arrivals, { timeout: 5_000 }).toEqual(expect.arrayContaining(['t0', 't1']));
      await node.client('u', 'tok-u').execute("INSERT INTO t VALUES ('x')");
      await expect.poll(() => bucket.arrivals, { timeout: 3_000 }).toContain('u');
    } finally {
      rounds.stop();
      bucket.release();
    }
  });

  it("counts a snapshot upload against the rounds' cap: a tenant of the same project waits for its place (review-174)", async () => {
    await whileSnapshotHeld('big', 'tok-big', { shippingAtOnce: 1, project: 'p' }, async ({ bucket, gate, node }) => {
      await node.directory.ensure('small', desired(['tok-small'], { project: 'p' }));
      const segments = async () => (await keys(bucket, 'replicas/small/')).filter((k) => k.includes('/segments/')).length;
      await node.client('small', 'tok-small').execute('CREATE TABLE t (name TEXT)');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await segments()).toBe(0);
      gate.release();
      await expect.poll(segments, { timeout: 5_000 }).toBeGreaterThan(0);
    });
  }, 20_000);

  it("counts a tenant against the rounds' cap while its maintain ships and checkpoints under its lock (review-174)", async () => {
    const bucket = new MemoryObjectStore();
    let holding = false;
    const gate = new GateStore(bucket, (key) => holding && key.startsWith('replicas/a/') && key.includes('/segments/'));
    const node = await startNode(gate, { shippingAtOnce: 1 });
    for (const tenant of ['a', 'b']) {
      await node.directory.ensure(tenant, desired([`tok-${tenant}`], { project: 'p' }));
      await node.client(tenant, `tok-${tenant}`).execute('CREATE TABLE t (v BLOB)');
    }
    await node.directory.flushAll();
    const segments = async (tenant: string) => (await keys(bucket, `replicas/${tenant}/`)).filter((k) => k.includes('/segments/')).length;
    const shipped = await segments('a');
    // a's WAL past the checkpoint size, then a transaction holds its lock: a round ships it, its maintain waits.
    await node.client('a', 'tok-a').execute('INSERT INTO t SELECT zeroblob(100000) FROM generate_series(1, 50)');
    const { baton } = await pipeline(node, 'a', 'tok-a', null, ['BEGIN']);
    const rounds = node.directory.shipEvery(10);
    try {
      await expect.poll(() => segments('a'), { timeout: 5_000 }).toBeGreaterThan(shipped);
      // The commit ends the transaction; the maintain that waited ships it under the lock, and that upload is held.
      holding = true;
      await pipeline(node, 'a', 'tok-a', baton ?? null, ["INSERT INTO t VALUES (x'00')", 'COMMIT']);
      await gate.reached;
      const before = await segments('b');
      await node.client('b', 'tok-b').execute("INSERT INTO t VALUES (x'00')");
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await segments('b')).toBe(before);
      gate.release();
      await expect.poll(() => segments('b'), { timeout: 5_000 }).toBeGreaterThan(before);
    } finally {
      rounds.stop();
      gate.release();
    }
  });

  it("ships a sync tenant's commit before acknowledging it: restorable without flushAll", async () => {
    const store = new MemoryObjectStore();
    const first = await startNode(store);
    await first.directory.ensure('alpha', desired(['tok-alpha'], { durability: 'sync' }));
    const writer = first.client('alpha', 'tok-alpha');
    await writer.execute('CREATE TABLE t (name TEXT)');
    await writer.execute("INSERT INTO t VALUES ('acknowledged')");

    const second = await startNode(store, { load: true });
    expect(await names(second.client('alpha', 'tok-alpha'))).toEqual(['acknowledged']);
  });

  it("ships a sync tenant's commit before acknowledging it though the request then begins a transaction (found in review)", async () => {
    const store = new MemoryObjectStore();
    const first = await startNode(store);
    await first.directory.ensure('alpha', desired(['tok-alpha'], { durability: 'sync' }));
    await first.client('alpha', 'tok-alpha').execute('CREATE TABLE t (name TEXT)');
    const answer = await pipeline(first, 'alpha', 'tok-alpha', null, ["INSERT INTO t VALUES ('acknowledged')", 'BEGIN']);
    expect(answer.results?.map((r) => r.type)).toEqual(['ok', 'ok']);

    const second = await startNode(store, { load: true });
    expect(await names(second.client('alpha', 'tok-alpha'))).toEqual(['acknowledged']);
  });

  it('rolls back a transaction left open past the WAL bound, which a client committing and beginning again in every request kept from being emptied (found in review)', async () => {
    const node = await startNode(new MemoryObjectStore(), { maxWalBytes: 256 * 1024 });
    await node.directory.ensure('alpha', desired(['tok-alpha']));
    await node.client('alpha', 'tok-alpha').execute('CREATE TABLE t (id INTEGER PRIMARY KEY, b BLOB)');
    let baton: string | null = null;
    const wal = () => statSync(`${node.engine.databasePath('alpha')}-wal`, { throwIfNoEntry: false })?.size ?? 0;
    let rolledBack = false;
    for (let i = 0; i < 20 && !rolledBack; i++) {
      const steps = [...(baton ? ['ROLLBACK'] : []), 'INSERT OR REPLACE INTO t VALUES (1, randomblob(100000))', 'BEGIN'];
      const answer = await pipeline(node, 'alpha', 'tok-alpha', baton, steps);
      // The stream's next request says why (as for a transaction open too long): its client sees the rollback.
      if (answer.status === 400) {
        expect(answer.error).toMatchObject({ code: 'TRANSACTION_ROLLED_BACK' });
        rolledBack = true;
      } else {
        expect(answer.results?.map((r) => r.type)).toEqual(steps.map(() => 'ok'));
        baton = answer.baton ?? null;
      }
    }
    expect(rolledBack).toBe(true);
    // Emptied once the transaction was rolled back: the WAL no longer grows by each request's commit.
    expect(wal()).toBeLessThan(256 * 1024);
  });

  it('reports as its last write the time its restore window reaches once shipped, whatever the clock reads after the commit', async () => {
    // The meter's clock a few milliseconds ahead stands for a millisecond passing between the capture and the
    // count on a loaded machine: the last write must not then sit past the newest restorable instant for good.
    const node = await startNode(new MemoryObjectStore(), { meter: new UsageMeter({ now: () => Date.now() + 5 }) });
    await node.directory.ensure('alpha', desired(['tok-alpha'], { durability: 'sync' }));
    const writer = node.client('alpha', 'tok-alpha');
    await writer.execute('CREATE TABLE t (name TEXT)');
    await writer.execute("INSERT INTO t VALUES ('last')");

    const description = await node.directory.describe('alpha');
    expect(description?.lastWriteAt).toBeTypeOf('number');
    expect(description?.restoreWindow?.latest).toBe(description?.lastWriteAt);
  });

  it('forks a tenant as it was at a time between two writes', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const t0 = Date.parse('2030-01-01T00:00:00Z');
    vi.setSystemTime(t0);
    const node = await startNode(new MemoryObjectStore());
    await node.directory.ensure('source', desired(['tok-src'], { durability: 'sync' }));
    const source = node.client('source', 'tok-src');
    vi.setSystemTime(t0 + 1000);
    await source.execute("CREATE TABLE t AS SELECT 'first' AS name");
    vi.setSystemTime(t0 + 2000);
    await source.execute("INSERT INTO t VALUES ('second')");
    vi.setSystemTime(t0 + 3000);

    expect(await node.directory.ensure('fork-early', desired(['tok-early'], { restoreFrom: { tenant: 'source', at: t0 + 1500 } }))).toEqual({ created: true });
    expect(await names(node.client('fork-early', 'tok-early'))).toEqual(['first']);
    await node.directory.ensure('fork-late', desired(['tok-late'], { restoreFrom: { tenant: 'source', at: t0 + 2000 } }));
    expect(await names(node.client('fork-late', 'tok-late'))).toEqual(['first', 'second']);
    // The fork is a database of its own.
    await node.client('fork-early', 'tok-early').execute("INSERT INTO t VALUES ('fork only')");
    expect(await names(source)).toEqual(['first', 'second']);
    expect(await node.directory.describe('fork-early')).toMatchObject({ restoredFrom: { tenant: 'source', at: t0 + 1500 } });
  });

  it('copies a tenant as of a point a little ahead of its clock (another machine’s now): waits for it, with the commits acknowledged just before', async () => {
    const node = await startNode(new MemoryObjectStore());
    await node.directory.ensure('source', desired(['tok-src']));
    await node.client('source', 'tok-src').batch(['CREATE TABLE t (name TEXT)', "INSERT INTO t VALUES ('acknowledged')"], 'write');
    // The operator asks for its "now" the moment after the commit, on a clock 300 ms ahead of cw-db's.
    const at = Date.now() + 300;

    expect(await node.directory.ensure('copy', desired(['tok-copy'], { restoreFrom: { tenant: 'source', at } }))).toEqual({ created: true });
    expect(Date.now()).toBeGreaterThan(at);
    expect(await names(node.client('copy', 'tok-copy'))).toEqual(['acknowledged']);
  });

  it('copies a tenant created a moment ago, its base snapshot still uploading: the copy waits for it', async () => {
    const { gate, node } = await createdWithBaseHeld('source', 'tok-src');
    const copying = node.directory.ensure('copy', desired(['tok-copy'], { restoreFrom: { tenant: 'source', at: Date.now() } }));
    gate.release();
    expect(await copying).toEqual({ created: true });
    expect((await node.client('copy', 'tok-copy').execute('SELECT count(*) AS n FROM sqlite_schema')).rows.map((r) => r.n)).toEqual([0]);
  });

  it('answers a copy once its own base snapshot is in the bucket, not while it is only on this disk', async () => {
    const bucket = new MemoryObjectStore();
    const gate = new GateStore(bucket, (key) => key.startsWith('replicas/copy/'));
    const node = await startNode(gate);
    await node.directory.ensure('source', desired(['tok-src']));
    await node.client('source', 'tok-src').batch(['CREATE TABLE t (name TEXT)', "INSERT INTO t VALUES ('copied')"], 'write');
    await node.directory.ship('source');
    let answered = false;
    const copying = node.directory.ensure('copy', desired(['tok-copy'], { restoreFrom: { tenant: 'source', at: Date.now() } })).then((r) => ((answered = true), r));
    await gate.reached;
    await new Promise((resolve) => setImmediate(resolve));
    expect(answered).toBe(false);
    gate.release();
    expect(await copying).toEqual({ created: true });
    await gate.passed;
    expect(await names(node.client('copy', 'tok-copy'))).toEqual(['copied']);
  });

  it('makes again at a start a copy whose process died before the copy reached the bucket, not open it empty (review-174 R2)', async () => {
    const store = new MemoryObjectStore();
    await copyDiedAfterMetadata(store, false);
    const restarted = await startNode(store, { load: true });
    expect(await names(restarted.client('copy', 'tok-copy'))).toEqual(['copied']);
  });

  it('restores a tenant in place under the same token, rolls back an open transaction, and undoes it through the undo point', async () => {
    const node = await startNode(new MemoryObjectStore());
    await node.directory.ensure('alpha', desired(['tok-alpha']));
    const alpha = node.client('alpha', 'tok-alpha');
    await alpha.batch(['CREATE TABLE t (name TEXT)', "INSERT INTO t VALUES ('kept')"], 'write');
    const before = Date.now();
    // The deletion is stamped strictly after `before` (stamps are whole milliseconds).
    await expect.poll(() => Date.now(), { timeout: 1_000 }).toBeGreaterThan(before);
    await alpha.execute('DELETE FROM t');
    const open = await node.client('alpha', 'tok-alpha').transaction('write');
    await open.execute("INSERT INTO t VALUES ('uncommitted')");

    const { restoredTo, undoPoint } = await node.directory.restoreInPlace('alpha', before, 'req-1');
    expect(restoredTo).toBe(before);
    expect(undoPoint).toBeGreaterThan(before);
    expect(await names(alpha)).toEqual(['kept']);
    await expect(open.execute('SELECT 1')).rejects.toThrow(/restored in place/);
    open.close();
    // The same request again (an operator that restarted before recording the answer) restores nothing twice.
    await alpha.execute("INSERT INTO t VALUES ('after')");
    expect(await node.directory.restoreInPlace('alpha', before, 'req-1')).toEqual({ restoredTo, undoPoint });
    expect(await names(alpha)).toEqual(['kept', 'after']);

    await node.directory.restoreInPlace('alpha', undoPoint, 'req-2');
    expect(await names(alpha)).toEqual([]);
    await expect(node.directory.restoreInPlace('alpha', before - 3_600_000)).rejects.toThrow(/outside the restore window \(\d{4}-.* to \d{4}-/);
    await expect(node.directory.restoreInPlace('alpha', Date.now() + 60_000)).rejects.toBeInstanceOf(RestorePointUnavailableError);
    await expect(node.directory.restoreInPlace('nobody', before)).rejects.toBeInstanceOf(TenantNotFoundError);
  });

  it('creates a tenant afresh after an attempt that failed once its file was open: the retry serves and ships its own file', async () => {
    const bucket = new MemoryObjectStore();
    // The creation's last step (reading the saved usage) fails the first time, after the file was opened.
    const node = await startNode(new ReadFails(bucket, 'tenants/alpha.usage.json'));
    await expect(node.directory.ensure('alpha', desired(['tok-alpha']))).rejects.toThrow(/did not answer/);
    expect((await keys(bucket)).filter((k) => k.includes('alpha'))).toEqual([]);

    await node.directory.ensure('alpha', desired(['tok-alpha'], { durability: 'sync' }));
    await node.client('alpha', 'tok-alpha').execute("CREATE TABLE t AS SELECT 'acknowledged' AS name");
    // A cw-db on an empty disk has it from the bucket: the commit was captured from the file the tenant is served from.
    const second = await startNode(bucket, { load: true });
    expect(await names(second.client('alpha', 'tok-alpha'))).toEqual(['acknowledged']);
  });

  it('refuses a restore before the window, in the future or from no tenant, and leaves nothing behind', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const t0 = Date.parse('2030-01-01T00:00:00Z');
    vi.setSystemTime(t0);
    const store = new MemoryObjectStore();
    const node = await startNode(store);
    await node.directory.ensure('source', desired(['tok-src'], { durability: 'sync' }));
    vi.setSystemTime(t0 + 1000);
    await node.client('source', 'tok-src').execute("CREATE TABLE t AS SELECT 'x' AS name");
    vi.setSystemTime(t0 + 2000);

    for (const restoreFrom of [
      { tenant: 'source', at: t0 - 1 },
      { tenant: 'source', at: t0 + 60_000 },
      { tenant: 'missing', at: t0 },
    ]) {
      await expect(node.directory.ensure('fork', desired(['tok-fork'], { restoreFrom }))).rejects.toBeInstanceOf(RestorePointUnavailableError);
    }
    await expect(node.directory.ensure('fork', desired(['tok-fork'], { restoreFrom: { tenant: 'source', at: t0 - 1 } }))).rejects.toThrow(
      /before the earliest point kept \(2030-01-01T00:00:00\.000Z\)/,
    );
    expect(await node.directory.describe('fork')).toBeUndefined();
    expect((await keys(store)).filter((k) => k.includes('fork'))).toEqual([]);
    expect(await node.post('fork', 'tok-fork')).toMatchObject({ status: 404 });
  });

  it('describes a tenant: rows read and written, size and restore window', async () => {
    const node = await startNode(new MemoryObjectStore(), { now: () => 1_900_000_000_000 });
    await node.directory.ensure('alpha', desired(['tok-alpha'], { durability: 'sync' }));
    const client = node.client('alpha', 'tok-alpha');
    await client.execute('CREATE TABLE t (name TEXT)');
    await client.execute("INSERT INTO t VALUES ('a'), ('b'), ('c')");
    await client.execute('SELECT * FROM t');
    await client.execute('SELECT * FROM t LIMIT 2');
    const description = await node.directory.describe('alpha');
    expect(description).toMatchObject({ tenant: 'alpha', createdAt: 1_900_000_000_000, durability: 'sync', rowsRead: 5, rowsWritten: 3 });
    expect(description?.sizeBytes).toBeGreaterThan(0);
    expect(description?.lastWriteAt).toEqual(expect.any(Number));
    expect(description?.restoreWindow?.latest).toBeGreaterThanOrEqual(description?.restoreWindow?.earliest ?? Infinity);
    expect(await node.directory.describe('nobody')).toBeUndefined();
  });

  it("counts the rows a sequence and a trigger write against the day's rows written (found in review: neither counted)", async () => {
    const node = await startNode(new MemoryObjectStore(), { now: () => 1_900_000_000_000 });
    await node.directory.ensure('counted', desired(['tok-counted']));
    const client = node.client('counted', 'tok-counted');
    await client.executeMultiple('CREATE TABLE t (v INTEGER); CREATE TABLE audit (v INTEGER); INSERT INTO t VALUES (1), (2), (3)');
    expect((await node.directory.describe('counted'))?.rowsWritten).toBe(3);
    await client.execute('CREATE TRIGGER copy AFTER INSERT ON t BEGIN INSERT INTO audit SELECT value FROM json_each(json_array(1, 2, 3, 4)); END');
    await client.execute('INSERT INTO t VALUES (4)');
    expect((await node.directory.describe('counted'))?.rowsWritten).toBe(3 + 1 + 4);
  });

  it('counts the rows a CREATE TABLE … AS SELECT copies, and none for a table renamed with those words in a comment (found in review: a rename counted every row, no deadline)', async () => {
    const node = await startNode(new MemoryObjectStore());
    await node.directory.ensure('renamed', desired(['tok-renamed']));
    const client = node.client('renamed', 'tok-renamed');
    await client.execute('CREATE TABLE t AS SELECT value AS v FROM generate_series(1, 5)');
    expect((await node.directory.describe('renamed'))?.rowsWritten).toBe(5);
    await client.execute('ALTER TABLE t RENAME TO t2 /* create as */');
    await client.executeMultiple('ALTER TABLE t2 RENAME TO t3; SELECT 1 AS created');
    expect((await node.directory.describe('renamed'))?.rowsWritten).toBe(5);
  });

  it('keeps the usage counters across a restart once saved', async () => {
    const store = new MemoryObjectStore();
    const first = await startNode(store);
    await first.directory.ensure('alpha', desired(['tok-alpha'], { durability: 'sync' }));
    const client = first.client('alpha', 'tok-alpha');
    await client.execute('CREATE TABLE t (name TEXT)');
    await client.execute("INSERT INTO t VALUES ('a'), ('b')");
    await client.execute('SELECT * FROM t');
    const before = await first.directory.describe('alpha');
    expect(before).toMatchObject({ rowsRead: 2, rowsWritten: 2 });
    await first.directory.saveUsage(new Map());

    const second = await startNode(store, { load: true });
    const after = await second.directory.describe('alpha');
    expect(after).toMatchObject({ rowsRead: 2, rowsWritten: 2, lastWriteAt: before?.lastWriteAt });
  });

  it("saves the other tenants' usage when one tenant's write fails, and that one's at the next save (review-178 L5)", async () => {
    const store = new MemoryObjectStore();
    const failing = new PutFails(store, 'tenants/alpha.usage.json');
    const node = await startNode(failing);
    for (const tenant of ['alpha', 'beta']) {
      await node.directory.ensure(tenant, desired([`tok-${tenant}`]));
      await node.client(tenant, `tok-${tenant}`).execute('CREATE TABLE t (name TEXT)');
    }
    const saved = new Map<string, string>();
    failing.armed = true;
    await node.directory.saveUsage(saved);
    const stored = new TenantMetaStore(store);
    expect((await stored.readUsage('beta'))?.value).toMatchObject({ rowsWritten: 0 });
    expect(await stored.readUsage('alpha')).toBeUndefined();
    await node.directory.saveUsage(saved);
    expect(await stored.readUsage('alpha')).toBeDefined();
  });
});

/**
 * Counts the segment uploads under way at once and notes whose each was, in the order they arrived; while `hold`,
 * they wait for `release()`.
 */
class HeldSegments extends ForwardingObjectStore {
  hold = false;
  /** With `hold`, the one tenant whose uploads wait (none: every tenant's). */
  holdOnly: string | undefined;
  readonly arrivals: string[] = [];
  mostAtOnce = 0;
  #atOnce = 0;
  #release!: () => void;
  readonly #released = new Promise<void>((resolve) => (this.#release = resolve));

  release(): void {
    this.hold = false;
    this.#release();
  }

  /** A new measurement. */
  reset(): void {
    this.arrivals.length = 0;
    this.mostAtOnce = 0;
  }

  override async put(key: string, body: PutBody, options?: PutOptions): Promise<PutResult> {
    if (!key.includes('/segments/')) return super.put(key, body, options);
    const tenant = key.split('/')[1] ?? '';
    this.arrivals.push(tenant);
    this.mostAtOnce = Math.max(this.mostAtOnce, ++this.#atOnce);
    try {
      // A turn of the event loop at least: uploads started in one round overlap, as over a network.
      await (this.hold && (this.holdOnly ?? tenant) === tenant ? this.#released : new Promise((resolve) => setTimeout(resolve, 5)));
      return await super.put(key, body, options);
    } finally {
      this.#atOnce--;
    }
  }
}

/** `count` async tenants on `node`, each with everything shipped and then one commit pending (token `tok-<tenant>`). */
async function written(node: Node, count: number): Promise<string[]> {
  const tenants = Array.from({ length: count }, (_, i) => `t${i}`);
  for (const tenant of tenants) {
    await node.directory.ensure(tenant, desired([`tok-${tenant}`]));
    await node.client(tenant, `tok-${tenant}`).execute('CREATE TABLE t (v TEXT)');
  }
  await copied(node, tenants);
  for (const tenant of tenants) await node.client(tenant, `tok-${tenant}`).execute("INSERT INTO t VALUES ('pending')");
  return tenants;
}

/** The process ends (every later call fails) right after `key` was written: a crash, as the bucket sees it. */
class EndsAfterPut extends ForwardingObjectStore {
  readonly #key: string;
  #ended = false;

  constructor(inner: ObjectStore, key: string) {
    super(inner);
    this.#key = key;
  }

  override async put(key: string, body: PutBody, options?: PutOptions): Promise<PutResult> {
    if (this.#ended) throw new Error('process gone');
    const result = await super.put(key, body, options);
    if (key === this.#key) this.#ended = true;
    return result;
  }

  override async get(key: string, options?: GetOptions) {
    if (this.#ended) throw new Error('process gone');
    return super.get(key, options);
  }

  override async delete(key: string) {
    if (this.#ended) throw new Error('process gone');
    return super.delete(key);
  }
}

/**
 * 'source' holds a row; a node copying it into 'copy' (under a lease at epoch 2 with `leased`) ends right after the
 * copy's metadata is written, before the copy is in the bucket. Answers the copy's point in time.
 */
async function copyDiedAfterMetadata(store: ObjectStore, leased: boolean): Promise<number> {
  const dying = new EndsAfterPut(store, 'tenants/copy.json');
  // Without leases the source must be served where the copy is made; with them its owner ships it (shipElsewhere).
  const a = await startNode(leased ? store : dying, leased ? { cluster: lease('a', 1).cluster } : {});
  await a.directory.ensure('source', desired(['tok-src']));
  await a.client('source', 'tok-src').batch(['CREATE TABLE t (name TEXT)', "INSERT INTO t VALUES ('copied')"], 'write');
  await a.directory.ship('source');
  const at = Date.now();
  const b = leased ? await startNode(dying, { cluster: { ...lease('b', 2).cluster, shipElsewhere: async () => true } }) : a;
  await expect(b.directory.ensure('copy', desired(['tok-copy'], { restoreFrom: { tenant: 'source', at } }))).rejects.toThrow(/process gone/);
  return at;
}

/**
 * Replica `a` owns `tenant` (epoch 1) and changes its tokens to 'old' and 'stale'; the write is held on its way to
 * the bucket (a paused) while a loses the lease and b adopts the database (epoch 2). `land` lets the write go on.
 */
async function staleTokenChange(tenant: string): Promise<{ store: MemoryObjectStore; b: Node; stale: Promise<unknown>; land: () => void }> {
  const store = new MemoryObjectStore();
  let pausing = false;
  const paused = new GateStore(store, (key) => pausing && key === `tenants/${tenant}.json`);
  const first = lease('a', 1);
  const a = await startNode(paused, { cluster: first.cluster });
  await a.directory.ensure(tenant, desired(['old']));
  pausing = true;
  const stale = a.directory.ensure(tenant, desired(['old', 'stale']));
  stale.catch(() => {});
  await paused.reached;
  first.lose();
  const b = await startNode(store, { cluster: lease('b', 2).cluster });
  expect(await b.directory.adopt(tenant, lease('b', 2).fencing)).toBe(true);
  return { store, b, stale, land: () => paused.release() };
}

/** A store whose writes take `delayMs` longer. */
class SlowPuts extends ForwardingObjectStore {
  delayMs = 0;
  override async put(key: string, body: PutBody, options?: PutOptions): Promise<PutResult> {
    if (this.delayMs) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    return super.put(key, body, options);
  }
}

/**
 * A replica's lease, held until `lose()`: what cw-db/cluster's Ownership gives the directory. After `pause()` its clock
 * stood still (a paused VM) while another replica took the database: the deadline still holds, the lease read does not.
 */
function lease(replica: string, epoch: number) {
  let held = true;
  let taken = false;
  const fencing: Fencing = {
    epoch,
    guard: () => {
      if (!held) throw new Error(`${replica} lost the lease`);
    },
  };
  const cluster: DirectoryCluster = {
    replica,
    surelyHeld: () => held,
    confirm: async () => held && !taken,
    claim: async () => (held ? fencing : undefined),
    forget: async () => {},
    giveUp: async () => {},
    shipElsewhere: async () => false,
  };
  return { fencing, cluster, lose: () => (held = false), pause: () => (taken = true) };
}

/**
 * Replica `a` creates `tenant` (async) at epoch 1 and ships a row; then the bucket is unreachable past its deadline:
 * a second row is acknowledged, never shipped, and the lease expires (its files kept).
 */
async function expiredWithUnshipped(store: ObjectStore, tenant: string): Promise<Node> {
  const first = lease('a', 1);
  const a = await startNode(store, { cluster: first.cluster });
  await a.directory.ensure(tenant, desired(['tok'], { durability: 'async' }));
  const client = a.client(tenant, 'tok');
  await client.execute('CREATE TABLE t (name TEXT)');
  await client.execute("INSERT INTO t VALUES ('shipped')");
  await a.directory.ship(tenant);
  first.lose();
  await client.execute("INSERT INTO t VALUES ('only on a')");
  await a.directory.release(tenant, 'expired');
  expect(existsSync(a.engine.databasePath(tenant))).toBe(true);
  return a;
}

describe('TenantDirectory under leases (several replicas)', () => {
  it('leaves a database that exists whole when a creation routed before its handover fails to open it after (review-174 R5)', async () => {
    const store = new MemoryObjectStore();
    const flaky = new ReadFails(store, 'tenants/handed.usage.json');
    flaky.armed = false;
    const a = await startNode(flaky, { cluster: lease('a', 1).cluster });
    await a.directory.ensure('handed', desired(['tok']));
    await a.client('handed', 'tok').batch(['CREATE TABLE t (name TEXT)', "INSERT INTO t VALUES ('kept')"]);
    await a.directory.release('handed', 'handover');
    // The PUT that waited behind the handover takes the creation path (its metadata is there: restored, not fresh);
    // the opening fails once after the restore.
    flaky.armed = true;
    await expect(a.directory.ensure('handed', desired(['tok']))).rejects.toThrow(/did not answer/);
    expect(await store.get('tenants/handed.json')).toMatchObject({ kind: 'object' });
    const b = await startNode(store, { cluster: lease('b', 2).cluster });
    expect(await b.directory.adopt('handed', lease('b', 2).fencing)).toBe(true);
    expect(await names(b.client('handed', 'tok'))).toEqual(['kept']);
  });

  it('leaves a database another replica took over alone when its creation here fails after the lease went (found in review)', async () => {
    const store = new MemoryObjectStore();
    const flaky = new ReadFails(store, 'tenants/raced.usage.json');
    const first = lease('a', 1);
    const a = await startNode(flaky, { cluster: first.cluster });
    const second = lease('b', 2);
    const b = await startNode(store, { cluster: second.cluster });
    // While a opens the new database (its metadata written), its lease lapses and b takes the database over and writes.
    flaky.meanwhile = async () => {
      first.lose();
      expect(await b.directory.adopt('raced', second.fencing)).toBe(true);
      await b.client('raced', 'tok').batch(['CREATE TABLE t (name TEXT)', "INSERT INTO t VALUES ('on b')"]);
      await b.directory.ship('raced');
    };
    await expect(a.directory.ensure('raced', desired(['tok']))).rejects.toThrow(/did not answer/);
    // a's failed creation deleted nothing of it: the next owner finds what b wrote.
    expect(await store.get('tenants/raced.json')).toMatchObject({ kind: 'object' });
    const c = await startNode(store, { cluster: lease('c', 3).cluster });
    expect(await c.directory.adopt('raced', lease('c', 3).fencing)).toBe(true);
    expect(await names(c.client('raced', 'tok'))).toEqual(['on b']);
  });

  it("cuts a deleted database's leftovers before its creation again is recorded: a crash between the two restores nothing of them (review-174 R1)", async () => {
    const store = new MemoryObjectStore();
    const a = await startNode(store, { cluster: lease('a', 1).cluster });
    await a.directory.ensure('reused', desired(['old']));
    await a.client('reused', 'old').batch(['CREATE TABLE t (name TEXT)', "INSERT INTO t VALUES ('deleted')"]);
    await a.directory.ship('reused');
    const leftovers = await Promise.all((await keys(store, 'replicas/reused/generations/')).map(async (key) => [key, await store.get(key)] as const));
    await a.directory.delete('reused');
    for (const [key, got] of leftovers) if (got?.kind === 'object') await store.put(key, got.body);
    // b creates the id again and its process ends right after the metadata is written.
    const dying = new EndsAfterPut(store, 'tenants/reused.json');
    const b = await startNode(dying, { cluster: lease('b', 2).cluster });
    await expect(b.directory.ensure('reused', desired(['new']))).rejects.toThrow(/process gone/);
    // The creation is asked again on c: the metadata is there, so it restores, and finds only what b's creation cut.
    const c = await startNode(store, { cluster: lease('c', 3).cluster });
    await c.directory.ensure('reused', desired(['new']));
    expect((await c.client('reused', 'new').execute("SELECT name FROM sqlite_master WHERE type = 'table'")).rows).toEqual([]);
  });

  it("frees a database at a stop after a bounded wait for a snapshot still uploading, not the upload's whole time (review-174 R3)", async () => {
    const bucket = new MemoryObjectStore();
    const gate = new GateStore(bucket, (key) => key.startsWith('replicas/big/') && key.includes('/snapshots/') && !key.includes('/snapshots/0000000000-'));
    const node = await startNode(gate, { cluster: lease('a', 1).cluster, snapshotWaitOnReleaseMs: 300 });
    await node.directory.ensure('big', desired(['tok']));
    const rounds = node.directory.shipEvery(10);
    try {
      const client = node.client('big', 'tok');
      await client.execute('CREATE TABLE t (v BLOB)');
      for (let i = 0; i < 7; i++) await client.execute('INSERT INTO t SELECT zeroblob(100000) FROM generate_series(1, 100)');
      await gate.reached;
      // The snapshot's upload stays held: the stop goes on without it.
      const stop = node.directory.release('big', 'stop').then(() => 'stopped');
      expect(await Promise.race([stop, new Promise((resolve) => setTimeout(() => resolve('still waiting'), 4_000))])).toBe('stopped');
    } finally {
      rounds.stop();
      gate.release();
    }
  });

  it('tells the client a sync commit is maybe lost when the lease read after its upload shows another replica took the database (review-174 R6)', async () => {
    const store = new MemoryObjectStore();
    let taken = false;
    const node = await startNode(store, {
      cluster: {
        ...lease('a', 1).cluster,
        confirm: async () => {
          if (taken) throw new DurabilityUnconfirmedError(LEASE_TAKEN);
          return true;
        },
      },
    });
    await node.directory.ensure('s', desired(['tok'], { durability: 'sync' }));
    const client = node.client('s', 'tok');
    await client.execute('CREATE TABLE t (name TEXT)');
    taken = true;
    const err = await client.execute("INSERT INTO t VALUES ('x')").then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(String(err)).toMatch(/Another replica took the database over before the commit was confirmed; it may be lost/);
  });

  it('acknowledges a sync commit only while the lease is held; the next owner restores every acknowledged one and nothing later', async () => {
    const store = new MemoryObjectStore();
    const first = lease('a', 1);
    const a = await startNode(store, { cluster: first.cluster });
    await a.directory.ensure('moving', desired(['tok'], { durability: 'sync' }));
    expect((await a.directory.describe('moving'))?.replica).toBe('a');
    const client = a.client('moving', 'tok');
    await client.execute('CREATE TABLE t (v TEXT)');
    await client.execute("INSERT INTO t VALUES ('acknowledged')");

    // The lease is lost (a's deadline passed): its commit is not acknowledged, and its segment not uploaded.
    first.lose();
    await expect(client.execute("INSERT INTO t VALUES ('after the deadline')")).rejects.toThrow(/DURABILITY_UNAVAILABLE|copied to the object store/);
    await a.directory.release('moving', 'lost');

    const second = lease('b', 2);
    const b = await startNode(store, { cluster: second.cluster });
    expect(await b.directory.adopt('moving', second.fencing)).toBe(true);
    expect((await b.client('moving', 'tok').execute('SELECT v FROM t')).rows.map((r) => r.v)).toEqual(['acknowledged']);
    expect((await b.directory.describe('moving'))?.replica).toBe('b');
    // Each owner recorded where it took over before writing anything (a's creation from nothing), and writes under its epoch.
    expect(await keys(store, 'replicas/moving/epochs/')).toEqual([
      'replicas/moving/epochs/0000000001/follows/none',
      expect.stringMatching(/^replicas\/moving\/epochs\/0000000002\/follows\/e0000000001-\d{15}-[0-9a-f]{8}\/\d{10}$/),
    ]);
    await expect.poll(async () => (await keys(store, 'replicas/moving/generations/')).some((k) => k.includes('/e0000000002-')), { timeout: 5000 }).toBe(true);
  });

  it("refuses a sync commit once another replica took the database while this one's clock stood still (a paused VM): the lease read after the upload says so (review-164 F5)", async () => {
    const store = new MemoryObjectStore();
    const clocks = { a: 0, b: 0 };
    const owner = (name: 'a' | 'b', hooks: OwnershipHooks) =>
      new Ownership({ store, self: { name, nonce: `${name}-nonce`, url: `http://${name}`, adminUrl: `http://${name}` }, leaseMs: 3000, log: silentLogger, clock: () => clocks[name], hooks });
    let ownership: Ownership | undefined;
    const a = await startNode(store, {
      cluster: ownershipCluster(
        'a',
        () => ownership,
        async () => false,
      ),
    });
    ownership = owner('a', { tenants: async () => [], adopt: async () => false, drop: (tenant, reason) => a.directory.release(tenant, reason), discard: async () => {}, highestEpoch: async () => 0 });
    await ownership.tick();
    await a.directory.ensure('paused', desired(['tok'], { durability: 'sync' }));
    const client = a.client('paused', 'tok');
    await client.execute('CREATE TABLE t (v TEXT)');
    await client.execute("INSERT INTO t VALUES ('acknowledged')");

    // a's VM is paused: b's clock runs for 10 s, a's stands still, and b takes the database at epoch 2.
    const b = owner('b', { tenants: async () => ['paused'], adopt: async () => true, drop: async () => {}, discard: async () => {}, highestEpoch: async () => 0 });
    for (clocks.b = 0; clocks.b <= 10_000; clocks.b += 1000) await b.tick();
    expect(b.held().get('paused')).toBe(2);
    // By a's clock the lease still holds; the commit's segment lands, and the lease read after it shows b's.
    expect(ownership.surelyHeld('paused', 1)).toBe(true);
    await expect(client.execute("INSERT INTO t VALUES ('after the takeover')")).rejects.toThrow(/DURABILITY_UNAVAILABLE|copied to the object store/);
    expect(ownership.held().has('paused')).toBe(false);
  });

  it('tells the client a sync commit whose lease it could not read after the upload is unconfirmed, not "not copied" (review-171 F6)', async () => {
    const store = new MemoryObjectStore();
    const reads = new LeaseReads(store);
    let ownership: Ownership | undefined;
    const a = await startNode(store, {
      cluster: ownershipCluster(
        'a',
        () => ownership,
        async () => false,
      ),
    });
    ownership = new Ownership({
      store,
      confirmStore: reads,
      self: { name: 'a', nonce: 'a-nonce', url: 'http://a', adminUrl: 'http://a' },
      leaseMs: 3000,
      log: silentLogger,
      clock: () => 0,
      hooks: { tenants: async () => [], adopt: async () => false, drop: (tenant, reason) => a.directory.release(tenant, reason), discard: async () => {}, highestEpoch: async () => 0 },
    });
    await ownership.tick();
    await a.directory.ensure('unread', desired(['tok'], { durability: 'sync' }));
    const client = a.client('unread', 'tok');
    await client.execute('CREATE TABLE t (v TEXT)');
    reads.failing = true;
    await expect(client.execute("INSERT INTO t VALUES ('landed')")).rejects.toThrow(/could not confirm it still owns the database/);
    reads.failing = false;
    expect(ownership.surelyHeld('unread', 1)).toBe(true);
    // It stands here, as the answer says.
    expect((await a.client('unread', 'tok').execute('SELECT v FROM t')).rows.map((r) => r.v)).toEqual(['landed']);
  });

  it('ships what a handover leaves before the connection closes: nothing acknowledged is lost (found in review)', async () => {
    // As in a shard (run with --expose-gc): a closed connection is collected 100 ms later, which checkpoints and
    // deletes the WAL that queued commits are read from as their segments upload.
    setFlagsFromString('--expose-gc');
    (globalThis as { gc?: unknown }).gc ??= runInNewContext('gc');
    const store = new SlowPuts(new MemoryObjectStore());
    const first = lease('a', 1);
    const a = await startNode(store, { cluster: first.cluster });
    await a.directory.ensure('handed', desired(['tok'], { durability: 'async' }));
    const client = a.client('handed', 'tok');
    await client.execute('CREATE TABLE t (v BLOB)');
    // ~12 MB of frames (two segments), acknowledged at once (async) and not shipped yet (no timer here).
    await client.execute('INSERT INTO t SELECT randomblob(100000) FROM generate_series(1, 120)');
    await client.execute("INSERT INTO t VALUES ('last')");
    store.delayMs = 300; // a bucket's round trip, longer than the 100 ms before a closed connection is collected
    await a.directory.release('handed', 'handover');

    const second = lease('b', 2);
    const b = await startNode(store, { cluster: second.cluster });
    expect(await b.directory.adopt('handed', second.fencing)).toBe(true);
    expect((await b.client('handed', 'tok').execute('SELECT count(*) AS n FROM t')).rows[0]?.n).toBe(121);
  });

  it('takes a database back from the files kept when its lease expired here: what it never shipped reaches the bucket (review-164 F1)', async () => {
    const store = new MemoryObjectStore();
    const a = await expiredWithUnshipped(store, 'kept');

    // Taken back by the same process over its own lease (epoch 1, unwritten since): from the kept files.
    const second = lease('a', 2);
    expect(await a.directory.adopt('kept', second.fencing, 1)).toBe(true);
    expect(await names(a.client('kept', 'tok'), 't')).toEqual(['shipped', 'only on a']);
    await a.directory.ship('kept');
    expect(await keys(store, 'replicas/kept/epochs/0000000002/')).toEqual([expect.stringMatching(/^replicas\/kept\/epochs\/0000000002\/follows\/e0000000001-\d{15}-[0-9a-f]{8}\/\d{10}$/)]);
    // Another replica restoring it from the bucket finds both.
    const third = lease('b', 3);
    const b = await startNode(store, { cluster: third.cluster });
    expect(await b.directory.adopt('kept', third.fencing)).toBe(true);
    expect(await names(b.client('kept', 'tok'), 't')).toEqual(['shipped', 'only on a']);
  });

  it('never opens the files kept when its lease expired once another replica took the database, and discards them (review-164 F1)', async () => {
    const store = new MemoryObjectStore();
    const a = await expiredWithUnshipped(store, 'taken');

    // b takes it over (epoch 2) from the bucket, writes, and hands it back.
    const second = lease('b', 2);
    const b = await startNode(store, { cluster: second.cluster });
    expect(await b.directory.adopt('taken', second.fencing)).toBe(true);
    await b.client('taken', 'tok').execute("INSERT INTO t VALUES ('b wrote')");
    await b.directory.release('taken', 'handover');

    // a takes it at epoch 3. Even told it resumes (it may not: the lease it wrote over is b's, epoch 2), the files
    // it kept at epoch 1 are not those: it restores b's history.
    const third = lease('a', 3);
    expect(await a.directory.adopt('taken', third.fencing, 2)).toBe(true);
    expect(await names(a.client('taken', 'tok'), 't')).toEqual(['shipped', 'b wrote']);

    // Expired again, then seen taken by another replica: the kept files go.
    third.lose();
    await a.directory.release('taken', 'expired');
    expect(existsSync(a.engine.databasePath('taken'))).toBe(true);
    await a.directory.discard('taken');
    expect(existsSync(a.engine.databasePath('taken'))).toBe(false);
  });

  it("creates a database empty under its lease, following nothing, though a deleted one's leftovers of the same id are in the bucket (review-164 F2)", async () => {
    const store = new MemoryObjectStore();
    const a = await startNode(store, { cluster: lease('a', 1).cluster });
    await a.directory.ensure('reused', desired(['old-tok'], { durability: 'async' }));
    await a.client('reused', 'old-tok').batch(['CREATE TABLE t (name TEXT)', "INSERT INTO t VALUES ('deleted')"]);
    await a.directory.ship('reused');
    // The deleted database's generations land again after its deletion (a snapshot still uploading somewhere).
    const leftovers = await Promise.all((await keys(store, 'replicas/reused/generations/')).map(async (key) => [key, await store.get(key)] as const));
    await a.directory.delete('reused');
    for (const [key, got] of leftovers) if (got?.kind === 'object') await store.put(key, got.body);

    const b = await startNode(store, { cluster: lease('b', 2).cluster });
    await b.directory.ensure('reused', desired(['new-tok'], { durability: 'async' }));
    expect((await b.client('reused', 'new-tok').execute("SELECT name FROM sqlite_master WHERE type = 'table'")).rows).toEqual([]);
    expect(await keys(store, 'replicas/reused/epochs/0000000002/')).toEqual(['replicas/reused/epochs/0000000002/follows/none']);
  });

  it('hands a database over only once the snapshot it is uploading has landed: none lands after the lease is freed (review-164 F2)', async () => {
    await whileSnapshotHeld('big', 'tok', { cluster: lease('a', 1).cluster }, async ({ bucket, gate, node: a }) => {
      let released = false;
      const release = a.directory.release('big', 'handover').then(() => (released = true));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(released).toBe(false);
      gate.release();
      await release;
      expect((await keys(bucket, 'replicas/big/')).filter((k) => k.includes('/snapshots/') && !k.includes('/snapshots/0000000000-'))).toHaveLength(1);
    });
  }, 20_000);

  it('restores a database created while its metadata is in the bucket (handed over from here while the creation waited), not empty', async () => {
    const store = new MemoryObjectStore();
    const a = await startNode(store, { cluster: lease('a', 1).cluster });
    await a.directory.ensure('handed', desired(['tok'], { durability: 'async' }));
    await a.client('handed', 'tok').batch(['CREATE TABLE t (name TEXT)', "INSERT INTO t VALUES ('kept')"]);
    await a.directory.release('handed', 'handover');
    // The creation took the lease the handover freed (review-164 F6): the database is restored as by a takeover.
    await a.directory.ensure('handed', desired(['tok'], { durability: 'async' }));
    expect(await names(a.client('handed', 'tok'), 't')).toEqual(['kept']);
  });

  it('makes again at its takeover a copy whose creating process died before the copy reached the bucket, not adopt it empty (review-174 R2)', async () => {
    const store = new MemoryObjectStore();
    const at = await copyDiedAfterMetadata(store, true);
    expect(await store.get('tenants/copy.json')).toMatchObject({ kind: 'object' });
    expect((await new TenantMetaStore(store).get('copy'))?.creating).toEqual({ restoreFrom: { tenant: 'source', at } });
    // A round on c takes the lease (epoch 3) and adopts it; the operator's PUT, retried, reaches the database there.
    const c = await startNode(store, { cluster: lease('c', 3).cluster });
    expect(await c.directory.adopt('copy', lease('c', 3).fencing)).toBe(true);
    expect(await c.directory.ensure('copy', desired(['tok-copy'], { restoreFrom: { tenant: 'source', at } }))).toEqual({ created: false });
    expect(await names(c.client('copy', 'tok-copy'))).toEqual(['copied']);
    expect((await new TenantMetaStore(store).get('copy'))?.creating).toBeUndefined();
  });

  it('makes the copy when its creation, asked again, finds it marked as not made (review-174 R2)', async () => {
    // What this guards: the creation under a lease reads the metadata also for a PUT carrying restore_from (since
    // 9ab571c6, tested by 'restores a copy that exists…'), so it must tell a marked one from a copy that exists. Taken
    // as existing (the `creating` check dropped), the copy's id is restored from the bucket, where nothing of it is:
    // 'no such table' (review-178: before 9ab571c6 the metadata was not read for such a PUT, so this passed there).
    const store = new MemoryObjectStore();
    const at = await copyDiedAfterMetadata(store, true);
    const c = await startNode(store, { cluster: { ...lease('c', 3).cluster, shipElsewhere: async () => true } });
    expect(await c.directory.ensure('copy', desired(['tok-copy'], { restoreFrom: { tenant: 'source', at } }))).toEqual({ created: true });
    expect(await names(c.client('copy', 'tok-copy'))).toEqual(['copied']);
  });

  it('holds a copy that can no longer be made (its source deleted) and answers why, rather than fail on every replica round after round (review-178 L3)', async () => {
    const store = new MemoryObjectStore();
    const at = await copyDiedAfterMetadata(store, true);
    await deleteReplica({ store, prefix: 'replicas/', tenant: 'source' });
    const c = await startNode(store, { cluster: { ...lease('c', 3).cluster, shipElsewhere: async () => true } });
    // Adopted (its lease kept here, not freed for the next replica to fail the same), nothing of it on the disk.
    expect(await c.directory.adopt('copy', lease('c', 3).fencing)).toBe(true);
    expect(existsSync(c.engine.databasePath('copy'))).toBe(false);
    expect(await c.post('copy', 'tok-copy')).toEqual({
      status: 503,
      body: expect.objectContaining({ code: 'DATABASE_UNAVAILABLE', message: expect.stringMatching(/can no longer be made.*delete the database/) }),
    });
    // The operator's PUT is told why (422 RESTORE_POINT_UNAVAILABLE), and its deletion ends it.
    await expect(c.directory.ensure('copy', desired(['tok-copy'], { restoreFrom: { tenant: 'source', at } }))).rejects.toThrow(CopyUnavailableError);
    await c.directory.delete('copy');
    expect(await new TenantMetaStore(store).get('copy')).toBeUndefined();
  });

  it("never lands a stale owner's token change over its successor's: the write goes over the version it read (review-164 F10)", async () => {
    const { store, b, stale, land } = await staleTokenChange('racy');
    await b.directory.ensure('racy', desired(['rotated']));
    land();
    await expect(stale).rejects.toThrow(NotOwnerError);
    expect((await new TenantMetaStore(store).get('racy'))?.tokens).toEqual([grant('rotated')]);
  });

  it("does not acknowledge a token change that landed after its owner lost the database, and the successor's next change replaces it (review-164 F10)", async () => {
    // b read the metadata before a's write lands: nobody wrote it since a read it, so that write lands.
    const { store, b, stale, land } = await staleTokenChange('late');
    land();
    await expect(stale).rejects.toThrow(NotOwnerError);
    expect((await new TenantMetaStore(store).get('late'))?.tokens).toHaveLength(2);
    // The operator's change, asked again, reaches b: written over what a left, though b's own copy predates it.
    await b.directory.ensure('late', desired(['rotated']));
    expect((await new TenantMetaStore(store).get('late'))?.tokens).toEqual([grant('rotated')]);
    expect((await b.post('late', 'stale')).status).toBe(401);
  });

  it('restores a copy that exists when its creation is asked again after a handover, not copy it again over what was written since', async () => {
    const store = new MemoryObjectStore();
    const a = await startNode(store, { cluster: { ...lease('a', 1).cluster, shipElsewhere: async () => true } });
    await a.directory.ensure('source', desired(['tok-src']));
    await a.client('source', 'tok-src').batch(['CREATE TABLE t (name TEXT)', "INSERT INTO t VALUES ('copied')"], 'write');
    await a.directory.ship('source');
    const copy = desired(['tok-copy'], { restoreFrom: { tenant: 'source', at: Date.now() } });
    await a.directory.ensure('copy', copy);
    await a.client('copy', 'tok-copy').execute("INSERT INTO t VALUES ('written to the copy')");
    await a.directory.release('copy', 'handover');
    // The operator's PUT, its answer lost, is asked again and takes the lease the handover freed.
    expect(await a.directory.ensure('copy', copy)).toEqual({ created: true });
    expect(await names(a.client('copy', 'tok-copy'))).toEqual(['copied', 'written to the copy']);
  });

  /**
   * a restores 'alpha' in place to `before` (its rows then: 'kept'; with `deleteAfter`, deleted after that point) and
   * its write of `held` waits until b has taken the database over at epoch 2; answers the restore's outcome.
   */
  async function restoreRacedByTakeover(held: (key: string) => boolean, deleteAfter: boolean) {
    const store = new MemoryObjectStore();
    let holding = false;
    const gate = new GateStore(store, (key) => holding && held(key));
    const first = lease('a', 1);
    const a = await startNode(gate, { cluster: first.cluster });
    await a.directory.ensure('alpha', desired(['tok']));
    const alpha = a.client('alpha', 'tok');
    await alpha.batch(['CREATE TABLE t (name TEXT)', "INSERT INTO t VALUES ('kept')"], 'write');
    await a.directory.ship('alpha');
    const before = Date.now();
    await expect.poll(() => Date.now(), { timeout: 1_000 }).toBeGreaterThan(before);
    if (deleteAfter) {
      await alpha.execute('DELETE FROM t');
      await a.directory.ship('alpha');
    }
    holding = true;
    const restoring = a.directory.restoreInPlace('alpha', before, 'req-1');
    restoring.catch(() => {});
    await gate.reached;
    first.pause();
    const b = await startNode(store, { cluster: lease('b', 2).cluster });
    expect(await b.directory.adopt('alpha', lease('b', 2).fencing)).toBe(true);
    gate.release();
    return { store, before, restoring };
  }

  it('does not answer an in-place restore whose owner lost the database while it ran: no record, and the retry restores (review-178 R-A)', async () => {
    // The restored generation's base snapshot is held on its way (its owner paused); b restores the deletion.
    const { store, before, restoring } = await restoreRacedByTakeover((key) => key.startsWith('replicas/alpha/') && key.includes('/snapshots/0000000000-'), true);
    await expect(restoring).rejects.toThrow(NotOwnerError);
    const c = await startNode(store, { cluster: lease('c', 3).cluster });
    expect(await c.directory.adopt('alpha', lease('c', 3).fencing)).toBe(true);
    expect(await names(c.client('alpha', 'tok'))).toEqual([]);
    expect((await new TenantMetaStore(store).get('alpha'))?.lastInPlaceRestore).toBeUndefined();
    // The operator's retry restores (before, it answered the record a wrote, and restored nothing).
    await c.directory.restoreInPlace('alpha', before, 'req-1');
    expect(await names(c.client('alpha', 'tok'))).toEqual(['kept']);
  });

  it('does not answer an in-place restore whose record landed after its owner lost the database: the successor read the metadata before it (review-178 R-A)', async () => {
    // The restored generation landed (the first lease read passed); b takes over before the record lands.
    const { restoring } = await restoreRacedByTakeover((key) => key === 'tenants/alpha.json', false);
    await expect(restoring).rejects.toThrow(NotOwnerError);
  });

  it('removes what an adopt that failed after its restore left on the disk (review-164 F12)', async () => {
    const bucket = new MemoryObjectStore();
    const a = await startNode(bucket, { cluster: lease('a', 1).cluster });
    await a.directory.ensure('failing', desired(['tok']));
    await a.client('failing', 'tok').execute('CREATE TABLE t (name TEXT)');
    await a.directory.release('failing', 'handover');
    // Restored, then its usage cannot be read: the opening fails, and a next owner here restores again.
    const b = await startNode(new ReadFails(bucket, 'tenants/failing.usage.json'), { cluster: lease('b', 2).cluster });
    await expect(b.directory.adopt('failing', lease('b', 2).fencing)).rejects.toThrow(/did not answer/);
    expect(existsSync(b.engine.databasePath('failing'))).toBe(false);
  });

  it('creates a database only with its lease, and forgets a tenant adopted after its deletion', async () => {
    const store = new MemoryObjectStore();
    const taken = lease('a', 1);
    taken.lose();
    const a = await startNode(store, { cluster: taken.cluster });
    await expect(a.directory.ensure('elsewhere', desired(['tok']))).rejects.toThrow(/Another replica owns/);
    expect(await keys(store, 'tenants/')).toEqual([]);
    expect(await a.directory.adopt('gone', lease('a', 2).fencing)).toBe(false);
  });
});
