import type { FastifyBaseLogger } from 'fastify';
import type { AuditTrail } from './audit-trail.ts';

/**
 * Prunes the audit trails every `intervalMs`, the first time at a random point of the first interval so
 * replicas started together do not walk the bucket together (they may: deletes are idempotent). A failed
 * run is logged and the next one tries again. The timer never keeps the process up; `stop` ends it.
 */
export function startAuditPruning(trail: AuditTrail, intervalMs: number, log: Pick<FastifyBaseLogger, 'info' | 'warn'>, now: () => Date = () => new Date()): { stop(): void } {
  let running = false;
  const run = async (): Promise<void> => {
    if (running) return;
    running = true;
    try {
      const deleted = await trail.prune(now());
      if (deleted > 0) log.info({ deleted }, 'audit entries past their retention pruned');
    } catch (err) {
      log.warn({ err }, 'audit pruning failed; the next run retries');
    } finally {
      running = false;
    }
  };
  let interval: NodeJS.Timeout | undefined;
  const first = setTimeout(
    () => {
      void run();
      interval = setInterval(() => void run(), intervalMs).unref();
    },
    Math.floor(Math.random() * intervalMs),
  ).unref();
  return {
    stop() {
      clearTimeout(first);
      clearInterval(interval);
    },
  };
}
