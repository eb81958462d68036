// The events section of `make bench-git` (--skip-events leaves it out): how soon a `git push` becomes a webhook
// event, with MinIO's bucket notifications waking the events bridge and without them (its sweep alone), and how
// many events per second the bridge delivers for a burst of pushes to many repositories.
//
//   1. a MinIO of its own (a separate state directory and port: its webhook target is fixed at start), whose
//      target `CWGIT` posts to the first instance's `POST /_events/notify`; as in `make dev`
//      (scripts/dev-git.ts), that instance's port is chosen and MinIO's `write` token minted before MinIO starts.
//      Two buckets: one with the manifest-writes rule (notifications on), one without (off);
//   2. a cw-git instance per bucket, roles serve and events, `events.webhook_url` at a receiver in this process
//      (`allow_private_targets`: it is on 127.0.0.1) that checks every post's `X-Service-Signature` and
//      `X-Service-Delivery`. Notifications on: the default sweep interval (5 m, so every event here is woken by a
//      notification); off: --events-sweep-interval (default 1 s), the only wake-up there is;
//   3. latency: --events-pushes pushes of one small commit to one repository, one at a time, each timed from just
//      before `git push` to the receiver getting the event whose `new` is the pushed commit; notifications on,
//      then off (with a random pause of up to one interval before each push, so pushes fall anywhere in the
//      sweep's cycle);
//   4. throughput, notifications on: --events-repos repositories × --events-repo-pushes pushes, --events-in-flight
//      at once, from the first push to the last event; webhook posts and events per post.
// Checked while measuring: every event received at least once; per repository in seq order, and the events'
// `new` oids, first arrivals in order, exactly the commits pushed; every signature and delivery id valid. A
// failed check fails the run. No target: the figures, and the two ratios against the same run's references
// (sweep only against notifications; events delivered against pushes accepted). See bench/README.md.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createRunBucket, startMinio } from '../e2e/harness/minio.ts';
import type { GitServiceSetup } from '../e2e/harness/git-service.ts';
import { freePort } from '../e2e/harness/process.ts';
import { mintToken } from '../git-server/auth/index.ts';
import { runGit } from '../src/git/run-git.ts';
import { putManifestNotifications } from '../src/object-store/s3-bucket-notifications.ts';
import type { RefEvent } from '../git-server/events/ref-event.ts';
import { CLIENT_ENV, median, percentile } from './git-measure.ts';
import { commitChain, createRepo, type BenchInstance } from './git-maintenance.ts';

/** MinIO's webhook target: `MINIO_NOTIFY_WEBHOOK_*_CWGIT`, as in make dev. */
const TARGET_ID = 'CWGIT';
/** Unmeasured pushes before each latency series: the first creates the branch, the others warm the path. */
const WARM_UPS = 3;
/** How long one latency push's event may take; with notifications on, a lost one would wait for the 5 m sweep. */
const EVENT_TIMEOUT_MS = 60_000;
/** How long the throughput burst's events may take after its last push. */
const BURST_TIMEOUT_MS = 180_000;
const LATENCY_REPO = 'bench-events/latency';
const BRANCH = 'main';

export interface EventsSetup {
  /** An empty directory: MinIO's state and log, the source repositories. */
  readonly workDir: string;
  /** Where what is started registers its stop (the run's stops). */
  readonly stops: (() => Promise<void>)[];
  /** A cw-git instance on `setup`'s bucket, listening on `port`, with `env` added to its environment. */
  readonly startInstance: (setup: GitServiceSetup, name: string, env: Record<string, string>, port: number) => Promise<BenchInstance>;
  readonly latencyPushes: number;
  readonly repos: number;
  readonly repoPushes: number;
  readonly inFlight: number;
  /** `events.sweep_interval` of the instance without notifications, as written (`1s`), and in ms. */
  readonly sweepInterval: string;
  readonly sweepMs: number;
  readonly say: (message: string) => void;
}

export interface LatencyRun {
  /** Just before `git push` to the event's arrival, per measured push. */
  readonly eventMs: number[];
  /** `git push`, start to exit. */
  readonly pushMs: number[];
}

export interface Tally {
  readonly posts: number;
  /** Events received, repeats included. */
  readonly events: number;
  /** Events received again (same repository, seq and ref). */
  readonly repeats: number;
}

export interface EventsFigures {
  readonly on: LatencyRun;
  readonly off: LatencyRun;
  readonly burst: {
    readonly pushes: number;
    /** First push start to last push exit, and to the last event's arrival. */
    readonly pushSeconds: number;
    readonly eventSeconds: number;
    readonly posts: number;
    readonly events: number;
  };
  readonly onTally: Tally;
  readonly offTally: Tally;
  /** The instances' `events_bridge_*` counters at the end. */
  readonly onMetrics: BridgeCounters;
  readonly offMetrics: BridgeCounters;
  /** `os.loadavg()` when the section ended. */
  readonly loadAverage: number[];
}

interface BridgeCounters {
  readonly sweepFound: number;
  /** `events_bridge_deliveries_total` by outcome. */
  readonly deliveries: Map<string, number>;
}

export async function measureEvents(setup: EventsSetup): Promise<EventsFigures> {
  const { say, workDir, stops } = setup;
  mkdirSync(workDir, { recursive: true });
  const tokenSecret = randomBytes(32).toString('hex');
  const webhookSecret = randomBytes(16).toString('hex');
  const token = mintToken({ sub: 'bench', scopes: ['read', 'write'] }, tokenSecret);

  // Settled before MinIO starts (its settings are fixed at start): the notified instance's port and MinIO's token.
  const notifiedPort = await freePort();
  const webhook = {
    id: TARGET_ID,
    endpoint: `http://127.0.0.1:${notifiedPort}/_events/notify`,
    authToken: mintToken({ sub: 'minio-notifications', scopes: ['write'] }, tokenSecret),
  };
  const minio = await startMinio(workDir, undefined, { webhook });
  stops.push(() => minio.service.stop());
  if (!minio.webhookArn) throw new Error('MinIO started without its webhook target');
  const onBucket = await createRunBucket(minio, 'cw-bench-events-on');
  const offBucket = await createRunBucket(minio, 'cw-bench-events-off');
  await putManifestNotifications(minio.s3, onBucket, minio.webhookArn);

  const [onReceiver, offReceiver] = [await Receiver.start(webhookSecret), await Receiver.start(webhookSecret)];
  stops.push(
    () => onReceiver.close(),
    () => offReceiver.close(),
  );
  const eventsEnv = (receiver: Receiver, sweepInterval?: string) => ({
    SERVICE__EVENTS__WEBHOOK_URL: receiver.url,
    SERVICE__EVENTS__WEBHOOK_SECRET: webhookSecret,
    SERVICE__EVENTS__ALLOW_PRIVATE_TARGETS: 'true',
    ...(sweepInterval ? { SERVICE__EVENTS__SWEEP_INTERVAL: sweepInterval } : {}),
  });
  const instanceSetup = (bucket: string): GitServiceSetup => ({ s3: minio.s3, bucket, tokenSecret, roles: ['serve', 'events'] });
  const on = await setup.startInstance(instanceSetup(onBucket), 'cw-git-events-on', eventsEnv(onReceiver), notifiedPort);

  // One source repository per target repository: chains of distinct commits, so an event is known by its `new`.
  const sourceOf = (label: string) => join(workDir, 'sources', `${label}.git`);
  const header = ['-c', `http.extraHeader=Authorization: Bearer ${token}`];
  const push = async (base: string, repo: string, label: string, commit: string) => {
    await runGit([...header, '-C', sourceOf(label), 'push', '--quiet', `${base}/${repo}`, `${commit}:refs/heads/${BRANCH}`], { env: CLIENT_ENV });
  };
  const burst = Array.from({ length: setup.repos }, (_, i) => {
    const label = `burst-${String(i + 1).padStart(2, '0')}`;
    return { repo: `bench-events/${label}`, label };
  });
  const chains = new Map<string, string[]>();
  for (const [label, n] of [['on', WARM_UPS + setup.latencyPushes] as const, ['off', WARM_UPS + setup.latencyPushes] as const, ...burst.map(({ label }) => [label, setup.repoPushes] as const)]) {
    chains.set(label, await commitChain(sourceOf(label), n, ` (${label})`));
  }
  const chainOf = (label: string) => chains.get(label) ?? [];

  /** Pushes `label`'s chain to the latency repository one at a time, each after the event of the one before; answers the measured pushes' times. */
  const latency = async (base: string, receiver: Receiver, label: string, pauseMs: number): Promise<LatencyRun> => {
    const run: LatencyRun = { eventMs: [], pushMs: [] };
    for (const [i, commit] of chainOf(label).entries()) {
      if (pauseMs > 0) await sleep(Math.random() * pauseMs);
      const t0 = performance.now();
      await push(base, LATENCY_REPO, label, commit);
      const pushed = performance.now();
      const at = await receiver.arrival(commit, EVENT_TIMEOUT_MS);
      if (i < WARM_UPS) continue;
      run.eventMs.push(at - t0);
      run.pushMs.push(pushed - t0);
    }
    return run;
  };

  await createRepo(on.base, LATENCY_REPO, token);
  say(`events: ${setup.latencyPushes} pushes to ${LATENCY_REPO}, one at a time, each waiting for its event; MinIO bucket notifications on`);
  const onRun = await latency(on.base, onReceiver, 'on', 0);

  say(`events: ${setup.repos * setup.repoPushes} pushes across ${setup.repos} repositories (${setup.repoPushes} each), ${setup.inFlight} in flight; notifications on`);
  for (const { repo } of burst) await createRepo(on.base, repo, token);
  const before = onReceiver.tally();
  const start = performance.now();
  let lastPushed = start;
  // Worker w takes repositories w, w + inFlight, …, round by round: one push in flight per repository, in chain order.
  await Promise.all(
    Array.from({ length: setup.inFlight }, async (_, w) => {
      for (let round = 0; round < setup.repoPushes; round++) {
        for (let k = w; k < burst.length; k += setup.inFlight) {
          const { repo, label } = burst[k] as (typeof burst)[number];
          await push(on.base, repo, label, chainOf(label)[round] as string);
        }
      }
      lastPushed = Math.max(lastPushed, performance.now());
    }),
  );
  const burstCommits = burst.flatMap(({ label }) => chainOf(label));
  const arrivals = await Promise.all(burstCommits.map((commit) => onReceiver.arrival(commit, BURST_TIMEOUT_MS)));
  const last = Math.max(...arrivals);
  const after = onReceiver.tally();

  say(`events: ${setup.latencyPushes} pushes to ${LATENCY_REPO} on a bucket without notifications: the bridge's sweep alone, every ${setup.sweepInterval}`);
  const off = await setup.startInstance(instanceSetup(offBucket), 'cw-git-events-off', eventsEnv(offReceiver, setup.sweepInterval), await freePort());
  await createRepo(off.base, LATENCY_REPO, token);
  const offRun = await latency(off.base, offReceiver, 'off', setup.sweepMs);

  // What each receiver got, against what was pushed: every event at least once, in order, none skipped.
  onReceiver.check(new Map([[LATENCY_REPO, chainOf('on')], ...burst.map(({ repo, label }) => [repo, chainOf(label)] as const)]));
  offReceiver.check(new Map([[LATENCY_REPO, chainOf('off')]]));
  const figures: EventsFigures = {
    on: onRun,
    off: offRun,
    burst: { pushes: burstCommits.length, pushSeconds: (lastPushed - start) / 1000, eventSeconds: (last - start) / 1000, posts: after.posts - before.posts, events: after.events - before.events },
    onTally: onReceiver.tally(),
    offTally: offReceiver.tally(),
    onMetrics: await bridgeCounters(on.base, token, onReceiver.tally().posts),
    offMetrics: await bridgeCounters(off.base, token, offReceiver.tally().posts),
    loadAverage: loadavg(),
  };
  await off.stop();
  await on.stop();
  return figures;
}

/**
 * The webhook's receiver, as a consumer would write it: the signature checked in constant time before the body
 * is parsed (a 401 otherwise), the delivery id checked, events deduplicated on (repo, seq, ref). Records when
 * each `new` oid first arrived; checks order as events arrive.
 */
class Receiver {
  #posts = 0;
  #events = 0;
  #repeats = 0;
  readonly #problems: string[] = [];
  /** `new` oid → when it first arrived (performance.now()). */
  readonly #arrived = new Map<string, number>();
  readonly #waiting = new Map<string, (() => void)[]>();
  readonly #seen = new Set<string>();
  /** Per repository: the highest seq received, and the `new` of each event at its first arrival, in order. */
  readonly #lastSeq = new Map<string, bigint>();
  readonly #delivered = new Map<string, string[]>();
  readonly #server: Server;
  readonly #secret: string;

  private constructor(server: Server, secret: string) {
    this.#server = server;
    this.#secret = secret;
  }

  static async start(secret: string): Promise<Receiver> {
    let receiver: Receiver | undefined;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => res.writeHead(receiver?.receive(Buffer.concat(chunks), req.headers) ?? 503).end());
    });
    receiver = new Receiver(server, secret);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/hooks/cw-git`;
  }

  /** Handles one post; answers the status. */
  receive(body: Buffer, headers: Record<string, string | string[] | undefined>): number {
    const at = performance.now();
    const expected = Buffer.from(`sha256=${createHmac('sha256', this.#secret).update(body).digest('hex')}`);
    const given = Buffer.from(typeof headers['x-service-signature'] === 'string' ? headers['x-service-signature'] : '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      this.#problems.push(`a post with an invalid signature (${body.length} bytes)`);
      return 401;
    }
    if (headers['x-service-delivery'] !== createHash('sha1').update(body).digest('hex')) this.#problems.push('a post whose X-Service-Delivery is not the SHA-1 of its body');
    this.#posts++;
    let events: RefEvent[];
    try {
      events = JSON.parse(body.toString('utf8')) as RefEvent[];
    } catch {
      this.#problems.push('a post whose body is not JSON');
      return 400;
    }
    for (const event of events) {
      this.#events++;
      const key = `${event.repo}\0${event._service.seq}\0${event.ref_name}`;
      if (this.#seen.has(key)) {
        this.#repeats++;
        continue;
      }
      this.#seen.add(key);
      const seq = BigInt(event._service.seq);
      const last = this.#lastSeq.get(event.repo);
      if (last !== undefined && seq <= last) this.#problems.push(`${event.repo}: seq ${seq} arrived first after seq ${last}`);
      this.#lastSeq.set(event.repo, seq);
      const delivered = this.#delivered.get(event.repo) ?? [];
      delivered.push(event.new);
      this.#delivered.set(event.repo, delivered);
      if (!this.#arrived.has(event.new)) this.#arrived.set(event.new, at);
      for (const wake of this.#waiting.get(event.new) ?? []) wake();
      this.#waiting.delete(event.new);
    }
    return 204;
  }

  /** When the event whose `new` is `oid` first arrived; rejects after `timeoutMs`. */
  async arrival(oid: string, timeoutMs: number): Promise<number> {
    const known = this.#arrived.get(oid);
    if (known !== undefined) return known;
    const { promise, resolve, reject } = Promise.withResolvers<void>();
    const timer = setTimeout(() => reject(new Error(`no event for ${oid.slice(0, 12)} within ${timeoutMs} ms (${this.#posts} posts so far; see the instances' and MinIO's logs)`)), timeoutMs);
    this.#waiting.set(oid, [...(this.#waiting.get(oid) ?? []), resolve]);
    await promise.finally(() => clearTimeout(timer));
    return this.#arrived.get(oid) as number;
  }

  tally(): Tally {
    return { posts: this.#posts, events: this.#events, repeats: this.#repeats };
  }

  /** Throws unless every repository's events, first arrivals in order, were exactly its pushed commits, and nothing else was wrong. */
  check(pushed: Map<string, string[]>): void {
    const problems = [...this.#problems];
    for (const [repo, commits] of pushed) {
      const got = this.#delivered.get(repo) ?? [];
      if (JSON.stringify(got) !== JSON.stringify(commits)) problems.push(`${repo}: ${got.length} events for ${commits.length} pushes, or not in the order pushed`);
    }
    for (const repo of this.#delivered.keys()) if (!pushed.has(repo)) problems.push(`events for ${repo}, which this run did not push to`);
    if (problems.length > 0) throw new Error(`events receiver: ${problems.slice(0, 5).join('; ')}${problems.length > 5 ? ` (and ${problems.length - 5} more)` : ''}`);
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/**
 * The instance's counters once it has counted the `posts` its receiver answered: the bridge counts a post when the
 * answer reaches it, which can be just after the receiver recorded the last event.
 */
async function bridgeCounters(base: string, token: string, posts: number): Promise<BridgeCounters> {
  const deadline = performance.now() + 5_000;
  for (;;) {
    const counters = await readBridgeCounters(base, token);
    if ((counters.deliveries.get('delivered') ?? 0) >= posts || performance.now() > deadline) return counters;
    await sleep(100);
  }
}

async function readBridgeCounters(base: string, token: string): Promise<BridgeCounters> {
  const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}`);
  const deliveries = new Map<string, number>();
  let sweepFound = 0;
  for (const line of text.split('\n')) {
    const delivery = /^events_bridge_deliveries_total\{outcome="([^"]*)"\} (\S+)$/.exec(line);
    if (delivery) deliveries.set(delivery[1] as string, Number(delivery[2]));
    const found = /^events_bridge_sweep_found_total (\S+)$/.exec(line);
    if (found) sweepFound = Number(found[1]);
  }
  return { sweepFound, deliveries };
}

export function eventsReport(figures: EventsFigures, setup: Pick<EventsSetup, 'sweepInterval' | 'inFlight' | 'repos' | 'repoPushes'>): string[] {
  const { on, off, burst } = figures;
  const n = on.eventMs.length;
  const row = (label: string, run: LatencyRun) =>
    `  ${label.padEnd(66)}${percentile(run.eventMs, 50).toFixed(0).padStart(7)}${percentile(run.eventMs, 99).toFixed(0).padStart(8)}${Math.max(...run.eventMs)
      .toFixed(0)
      .padStart(8)}${median(run.pushMs).toFixed(0).padStart(13)}`;
  const ratio = (p: number) => (percentile(off.eventMs, p) / percentile(on.eventMs, p)).toFixed(1);
  const beforeExit = on.eventMs.filter((ms, i) => ms < (on.pushMs[i] ?? 0)).length;
  const afterExit = on.eventMs.map((ms, i) => ms - (on.pushMs[i] ?? 0));
  const outcomes = (c: BridgeCounters) =>
    [...c.deliveries]
      .filter(([, count]) => count > 0)
      .map(([outcome, count]) => `${outcome} ${count}`)
      .join(', ') || 'none';
  const pushRate = burst.pushes / burst.pushSeconds;
  const eventRate = burst.pushes / burst.eventSeconds;
  const lastAfter = Math.round((burst.eventSeconds - burst.pushSeconds) * 1000);
  return [
    '',
    `${`push → event received, ${n} pushes one at a time`.padEnd(68)}${'p50 ms'.padStart(7)}${'p99 ms'.padStart(8)}${'max ms'.padStart(8)}${'push p50 ms'.padStart(13)}`,
    row('MinIO bucket notifications on (events.sweep_interval 5m, unused)', on),
    row(`notifications off: the bridge's sweep alone, every ${setup.sweepInterval}`, off),
    `  git push over HTTP of one commit to one repository; from just before git push to the receiver getting the event with the pushed oid; sweep only: a random pause of up to ${setup.sweepInterval} before each push`,
    `  sweep only / notifications on: p50 ${ratio(50)} ×, p99 ${ratio(99)} ×: the contrast, not a target; without notifications the interval sets the latency (${setup.sweepInterval} here, 5m by default)`,
    `  notifications on: ${beforeExit} of ${n} events arrived before git push returned; event time less push time: p50 ${median(afterExit).toFixed(0)} ms, p99 ${percentile(afterExit, 99).toFixed(0)} ms`,
    '',
    `throughput: ${burst.pushes} pushes across ${setup.repos} repositories (${setup.repoPushes} each), ${setup.inFlight} in flight, notifications on`,
    `  ${eventRate.toFixed(1)} events/s delivered (${burst.pushes} events, first push to last event ${burst.eventSeconds.toFixed(1)} s); the pushes alone: ${pushRate.toFixed(1)} pushes/s (${burst.pushSeconds.toFixed(1)} s)`,
    `  events delivered / pushes accepted: ${(eventRate / pushRate).toFixed(2)} × (the last event arrived ${Math.abs(lastAfter)} ms ${lastAfter < 0 ? 'before' : 'after'} the last push returned)`,
    `  ${burst.posts} webhook posts, ${(burst.events / burst.posts).toFixed(2)} events per post`,
    '',
    `checks: every event received at least once, per repository in seq order, the first arrivals exactly the commits pushed, in order; every signature (X-Service-Signature) and delivery id valid`,
    `  notifications on: ${figures.onTally.posts} posts, ${figures.onTally.events} events, ${figures.onTally.repeats} received again; events_bridge_sweep_found_total ${figures.onMetrics.sweepFound}; posts by outcome: ${outcomes(figures.onMetrics)}`,
    `  sweep only: ${figures.offTally.posts} posts, ${figures.offTally.events} events, ${figures.offTally.repeats} received again; events_bridge_sweep_found_total ${figures.offMetrics.sweepFound}; posts by outcome: ${outcomes(figures.offMetrics)}`,
    `(load average ${figures.loadAverage.map((l) => l.toFixed(2)).join(' ')} at the end of the section: the pushes, both instances, MinIO and the receiver share the CPUs)`,
  ];
}
