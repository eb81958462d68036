import type { PrepareName } from '../certificate-index.ts';

/**
 * A stand-in for `NamesOnDemand.prepare` in the TLS tests: a name read is one namespace `alpha` may serve
 * (`mayServe`, which a read answers too), every read is recorded, and `failing` makes the next reads reject as an
 * unreachable apiserver's.
 */
export function preparedNames() {
  const prepared = new Set<string>();
  const state = { failing: false, asked: [] as string[] };
  const mayServe = (namespace: string, host: string) => namespace === 'alpha' && prepared.has(host);
  const prepareName: PrepareName = (host) => {
    state.asked.push(host);
    if (state.failing) return Promise.reject(new Error('the apiserver is unreachable'));
    prepared.add(host);
    return Promise.resolve(mayServe);
  };
  return { state, prepareName, mayServe };
}
