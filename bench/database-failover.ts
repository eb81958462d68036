// The failover part of `make bench-scale-databases`: the replica owning most synchronous databases is SIGKILLed and
// its disk wiped (a lost pod) while those databases take inserts through the survivors; then the time until each
// database it owned answers through a survivor, the survivors' memory, and every acknowledged insert read back.
import { readFileSync } from 'node:fs';
import type { CwDbProcess } from '../e2e/harness/cw-db-process.ts';
import type { ObjectStore } from '../src/object-store/object-store.ts';
import { firstAnswers, leaseHolders, type CreatedDatabase } from './database-fleet.ts';
import { mib, percentiles, placement, rss, rssText, say, seconds, type CwDbMemory } from './database-figures.ts';
import { SyncBurst } from './sync-burst.ts';

export interface FailoverOptions {
  replicas: readonly CwDbProcess[];
  store: ObjectStore;
  created: readonly CreatedDatabase[];
  /** Each replica's memory before the kill, in the order of `replicas`. */
  memoryBefore: readonly CwDbMemory[];
  concurrency: number;
  leaseMs: number;
  /** A database refused is asked again this long after, at the soonest. */
  retryMs: number;
  timeoutMs: number;
}

/** Inserts each synchronous database has acknowledged before the kill. */
const ACKNOWLEDGED_BEFORE_KILL = 10;

/** Runs the failover and prints it; throws when a database never answered or an acknowledged insert was lost. */
export async function measureFailover(o: FailoverOptions): Promise<void> {
  const sync = o.created.filter((d) => d.durability === 'sync');
  const tenants = o.created.map((d) => d.tenant);
  const before = await leaseHolders(o.store, tenants, o.concurrency * 2);
  const syncOn = (r: CwDbProcess) => sync.filter((d) => before.get(d.tenant) === r.name).length;
  const victim = o.replicas.reduce((best, r) => (syncOn(r) > syncOn(best) ? r : best));
  const survivors = o.replicas.filter((r) => r !== victim);
  const survivor = (index: number) => survivors[index % survivors.length] as CwDbProcess;
  const burst = new SyncBurst(sync, (d) => survivor(sync.indexOf(d)));
  await burst.start();
  await burst.acknowledgedEach(ACKNOWLEDGED_BEFORE_KILL);
  // Read again: a handover may have moved some since.
  const owned = await leaseHolders(o.store, tenants, o.concurrency * 2);
  const victims = o.created.filter((d) => owned.get(d.tenant) === victim.name);
  const victimSync = victims.filter((d) => d.durability === 'sync').length;

  const killedAt = performance.now();
  const killedAtWall = Date.now();
  await victim.halt({ signal: 'SIGKILL', wipeDisk: true });
  let asked = 0;
  const answers = await firstAnswers(victims, { concurrency: o.concurrency, via: () => survivor(asked++), retryMs: o.retryMs, deadline: killedAt + o.timeoutMs });
  await burst.stop();
  const checked = await burst.check(performance.now() + o.timeoutMs);
  const memoryAfter = survivors.map(rss);
  const after = await leaseHolders(
    o.store,
    victims.map((d) => d.tenant),
    o.concurrency * 2,
  );

  const times = [...answers.answeredAt.values()].map((at) => at - killedAt);
  const all = answers.answeredAt.size === victims.length;
  say(`failover: ${victim.name} SIGKILLed (its disk wiped) holding ${victims.length} databases (${victimSync} of the ${sync.length} synchronous ones), lease ${seconds(o.leaseMs)}:`);
  if (times.length > 0) {
    say(
      `  first answer through a survivor, per database: ${percentiles(times)} after the kill; all ${all ? 'answering' : 'that answered'} after ${seconds(Math.max(...times))} (${o.concurrency} asked at a time, a refused one again ${answers.retryGapMs.toFixed(0)} ms later on average: the timing's resolution)`,
    );
    say(`  against the lease: ${(Math.max(...times) / o.leaseMs).toFixed(2)} × the lease (the documented bound: the lease, a survivor's round, and the restore)`);
  }
  say(
    `  taken over by: ${placement(
      after,
      survivors.map((r) => r.name),
    )}`,
  );
  for (const [i, r] of survivors.entries()) say(`  ${r.name} RSS after taking them over ${rssText(memoryAfter[i])}, ${mib(o.memoryBefore[o.replicas.indexOf(r)]?.tree ?? 0)} before the kill`);
  const steps = takeoverSteps(survivors, victim.name, killedAtWall);
  if (steps.taken.length > 0)
    say(
      `  in the survivors' logs: leases taken ${seconds(Math.min(...steps.taken))} to ${seconds(Math.max(...steps.taken))} after the kill, the last restore done at ${seconds(Math.max(0, ...steps.restored))}`,
    );
  const fromLive = takenFromLive(
    survivors,
    survivors.map((r) => r.name),
  );
  say(`  databases taken from a live replica (logged "took a database over" from a survivor, over the whole run; should be 0): ${fromLive}`);
  if (victimSync === 0) say(`  (no synchronous database was on ${victim.name}: the burst below says nothing of the failover; raise --sync-databases)`);
  const lost = [...checked.lost.values()].reduce((n, ids) => n + ids.length, 0);
  say(`  synchronous inserts across the kill: ${checked.acknowledged} acknowledged, ${checked.refused} refused, ${lost} acknowledged ones lost`);
  if (!all)
    throw new Error(
      `${victims.length - answers.answeredAt.size} of ${victims.length} databases of ${victim.name} did not answer within ${seconds(o.timeoutMs)} of the kill (last error: ${answers.lastError})`,
    );
  if (lost > 0) throw new Error(`acknowledged synchronous inserts LOST across the failover: ${JSON.stringify(Object.fromEntries(checked.lost))}`);
}

/** The replicas' log lines (JSON) with a message among `messages`. */
function logged(replicas: readonly CwDbProcess[], messages: readonly string[]): { time: string; msg: string; from?: string | null }[] {
  const lines: { time: string; msg: string; from?: string | null }[] = [];
  for (const r of replicas) {
    for (const line of readFileSync(r.logPath, 'utf8').split('\n')) {
      if (messages.some((m) => line.includes(`"${m}"`))) lines.push(JSON.parse(line) as { time: string; msg: string; from?: string | null });
    }
  }
  return lines;
}

/** When, after the kill (ms, by the logs' wall clock), the survivors took the dead replica's leases and finished restores. */
function takeoverSteps(survivors: readonly CwDbProcess[], dead: string, killedAtWall: number): { taken: number[]; restored: number[] } {
  const taken: number[] = [];
  const restored: number[] = [];
  for (const line of logged(survivors, ['took a database over', 'restored a tenant from the bucket'])) {
    const after = Date.parse(line.time) - killedAtWall;
    if (after < 0) continue;
    if (line.msg === 'took a database over' && line.from === dead) taken.push(after);
    if (line.msg === 'restored a tenant from the bucket') restored.push(after);
  }
  return { taken, restored };
}

/**
 * Takeovers, in the replicas' logs, of a database from one of `live` (a replica that did not die): each means two
 * replicas held it at once for a while, until the one taken from read its lease again. Handovers (a released lease,
 * `from` null) are not counted.
 */
function takenFromLive(replicas: readonly CwDbProcess[], live: readonly string[]): number {
  return logged(replicas, ['took a database over']).filter(({ from }) => typeof from === 'string' && live.includes(from)).length;
}
