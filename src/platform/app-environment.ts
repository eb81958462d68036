import { ASSETS_BINDING } from '../workerd/compatibility.ts';
import type { AppStore } from './app-store.ts';
import { BadRequestError, ConflictError, NotFoundError } from '../errors.ts';

/** Variables an app may have (the RuntimeApp schema's bound). */
export const MAX_ENVIRONMENT_KEYS = 128;
/**
 * Bytes (UTF-8) of all names and values of an app together, as Vercel bounds a deployment's environment at
 * 64 KB: 128 values of 4096 characters could otherwise exceed what the apiserver stores in one object.
 */
export const MAX_ENVIRONMENT_BYTES = 64 * 1024;

/** The spec's wording for `secret: true` (Errors table): there is no secret store. */
export const SECRET_VALUES_DISABLED = 'Secret app environment values are not enabled; only plain values are stored. Send "secret": false.';

/** One variable as the REST API shows it; `secret` is always false. */
export interface VariableView {
  key: string;
  value: string;
  secret: false;
}

/**
 * The plain environment of an app (`RuntimeApp.spec.environment`): read from the cache, written with
 * optimistic concurrency. A change reaches the runtime as a new rollout of the active build.
 */
export class AppEnvironment {
  readonly #store: AppStore;

  constructor(store: AppStore) {
    this.#store = store;
  }

  /** Every variable, by name (sorted). @throws NotFoundError */
  get(project: string, appId: string): Record<string, { value: string; secret: false }> {
    const environment = this.#store.cached(project, appId).spec.environment ?? {};
    return Object.fromEntries(
      Object.keys(environment)
        .sort()
        .map((key) => [key, { value: environment[key] ?? '', secret: false as const }]),
    );
  }

  /**
   * Creates or replaces a variable. Setting the value it has writes nothing.
   * @throws BadRequestError for `secret: true` or the reserved name `ASSETS`; NotFoundError; ConflictError
   *   past {@link MAX_ENVIRONMENT_KEYS} or {@link MAX_ENVIRONMENT_BYTES}
   */
  async set(project: string, appId: string, key: string, value: string, secret: boolean): Promise<VariableView> {
    if (secret) throw new BadRequestError(SECRET_VALUES_DISABLED);
    if (key === ASSETS_BINDING) throw new BadRequestError(`${ASSETS_BINDING} is reserved: it is the binding of an app's static assets; choose another name.`);
    await this.#store.update(project, appId, ({ spec }) => {
      const environment = spec.environment ?? {};
      const exists = Object.hasOwn(environment, key);
      if (exists && environment[key] === value) return undefined;
      if (!exists && Object.keys(environment).length >= MAX_ENVIRONMENT_KEYS) {
        throw new ConflictError(`App ${appId} already has ${MAX_ENVIRONMENT_KEYS} environment variables, the most an app may have; delete one first.`);
      }
      const next = Object.fromEntries([...Object.entries(environment).filter(([k]) => k !== key), [key, value]]);
      const bytes = environmentBytes(next);
      // A write that does not grow an environment already over the bound (from before it existed) is allowed.
      if (bytes > MAX_ENVIRONMENT_BYTES && bytes > environmentBytes(environment)) {
        throw new ConflictError(
          `App ${appId}'s environment would take ${bytes} bytes, more than the ${MAX_ENVIRONMENT_BYTES} an app may have (names and values, UTF-8); shorten or delete variables first.`,
        );
      }
      return { ...spec, environment: next };
    });
    return { key, value, secret: false };
  }

  /** @throws NotFoundError when the app or the variable does not exist */
  async delete(project: string, appId: string, key: string): Promise<void> {
    await this.#store.update(project, appId, ({ spec }) => {
      const environment = spec.environment ?? {};
      if (!Object.hasOwn(environment, key)) throw new NotFoundError(`App ${appId} has no environment variable ${key}.`);
      const { environment: _old, ...rest } = spec;
      const left = Object.entries(environment).filter(([k]) => k !== key);
      return left.length > 0 ? { ...rest, environment: Object.fromEntries(left) } : rest;
    });
  }
}

/** UTF-8 bytes of every name and value. */
function environmentBytes(environment: Record<string, string>): number {
  let bytes = 0;
  for (const [key, value] of Object.entries(environment)) bytes += Buffer.byteLength(key) + Buffer.byteLength(value);
  return bytes;
}
