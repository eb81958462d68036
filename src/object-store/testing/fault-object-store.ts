// Test helper: an ObjectStore wrapper that injects faults into chosen writes, to simulate a process dying
// between two steps of a protocol, or a response lost after the store applied the write.
import { PRECONDITION_FAILED, type PutBody, type PutOptions, type PutResult } from '../object-store.ts';
import { ForwardingObjectStore } from './forwarding-object-store.ts';

/** What happens to a matching `put`. */
export type PutFault =
  /** The process dies before sending it: the call throws `SimulatedCrash`, nothing is written. */
  | 'crash-before'
  /** The store applies the write but the answer is lost, and the retry meets the write: `precondition-failed`. */
  | 'lost-response';

export class SimulatedCrash extends Error {
  override readonly name = 'SimulatedCrash';
}

export interface FaultRule {
  /** Which puts the rule applies to. */
  match: (key: string, options: PutOptions) => boolean;
  fault: PutFault;
  /** How many matching puts it hits (default 1); then the rule is spent. */
  times?: number;
}

/** Forwards to `inner`, applying the first unspent matching rule to each `put`. */
export class FaultObjectStore extends ForwardingObjectStore {
  readonly #rules: { rule: FaultRule; left: number }[] = [];

  inject(rule: FaultRule): this {
    this.#rules.push({ rule, left: rule.times ?? 1 });
    return this;
  }

  override async put(key: string, body: PutBody, options: PutOptions = {}): Promise<PutResult> {
    const hit = this.#rules.find((r) => r.left > 0 && r.rule.match(key, options));
    if (!hit) return super.put(key, body, options);
    hit.left--;
    if (hit.rule.fault === 'crash-before') throw new SimulatedCrash(`simulated crash before PUT ${key}`);
    await super.put(key, body, options);
    return PRECONDITION_FAILED;
  }
}
