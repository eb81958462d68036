// The tenant directory tests' nodes: cw-db as main.ts wires it, minus S3 and the timers (a TenantDirectory on a
// MemoryObjectStore, real SQLite files through LibsqlEngine, the real Hrana server, driven with the official client),
// and the stores and scenes both test files share.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient, type Client } from '@libsql/client';
import { expect } from 'vitest';
import { silentLogger } from '../../src/logging/log.ts';
import { startHranaServer, type HranaServer } from '../hrana/http-server.ts';
import { LocalEngine } from '../shards/local-engine.ts';
import { DEFAULT_DAILY_QUOTAS, DEFAULT_DATABASE_LIMITS } from '../sql/sql-limits.ts';
import { StreamRegistry } from '../hrana/stream-registry.ts';
import { UsageMeter } from '../sql/usage-meter.ts';
import { listAll } from '../../src/object-store/list-all.ts';
import { MemoryObjectStore } from '../../src/object-store/memory-object-store.ts';
import type { GetOptions, ObjectStore, PutBody, PutOptions, PutResult } from '../../src/object-store/object-store.ts';
import { ForwardingObjectStore } from '../../src/object-store/testing/forwarding-object-store.ts';
import { GateStore } from '../../src/object-store/testing/gate-object-store.ts';
import { bucketReplication } from '../bucket-replication.ts';
import type { DesiredTenant } from '../tenant-admin-types.ts';
import { TenantDirectory, type DirectoryCluster } from '../tenant-directory.ts';
import type { Fencing } from '../replication-port.ts';
import { TenantMetaStore } from '../tenant-meta.ts';
import { tokenSha256 } from '../token-index.ts';
import { OpenDatabases, trackOpenDatabases } from '../open-databases.ts';
import type { DatabaseEngine } from '../shards/engine-port.ts';

const roots: string[] = [];
const nodes: Node[] = [];

/** Closes every node started and removes their directories (each test file's afterAll). */
export async function closeNodes(): Promise<void> {
  for (const node of nodes.splice(0)) await node.close();
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
}

export interface Node {
  directory: TenantDirectory;
  server: HranaServer;
  streams: StreamRegistry;
  engine: DatabaseEngine;
  client(tenant: string, token: string, options?: { trailingSlash?: boolean }): Client;
  post(pathTenant: string | null, token: string | undefined, sql?: string): Promise<{ status: number; body: unknown }>;
  close(): Promise<void>;
}

export function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'cw-db-dir-'));
  roots.push(dir);
  return dir;
}

export async function startNode(
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
export async function pipeline(node: Node, tenant: string, token: string, baton: string | null, sql: string[]): Promise<PipelineReply> {
  const response = await fetch(`http://127.0.0.1:${node.server.port}/v1/${tenant}/v2/pipeline`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ baton, requests: sql.map((text) => ({ type: 'execute', stmt: { sql: text } })) }),
  });
  const body = (await response.json()) as Omit<PipelineReply, 'status' | 'error'> & { code?: string };
  return response.ok ? { status: response.status, ...body } : { status: response.status, error: body };
}
export interface PipelineReply {
  status: number;
  baton?: string | null;
  results?: Array<{ type: string; error?: { code?: string } }>;
  error?: { code?: string };
}

export const grant = (token: string, extra: { readOnly?: boolean; expiresAt?: number } = {}) => ({
  sha256: tokenSha256(token),
  readOnly: extra.readOnly ?? false,
  ...(extra.expiresAt === undefined ? {} : { expiresAt: extra.expiresAt }),
});
export const desired = (tokens: string[], extra: Partial<DesiredTenant> = {}): DesiredTenant => ({ tokens: tokens.map((t) => grant(t)), durability: 'async', ...extra });

export async function keys(store: ObjectStore, prefix = ''): Promise<string[]> {
  const found: string[] = [];
  for await (const { key } of listAll(store, prefix)) found.push(key);
  return found;
}

/** Fails the next read of `key` while `armed` (from the first, unless disarmed), as a store that did not answer for a moment. */
export class ReadFails extends ForwardingObjectStore {
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
export class PutFails extends ForwardingObjectStore {
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
export async function createdWithBaseHeld(tenant: string, token: string): Promise<{ bucket: MemoryObjectStore; gate: GateStore; node: Node }> {
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
export async function whileSnapshotHeld(
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

export async function names(client: Client, table = 't'): Promise<unknown[]> {
  return (await client.execute(`SELECT name FROM ${table} ORDER BY rowid`)).rows.map((r) => r.name);
}

/**
 * Waits until the tenants' base snapshots are copied and up: an idle close passes over a database whose snapshot is
 * being copied (it would wait for the copy under the lock), and a database ensured a moment ago is still copying.
 */
export async function copied(node: { directory: { ship(tenant: string): Promise<boolean> } }, tenants: readonly string[]): Promise<void> {
  await Promise.all(tenants.map((tenant) => node.directory.ship(tenant)));
}

export class HeldSegments extends ForwardingObjectStore {
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
export async function written(node: Node, count: number): Promise<string[]> {
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
export class EndsAfterPut extends ForwardingObjectStore {
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
export async function copyDiedAfterMetadata(store: ObjectStore, leased: boolean): Promise<number> {
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
export async function staleTokenChange(tenant: string): Promise<{ store: MemoryObjectStore; b: Node; stale: Promise<unknown>; land: () => void }> {
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
export class SlowPuts extends ForwardingObjectStore {
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
export function lease(replica: string, epoch: number) {
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
export async function expiredWithUnshipped(store: ObjectStore, tenant: string): Promise<Node> {
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
