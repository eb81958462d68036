// Ref names, object ids and the old-value check of a ref transaction: the part of a publish that decides,
// against one state of the refs, which updates may be written.
import { InvalidPublishError } from './errors.ts';

export type ObjectFormat = 'sha1' | 'sha256';

/** One ref change: `old` is what the writer saw, `new` what it wants; the zero oid means "absent". */
export interface RefUpdate {
  readonly ref: string;
  readonly old: string;
  readonly new: string;
}

/** Why a ref update was not applied. */
export type RefRejection =
  /** The ref is not at `old` (any more): git says "fetch first" or non-fast-forward; we report the fact. */
  | 'stale old value'
  /**
   * The ref would be created where another ref is a directory of it or under it (`refs/heads/a` and
   * `refs/heads/a/b`): git stores refs as paths, so no client could fetch both. `conflictsWith` names the other.
   */
  | 'ref name conflict'
  /** The update was fine, but an atomic publish applies all or nothing and another ref was rejected. */
  | 'atomic push failure'
  /** The publish was only for a repository with no refs (`onlyIfNoRefs`: an import, an initialize), and it has some by now. */
  | 'not pristine'
  /**
   * A create that would leave the repository holding more than `maxRefs` refs (every create of the publish is
   * refused together); updates and deletions never are, so a repository at its limit can always be cleaned up.
   */
  | 'too many refs';

export type RefResult =
  | { readonly ref: string; readonly status: 'ok' }
  | { readonly ref: string; readonly status: 'rejected'; readonly reason: RefRejection; readonly conflictsWith?: string; readonly maxRefs?: number };

/**
 * The refs one repository may hold unless configured otherwise (`quota.repository_max_refs`). A head holds every ref:
 * a typical ref costs ~85 bytes of every manifest and checkpoint and 150-170 bytes of heap per decoded head (a ref name
 * of git's longest, 1024 bytes, ~1.1 KB of each), so 10,000 bounds a head near 1-2 MB (11 MB at the longest names).
 * docs/repository-service.md "Ref limit" has the measurements.
 * GitHub recommends at most 5,000 branches; an import takes at most 10,000 refs.
 */
export const DEFAULT_MAX_REFS = 10_000;

export const OID_LENGTH: Record<ObjectFormat, number> = { sha1: 40, sha256: 64 };

/** The all-zero oid of the format: the "old" of a create and the "new" of a delete. */
export function zeroOid(format: ObjectFormat): string {
  return '0'.repeat(OID_LENGTH[format]);
}

export function isOid(value: string, format: ObjectFormat): boolean {
  return value.length === OID_LENGTH[format] && /^[0-9a-f]+$/.test(value);
}

/**
 * git's check-ref-format rules, for a full name under `refs/` with at least two components: no component
 * starting with `.` or ending with `.lock`; no `..`, `@{`, `//`, control characters, space, `~ ^ : ? * [ \`;
 * no trailing `/` or `.`.
 */
export function isValidRefName(name: string): boolean {
  if (!name.startsWith('refs/') || name.length > 1024) return false;
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name) || name.includes('..') || name.includes('@{') || name.endsWith('.')) return false;
  const parts = name.split('/');
  if (parts.length < 3) return false;
  return parts.every((part) => part !== '' && !part.startsWith('.') && !part.endsWith('.lock'));
}

/**
 * Throws `InvalidPublishError` unless every update is well-formed and names a distinct ref. Without `format`
 * an oid of either format passes (the check before the repository's format is known).
 */
export function checkRefUpdates(updates: readonly RefUpdate[], format?: ObjectFormat): void {
  const seen = new Set<string>();
  const formats: readonly ObjectFormat[] = format ? [format] : ['sha1', 'sha256'];
  for (const u of updates) {
    if (!isValidRefName(u.ref)) throw new InvalidPublishError(`"${u.ref}" is not a valid ref name`);
    if (seen.has(u.ref)) throw new InvalidPublishError(`${u.ref} is updated twice`);
    seen.add(u.ref);
    for (const oid of [u.old, u.new]) {
      if (!formats.some((f) => isOid(oid, f))) throw new InvalidPublishError(`${u.ref}: "${oid}" is not a ${formats.join(' or ')} object id`);
    }
    if (/^0+$/.test(u.old) && /^0+$/.test(u.new)) throw new InvalidPublishError(`${u.ref}: old and new are both the zero oid`);
  }
}

export interface RefVerdict {
  /** The updates to write, in request order (no-ops left out). */
  readonly accepted: readonly RefUpdate[];
  /** One result per requested update, in request order. */
  readonly results: readonly RefResult[];
  /** Whether any update was rejected. */
  readonly rejected: boolean;
}

/**
 * Checks each update's old value against `refs` (a missing ref reads as the zero oid). A stale update is
 * rejected with `stale old value`; a ref created where it would be a directory of another ref, or under one,
 * once the updates are applied, with `ref name conflict` (two such creates in one publish both are). When the
 * updates left would make the repository hold more than `maxRefs` refs, every create among them is rejected with
 * `too many refs` (deletions in the same publish count: they make room). With `atomic`, one rejection rejects all
 * the others with `atomic push failure`. An update whose ref already has its new value is a no-op, `ok` and not
 * written, whatever its old value: so a retried publish is answered as the first one would have been.
 */
export function validateRefUpdates(refs: ReadonlyMap<string, string>, updates: readonly RefUpdate[], atomic: boolean, format: ObjectFormat, maxRefs = Number.POSITIVE_INFINITY): RefVerdict {
  const zero = zeroOid(format);
  const rejections = new Map<RefUpdate, Extract<RefResult, { status: 'rejected' }>>();
  const done = new Set<RefUpdate>();
  for (const u of updates) {
    const current = refs.get(u.ref) ?? zero;
    // Already where the update would put it: a retry of a publish whose answer was lost or that failed
    // after its entry was written. Done, not stale.
    if (current === u.new) done.add(u);
    else if (current !== u.old) rejections.set(u, { ref: u.ref, status: 'rejected', reason: 'stale old value' });
  }
  for (const [u, other] of nameConflicts(
    refs,
    updates.filter((u) => !rejections.has(u)),
    zero,
  )) {
    rejections.set(u, { ref: u.ref, status: 'rejected', reason: 'ref name conflict', conflictsWith: other });
  }
  for (const u of pastLimit(refs, updates, (u) => !rejections.has(u) && !done.has(u), zero, maxRefs)) {
    rejections.set(u, { ref: u.ref, status: 'rejected', reason: 'too many refs', maxRefs });
  }
  if (rejections.size > 0 && atomic) {
    const results = updates.map((u): RefResult => rejections.get(u) ?? { ref: u.ref, status: 'rejected', reason: 'atomic push failure' });
    return { accepted: [], results, rejected: true };
  }
  const accepted: RefUpdate[] = [];
  const results = updates.map((u): RefResult => {
    const rejection = rejections.get(u);
    if (rejection) return rejection;
    if (!done.has(u)) accepted.push(u);
    return { ref: u.ref, status: 'ok' };
  });
  return { accepted, results, rejected: rejections.size > 0 };
}

/** Every update rejected for one `reason` that concerns the whole state, not one ref. */
export function rejectAll(updates: readonly RefUpdate[], reason: RefRejection): RefVerdict {
  return { accepted: [], results: updates.map((u): RefResult => ({ ref: u.ref, status: 'rejected', reason })), rejected: true };
}

/**
 * The creates among the `applied` updates when, applied, they would leave more than `maxRefs` refs: all of them, or
 * none. Counted on the state the publish commits on, so two publishes that each fit alone cannot both land.
 */
function pastLimit(refs: ReadonlyMap<string, string>, updates: readonly RefUpdate[], applied: (u: RefUpdate) => boolean, zero: string, maxRefs: number): RefUpdate[] {
  const live = updates.filter(applied);
  const creates = live.filter((u) => u.new !== zero && !refs.has(u.ref));
  const deletes = live.filter((u) => u.new === zero && refs.has(u.ref)).length;
  return creates.length > 0 && refs.size + creates.length - deletes > maxRefs ? creates : [];
}

/**
 * The creates among `updates` (all valid against `refs`) that would leave a ref and a ref under it, each
 * with one ref it conflicts with. Refs that exist already are never rejected for this: an update to one
 * changes no name. A ref under a create is found by binary search in the names in git's order, so a publish of
 * many creates costs (refs + creates) × log, not refs × creates: 10,000 creates against 10,000 refs took ~8 s of
 * the event loop scanning every name for each create.
 */
function nameConflicts(refs: ReadonlyMap<string, string>, updates: readonly RefUpdate[], zero: string): Map<RefUpdate, string> {
  const creates = updates.filter((u) => u.new !== zero && !refs.has(u.ref));
  const conflicts = new Map<RefUpdate, string>();
  if (creates.length === 0) return conflicts;
  const deleted = new Set(updates.filter((u) => u.new === zero).map((u) => u.ref));
  const created = new Set(creates.map((u) => u.ref));
  const kept = (name: string) => !deleted.has(name);
  const existing = inGitOrder([...refs.keys()]);
  const added = inGitOrder([...created]);
  for (const u of creates) {
    const parts = u.ref.split('/');
    // A directory of it that is a ref (`refs/heads/a` for `refs/heads/a/b`)…
    for (let i = 2; i < parts.length && !conflicts.has(u); i++) {
      const directory = parts.slice(0, i).join('/');
      if ((refs.has(directory) && kept(directory)) || created.has(directory)) conflicts.set(u, directory);
    }
    if (conflicts.has(u)) continue;
    // …or a ref under it (`refs/heads/a/b` for `refs/heads/a`).
    const prefix = `${u.ref}/`;
    const under = firstUnder(existing, prefix, kept) ?? firstUnder(added, prefix, () => true);
    if (under !== undefined) conflicts.set(u, under);
  }
  return conflicts;
}

/** `names` sorted as git orders refs (a head's refs already are: then this only checks). */
function inGitOrder(names: string[]): string[] {
  for (let i = 1; i < names.length; i++) if (compareRefNames(names[i - 1] as string, names[i] as string) > 0) return names.sort(compareRefNames);
  return names;
}

/**
 * The first name of `sorted` (in git's order) that starts with `prefix` and is `kept`. Names with a prefix are
 * contiguous in lexicographic order, from the first name not below the prefix.
 */
function firstUnder(sorted: readonly string[], prefix: string, kept: (name: string) => boolean): string | undefined {
  let low = 0;
  for (let high = sorted.length; low < high;) {
    const middle = (low + high) >>> 1;
    if (compareRefNames(sorted[middle] as string, prefix) < 0) low = middle + 1;
    else high = middle;
  }
  for (let i = low; i < sorted.length && (sorted[i] as string).startsWith(prefix); i++) if (kept(sorted[i] as string)) return sorted[i];
  return undefined;
}

/** Orders ref names as git does (byte order of UTF-8, which is code point order). */
export function compareRefNames(a: string, b: string): number {
  if (a === b) return 0;
  for (let i = 0, j = 0; i < a.length && j < b.length;) {
    const ca = a.codePointAt(i) as number;
    const cb = b.codePointAt(j) as number;
    if (ca !== cb) return ca - cb;
    i += ca > 0xffff ? 2 : 1;
    j += cb > 0xffff ? 2 : 1;
  }
  return a.length - b.length;
}
