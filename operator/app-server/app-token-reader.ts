import { statusCodeOf, type KubeObject } from '../../src/kube/index.ts';
import { APP_TOKEN_KEYS, appTokenGeneration } from '../../src/platform/databases/app-tokens.ts';
import { databaseTokenSha256 } from '../../src/platform/databases/database-token.ts';
import type { LinkedValue, LinkProblem } from './database-links.ts';

/** A Secret as the runtime reads it. */
export type SecretObject = KubeObject & { data?: Record<string, string> };

/**
 * Reads the values of an app's linked variables from their Databases' app-token Secrets, with a GET in the
 * app's namespace (the runtime may get Secrets in project namespaces only, never list or watch them). A Secret
 * is read again only when its Database's token generation changes, so resyncs cost no request. Only a Secret
 * controlled by the Database named is believed: a Secret of that name made by someone else is not a token.
 */
export class AppTokenReader {
  readonly #get: (namespace: string, name: string) => Promise<SecretObject | undefined>;
  readonly #cache = new Map<string, { uid: string; generation: string; data: Record<string, string> }>();

  constructor(get: (namespace: string, name: string) => Promise<SecretObject | undefined>) {
    this.#get = get;
  }

  /** The variables' values, by name, or why they cannot be had yet. Other errors (the apiserver down) are thrown. */
  async read(namespace: string, values: readonly LinkedValue[]): Promise<{ env: Record<string, string> } | { problem: LinkProblem }> {
    const env: Record<string, string> = {};
    for (const value of values) {
      const data = await this.#secret(namespace, value);
      if ('problem' in data) return data;
      // Present: the generation of the data was checked, and it needs both tokens.
      env[value.variable] = Buffer.from(data.data[value.key] ?? '', 'base64').toString('utf8');
    }
    return { env };
  }

  async #secret(namespace: string, value: LinkedValue): Promise<{ data: Record<string, string> } | { problem: LinkProblem }> {
    const cacheKey = `${namespace}/${value.secret}`;
    const cached = this.#cache.get(cacheKey);
    if (cached?.uid === value.uid && cached.generation === value.generation) return { data: cached.data };
    let secret: SecretObject | undefined;
    try {
      secret = await this.#get(namespace, value.secret);
    } catch (err) {
      if (statusCodeOf(err) === 403) return { problem: notReady(value, `the runtime may not read Secrets in namespace ${namespace} (it reads them in project namespaces only)`) };
      throw err;
    }
    const owned = secret?.metadata?.ownerReferences?.some((ref) => ref.uid === value.uid && ref.controller === true);
    if (!secret || !owned) {
      this.#cache.delete(cacheKey);
      return { problem: notReady(value, `its Secret ${value.secret} is not there yet`) };
    }
    const data = secret.data ?? {};
    // Deleted and minted again, but cw-db does not accept the new tokens yet: wait for the generation to move.
    if (generationOf(data) !== value.generation) return { problem: notReady(value, 'its tokens are being rotated') };
    this.#cache.set(cacheKey, { uid: value.uid, generation: value.generation, data });
    return { data };
  }
}

function notReady(value: LinkedValue, why: string): LinkProblem {
  return { reason: 'DatabaseNotReady', message: `Variable ${value.variable} names Database ${value.database}, but ${why}.` };
}

/** The token generation of a Secret's data (see appTokenGeneration), or undefined when a token is missing. */
function generationOf(data: Record<string, string>): string | undefined {
  const [full, readOnly] = [data[APP_TOKEN_KEYS.full], data[APP_TOKEN_KEYS['read-only']]];
  if (!full || !readOnly) return undefined;
  const sha = (encoded: string) => databaseTokenSha256(Buffer.from(encoded, 'base64').toString('utf8'));
  return appTokenGeneration(sha(full), sha(readOnly));
}
