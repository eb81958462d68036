import type { ClaimHolder, NameClaimSpec } from '../../src/apis/v1alpha1/domain-claim.ts';
import type { CustomResource } from '../../src/apis/v1alpha1/index.ts';
import { isAlreadyExists, isConflict, isNotFound, type ObjectClient } from '../../src/kube/index.ts';

type NameClaim = CustomResource<string, NameClaimSpec, never>;

/**
 * How soon a name another holder has is looked at again: nothing watches claims, so a holder going away is
 * noticed by asking again, this often.
 */
export const TAKEN_RECHECK_MS = 60 * 1000;

export type ClaimResult = { readonly held: true } | { readonly held: false; readonly holder: ClaimHolder };

/** How often a stale claim is cleared and the name tried again before the pass gives up (the next one retries). */
const MAX_ATTEMPTS = 3;

/**
 * Installation-wide names (domains, custom host names) held through cluster-scoped claim objects named after
 * the name: creating one succeeds for one holder only, so exclusivity is the apiserver's name uniqueness, not
 * a comparison of creation times. A claim whose holder is gone (deleted, replaced by a new object of the
 * same name, or no longer wanting the name) is stale and cleared by the next object that asks. Cluster-scoped
 * objects cannot be owned by namespaced ones, so the holder's controller releases the claim itself
 * (behind the holder's finalizer) and staleness covers whatever escaped that.
 */
export class NameClaims {
  readonly #client: ObjectClient<NameClaim>;
  readonly #kind: ClaimHolder['kind'];
  readonly #wantsName: (holder: ClaimHolder, name: string) => Promise<boolean>;

  /** `wantsName` says whether the holder still exists (that very uid) and still wants `name`; read it from the apiserver. */
  constructor(client: ObjectClient<NameClaim>, kind: ClaimHolder['kind'], wantsName: (holder: ClaimHolder, name: string) => Promise<boolean>) {
    this.#client = client;
    this.#kind = kind;
    this.#wantsName = wantsName;
  }

  /** Claims `name` for `holder` (idempotent); answers who holds it when another does. */
  async claim(name: string, holder: { namespace: string; name: string; uid: string }): Promise<ClaimResult> {
    const mine: ClaimHolder = { kind: this.#kind, ...holder };
    for (let attempt = 1; ; attempt++) {
      const existing = await this.#client.get('', name);
      if (!existing) {
        try {
          await this.#client.create({ metadata: { name }, spec: { name, holder: mine } });
          return { held: true };
        } catch (err) {
          if (!isAlreadyExists(err)) throw err;
          continue; // another holder got there first: read whose it is
        }
      }
      const current = existing.spec.holder;
      if (current.uid === mine.uid) return { held: true };
      if (attempt >= MAX_ATTEMPTS || (await this.#wantsName(current, name))) return { held: false, holder: current };
      await this.#delete(existing);
    }
  }

  /** The holder of `name` when one still wants it; `undefined` for a free name or a stale claim. */
  async holderOf(name: string): Promise<ClaimHolder | undefined> {
    const existing = await this.#client.get('', name);
    if (!existing) return undefined;
    return (await this.#wantsName(existing.spec.holder, name)) ? existing.spec.holder : undefined;
  }

  /**
   * Takes `name` over from `from` (the holder's uid) for `holder`: the caller has shown it has the better right
   * (a delegation the other never proved). Nothing happens when someone else holds it by now.
   */
  async takeOver(name: string, from: string, holder: { namespace: string; name: string; uid: string }): Promise<ClaimResult> {
    const existing = await this.#client.get('', name);
    if (existing && existing.spec.holder.uid === from) await this.#delete(existing);
    return this.claim(name, holder);
  }

  /**
   * Gives `name` up when the object `holder` names held it and no longer wants it (it is gone: its uid is
   * not known any more); nothing otherwise.
   */
  async releaseFor(name: string, holder: { namespace: string; name: string }): Promise<void> {
    const existing = await this.#client.get('', name);
    const current = existing?.spec.holder;
    if (!existing || current?.namespace !== holder.namespace || current.name !== holder.name) return;
    if (!(await this.#wantsName(current, name))) await this.#delete(existing);
  }

  /** Gives `name` up when `uid` holds it; nothing when another does or nobody does. */
  async release(name: string, uid: string): Promise<void> {
    const existing = await this.#client.get('', name);
    if (existing?.spec.holder.uid === uid) await this.#delete(existing);
  }

  /** Deletes exactly this claim object: one re-created meanwhile by someone else is left alone. */
  async #delete(claim: NameClaim): Promise<void> {
    try {
      await this.#client.delete('', claim.metadata?.name ?? '', { preconditions: { uid: claim.metadata?.uid } });
    } catch (err) {
      if (!isNotFound(err) && !isConflict(err)) throw err;
    }
  }
}
