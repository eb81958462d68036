import type { UpstreamPool } from './upstream.ts';

/** Signs of life closer together than this are read as one: what happens within a millisecond stalls nobody. */
const READ_EVERY_MS = 1;

/**
 * What a cold start held its shard for: the longest its thread computed without answering anything, from the moment
 * it was handed `app`'s code until every request of the app that waited there then has begun its answer (the one
 * that asked for the code among them, which the load comes before), or `lookMs`, or the workerd's end. The thread's
 * CPU time is read at each sign of life meanwhile, so an answer a tenant times to arrive during the load cannot split
 * it (none can arrive while the thread loads); what another app computes meanwhile in one stretch longer than the
 * load is counted instead, which only overstates it.
 */
export function loadStretch(pool: UpstreamPool, app: string, cpuMs: () => number | undefined, ended: Promise<unknown>, lookMs = 30_000): Promise<number> {
  return new Promise((resolve) => {
    let last = cpuMs();
    let longest = 0;
    let readAt = performance.now();
    const look = () => {
      readAt = performance.now();
      const now = cpuMs();
      if (now === undefined) return;
      if (last !== undefined) longest = Math.max(longest, now - last);
      last = now;
    };
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      look();
      stopOutputs();
      stopAnswers();
      clearTimeout(timer);
      resolve(longest);
    };
    const stopOutputs = pool.onOutput(() => {
      if (performance.now() - readAt >= READ_EVERY_MS) look();
    });
    const stopAnswers = pool.onAnswered(app, Date.now(), finish);
    const timer = setTimeout(finish, lookMs);
    timer.unref();
    void ended.then(finish, finish);
  });
}
