// Object-count quotas as the apiserver speaks of them: the quantities of a ResourceQuota (`100`, `50k`: it writes
// counts back in their canonical form) and the refusal its quota admission answers to a create past one (HTTP 403,
// "exceeded quota"), read so that a caller can say which count is full instead of passing on a bare 403.
import { statusCodeOf } from './api-error.ts';

const SUFFIXES: Readonly<Record<string, number>> = { '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

/** The whole number a count quantity stands for (`50k` is 50000); `undefined` for anything that is not one. */
export function countQuantity(value: string | undefined): number | undefined {
  const match = /^(\d+)([kMGTPE]?)$/.exec(value ?? '');
  if (!match) return undefined;
  return Number(match[1]) * (SUFFIXES[match[2] ?? ''] ?? 1);
}

/** One count a create would have taken past its limit. */
export interface ExceededCount {
  /** The quota's resource name, e.g. `count/runtimeapps.cloudwright.dev`. */
  readonly resource: string;
  /** What the namespace holds now. */
  readonly used: number;
  /** The quota's limit. */
  readonly limited: number;
}

/** What the apiserver's refusal of a create past a quota says. */
export type QuotaRefusal = { readonly kind: 'exceeded'; readonly quota: string; readonly exceeded: readonly ExceededCount[] } | { readonly kind: 'status-unknown'; readonly quota: string };

/**
 * The quota refusal `err` carries, if it is one: a 403 whose message is quota admission's "exceeded quota: NAME,
 * requested: …, used: …, limited: …", or "status unknown for quota: NAME" (the quota controller has not counted
 * the namespace yet, as right after the quota is written: retrying soon succeeds).
 */
export function quotaRefusal(err: unknown): QuotaRefusal | undefined {
  if (statusCodeOf(err) !== 403) return undefined;
  const message = (err as { message?: unknown }).message;
  if (typeof message !== 'string') return undefined;
  const unknown = /status unknown for quota: ([^,\s]+)/.exec(message);
  if (unknown) return { kind: 'status-unknown', quota: unknown[1] ?? '' };
  const exceeded = /exceeded quota: ([^,\s]+), requested: (.*), used: (.*), limited: (.*)$/.exec(message);
  if (!exceeded) return undefined;
  const used = quantities(exceeded[3] ?? '');
  const limited = quantities(exceeded[4] ?? '');
  return {
    kind: 'exceeded',
    quota: exceeded[1] ?? '',
    exceeded: [...limited].map(([resource, limit]) => ({ resource, used: used.get(resource) ?? limit, limited: limit })),
  };
}

/** `a=1,b=50k` (quota admission's list of quantities) as a map of numbers. */
function quantities(list: string): Map<string, number> {
  const map = new Map<string, number>();
  for (const pair of list.split(',')) {
    const at = pair.lastIndexOf('=');
    const value = countQuantity(pair.slice(at + 1).trim());
    if (at > 0 && value !== undefined) map.set(pair.slice(0, at).trim(), value);
  }
  return map;
}
