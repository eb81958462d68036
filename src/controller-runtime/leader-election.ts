import type { LeaseClient, LeaseRecord, StoredLease } from '../kube/lease-client.ts';
import { silentLogger, type Logger } from '../logging/log.ts';

export interface LeaderElectionOptions {
  leases: LeaseClient;
  namespace: string;
  /** Lease name, e.g. `cloudwright-operator`. */
  name: string;
  /** This replica's identity (pod name plus a random suffix, so a restarted pod is a new candidate). */
  identity: string;
  /** How long a lease is honoured without renewal (client-go default 15 s). */
  leaseDurationMs?: number;
  /** How long the leader keeps failing to renew before it gives up (default 10 s). */
  renewDeadlineMs?: number;
  /** Wait between attempts (default 2 s; acquisition attempts are jittered up to 2.2×). */
  retryPeriodMs?: number;
  onStartedLeading?: () => void;
  /** Called when leadership is lost (renewal failed past the deadline); not called by {@link LeaderElector.stop}. */
  onStoppedLeading?: () => void;
  /** Called whenever a different holder is observed. */
  onNewLeader?: (identity: string) => void;
  log?: Logger;
  now?: () => number;
}

/**
 * Lease-based leader election with client-go's semantics. A lease held by someone else is honoured for
 * `leaseDuration` measured on *our* clock from when we last saw it change (never the holder's timestamps, so
 * clock skew cannot cause two leaders). Every write carries the resourceVersion read, so of two candidates
 * racing for an expired lease exactly one wins. On {@link stop} the leader releases the lease by clearing
 * `holderIdentity`, and a standby takes over at its next retry instead of waiting out the lease.
 */
export class LeaderElector {
  readonly #o: Required<Omit<LeaderElectionOptions, 'onStartedLeading' | 'onStoppedLeading' | 'onNewLeader'>> & Pick<LeaderElectionOptions, 'onStartedLeading' | 'onStoppedLeading' | 'onNewLeader'>;
  #observed: StoredLease | undefined;
  #observedAt = 0;
  /** When the latest acquire or renew attempt was sent. */
  #attemptStartedAt = 0;
  /** Leadership was lost: the results of attempts still in flight are ignored. */
  #gaveUp = false;
  #stopped = false;
  #wake: (() => void) | undefined;
  #run: Promise<void> | undefined;

  constructor(options: LeaderElectionOptions) {
    this.#o = {
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      log: silentLogger,
      now: Date.now,
      ...options,
    };
    const { leaseDurationMs, renewDeadlineMs, retryPeriodMs } = this.#o;
    // client-go's validation: the leader must give up before a standby may take over.
    if (!(leaseDurationMs > renewDeadlineMs && renewDeadlineMs > retryPeriodMs * 1.2 && retryPeriodMs > 0)) {
      throw new Error('leader election needs leaseDuration > renewDeadline > 1.2 × retryPeriod > 0');
    }
    this.#o.log = this.#o.log.child({ lease: `${options.namespace}/${options.name}`, identity: options.identity });
  }

  /** Whether the last lease we saw or wrote names us as holder. */
  isLeader(): boolean {
    return this.#observed?.record.holderIdentity === this.#o.identity;
  }

  /** Campaigns, then renews; resolves when leadership is lost or {@link stop} is called. */
  run(): Promise<void> {
    this.#run ??= this.#campaign();
    return this.#run;
  }

  /**
   * Stops campaigning or renewing and, if leading (and `release` is not false), releases the lease. Bounded:
   * an attempt or a release hanging on an apiserver that does not answer is waited for no longer than a
   * renewal may take, so a shutdown never waits for the pod's SIGKILL.
   */
  async stop(options: { release?: boolean } = {}): Promise<void> {
    this.#stopped = true;
    this.#wake?.();
    const { renewDeadlineMs } = this.#o;
    const finished = await this.#withDeadline(
      (this.#run ?? Promise.resolve()).then(() => true),
      renewDeadlineMs,
    );
    if (!finished) this.#gaveUp = true; // what the hanging attempt answers, if ever, is ignored
    if (this.isLeader() && options.release !== false)
      await this.#withDeadline(
        this.#release().then(() => true),
        renewDeadlineMs,
      );
  }

  async #campaign(): Promise<void> {
    const { retryPeriodMs, renewDeadlineMs, log, now } = this.#o;
    log.info('waiting to acquire leader lease');
    while (!(await this.#tryAcquireOrRenew())) {
      await this.#sleep(retryPeriodMs * (1 + Math.random() * 1.2));
      if (this.#stopped) return;
    }
    if (this.#stopped) return; // won the race against stop(): stop() releases
    log.info('acquired leader lease');
    this.#o.onStartedLeading?.();
    // When the last renewal that succeeded was sent: a standby's clock for it starts no earlier.
    let renewedAt = this.#attemptStartedAt;
    for (;;) {
      // Never past the deadline: the leader must give up exactly when it is due, not a retry period later.
      await this.#sleep(Math.min(retryPeriodMs, renewedAt + renewDeadlineMs - now()));
      if (this.#stopped) return;
      const remaining = renewedAt + renewDeadlineMs - now();
      if (remaining > 0 && (await this.#withDeadline(this.#tryAcquireOrRenew(), remaining))) {
        renewedAt = this.#attemptStartedAt;
      } else if (now() - renewedAt >= renewDeadlineMs || !this.isLeader()) {
        log.error('lost leader lease', { holder: this.#observed?.record.holderIdentity });
        this.#gaveUp = true; // a renewal still in flight must not make us leader again
        if (this.isLeader() && this.#observed) this.#observed = { ...this.#observed, record: { ...this.#observed.record, holderIdentity: '' } };
        this.#o.onStoppedLeading?.();
        return;
      }
    }
  }

  /** client-go's `tryAcquireOrRenew`: true when we hold the lease after this attempt. */
  async #tryAcquireOrRenew(): Promise<boolean> {
    const { leases, namespace, name, identity, leaseDurationMs, log, now } = this.#o;
    const t = now();
    this.#attemptStartedAt = t;
    const desired: LeaseRecord = {
      holderIdentity: identity,
      leaseDurationSeconds: Math.ceil(leaseDurationMs / 1000),
      acquireTime: t,
      renewTime: t,
      leaseTransitions: 0,
    };
    try {
      const current = await leases.get(namespace, name);
      if (this.#gaveUp) return false;
      if (!current) {
        const created = await leases.create(namespace, name, desired);
        if (this.#gaveUp) return false;
        this.#observe(created, now());
        return true;
      }
      // Seen when the answer arrived, not when the request was sent: a slow read (retried after 429s, say)
      // must not start the expiry clock early, or a standby could take over from a leader still in time.
      const seenAt = now();
      this.#observe(current, seenAt);
      const { record } = current;
      const expiresAt = this.#observedAt + record.leaseDurationSeconds * 1000;
      if (record.holderIdentity && !this.isLeader() && expiresAt > seenAt) return false;
      if (this.isLeader()) {
        desired.acquireTime = record.acquireTime;
        desired.leaseTransitions = record.leaseTransitions;
      } else {
        desired.leaseTransitions = record.leaseTransitions + 1;
      }
      const written = await leases.update(namespace, name, desired, current.resourceVersion);
      if (this.#gaveUp) return false;
      this.#observe(written, now());
      return true;
    } catch (err) {
      // A conflict means another candidate wrote first: an ordinary lost round.
      log.debug('leader lease attempt failed', { err });
      return false;
    }
  }

  /** Remembers the lease, restarting the expiry clock only when its content changed. */
  #observe(lease: StoredLease, at: number): void {
    const before = this.#observed?.record;
    const r = lease.record;
    const changed =
      !before ||
      before.holderIdentity !== r.holderIdentity ||
      before.renewTime !== r.renewTime ||
      before.acquireTime !== r.acquireTime ||
      before.leaseDurationSeconds !== r.leaseDurationSeconds ||
      before.leaseTransitions !== r.leaseTransitions;
    if (changed) this.#observedAt = at;
    if (r.holderIdentity && r.holderIdentity !== before?.holderIdentity) this.#o.onNewLeader?.(r.holderIdentity);
    this.#observed = lease;
  }

  async #release(): Promise<void> {
    const { leases, namespace, name, log, now } = this.#o;
    const observed = this.#observed;
    if (!observed) return;
    const t = now();
    try {
      const released = await leases.update(
        namespace,
        name,
        { holderIdentity: '', leaseDurationSeconds: 1, acquireTime: t, renewTime: t, leaseTransitions: observed.record.leaseTransitions },
        observed.resourceVersion,
      );
      this.#observed = released;
      log.info('released leader lease');
    } catch (err) {
      // Someone already took over, or the apiserver is gone: the lease then simply expires.
      log.warn('could not release leader lease', { err });
    }
  }

  #sleep(ms: number): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = done;
    });
  }

  async #withDeadline(attempt: Promise<boolean>, ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, ms))));
    try {
      return await Promise.race([attempt, expired]);
    } finally {
      clearTimeout(timer);
    }
  }
}
