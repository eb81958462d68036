import { isControlledBy, secretText, statusCodeOf, type SecretObject } from '../src/kube/index.ts';
import { appTokenHashes } from '../src/platform/databases/app-tokens.ts';
import type { LinkedToken, LinkedValue, LinkProblem } from './database-links.ts';

/**
 * Reads the values of an app's linked variables from their Databases' app-token Secrets, with a GET in the
 * app's namespace (the runtime may get Secrets in project namespaces only, never list or watch them). A Secret
 * is read again only when its Database's token generation changes, so resyncs cost no request. Only a Secret
 * controlled by the Database named is believed: a Secret of that name made by someone else is not a token.
 */
export class AppTokenReader {
  readonly #get: (namespace: string, name: string) => Promise<SecretObject | undefined>;
  readonly #cache = new Map<string, { uid: string; generation: string; secret: SecretObject }>();

  constructor(get: (namespace: string, name: string) => Promise<SecretObject | undefined>) {
    this.#get = get;
  }

  /** The variables' values, by name, or why they cannot be had yet. Other errors (the apiserver down) are thrown. */
  async read(namespace: string, values: readonly LinkedValue[]): Promise<{ env: Record<string, string> } | { problem: LinkProblem }> {
    const env: Record<string, string> = {};
    for (const value of values) {
      if (value.kind === 'url') {
        env[value.variable] = value.url;
        continue;
      }
      const found = await this.#secret(namespace, value);
      if ('problem' in found) return found;
      // Present: the generation of the data was checked, and it needs both tokens.
      env[value.variable] = secretText(found.secret, value.key) ?? '';
    }
    return { env };
  }

  async #secret(namespace: string, value: LinkedToken): Promise<{ secret: SecretObject } | { problem: LinkProblem }> {
    const cacheKey = `${namespace}/${value.secret}`;
    const cached = this.#cache.get(cacheKey);
    if (cached?.uid === value.uid && cached.generation === value.generation) return { secret: cached.secret };
    let secret: SecretObject | undefined;
    try {
      secret = await this.#get(namespace, value.secret);
    } catch (err) {
      if (statusCodeOf(err) === 403) return { problem: notReady(value, `the runtime may not read Secrets in namespace ${namespace} (it reads them in project namespaces only)`) };
      throw err;
    }
    if (!secret || !isControlledBy(secret, value.uid)) {
      this.#cache.delete(cacheKey);
      return { problem: notReady(value, `its Secret ${value.secret} is not there yet`) };
    }
    // Deleted and minted again, but cw-db does not accept the new tokens yet: wait for the generation to move.
    if (appTokenHashes((key) => secretText(secret, key))?.generation !== value.generation) return { problem: notReady(value, 'its tokens are being rotated') };
    this.#cache.set(cacheKey, { uid: value.uid, generation: value.generation, secret });
    return { secret };
  }
}

function notReady(value: LinkedToken, why: string): LinkProblem {
  return { reason: 'DatabaseNotReady', message: `Variable ${value.variable} names Database ${value.database}, but ${why}.` };
}
