import { BuildLoadError } from '../../src/app-artifacts/errors.ts';
import { inBuildNames } from './running-app.ts';
import type { LoadCheck } from './load-checker.ts';

/** workerd's Worker Loader refuses these; they say the build cannot load, not that loading failed for now. */
const LOAD_FAILURE = /^(Error: )?(Failed to start Worker|No such compatibility flag|Dynamic Worker (code|env) size|.*must contain at least one module)/;

/**
 * What load checks found, by worker fingerprint (build + environment): builds workerd refused (loading is
 * deterministic, so they are not tried again), builds that loaded (a rollback to one needs no check), and
 * failed attempts for other reasons (part of the loader id, as workerd caches a failed id). Bounded.
 */
export class LoadVerdicts {
  readonly #refused = new Map<string, BuildLoadError>();
  readonly #attempts = new Map<string, number>();
  /** Fingerprint → the CPU time its load took in the checker (0 when not read). */
  readonly #loaded = new Map<string, number>();

  /** Why workerd refused this worker, if it did. */
  refusal(fingerprint: string): BuildLoadError | undefined {
    return this.#refused.get(fingerprint);
  }

  /** Attempts that failed for another reason than the build. */
  attempts(fingerprint: string): number {
    return this.#attempts.get(fingerprint) ?? 0;
  }

  loaded(fingerprint: string): boolean {
    return this.#loaded.has(fingerprint);
  }

  /** The CPU time this worker's load took when it was checked, if it loaded. */
  loadCpuMs(fingerprint: string): number | undefined {
    return this.#loaded.get(fingerprint);
  }

  /** Records a check of build `buildId`; answers the deploy's error when it did not load (`BuildLoadError` when it never will). */
  record(fingerprint: string, buildId: string, key: string, answer: LoadCheck): Error | undefined {
    if (answer.loaded) {
      this.#loaded.set(fingerprint, answer.cpuMs ?? 0);
      if (this.#loaded.size > 10_000) this.#loaded.delete(this.#loaded.keys().next().value as string);
      return undefined;
    }
    const error = inBuildNames(answer.error ?? 'unknown');
    if (LOAD_FAILURE.test(error)) {
      const refusal = new BuildLoadError(buildId, error.replace(/^(Error: )?Failed to start Worker:\s*/, '').slice(0, 4096));
      this.#refused.set(fingerprint, refusal);
      if (this.#refused.size > 1000) this.#refused.delete(this.#refused.keys().next().value as string);
      return refusal;
    }
    this.#attempts.set(fingerprint, this.attempts(fingerprint) + 1);
    return new Error(`loading ${key} failed: ${error}`);
  }
}
