// The state a log folds to (refs and live packs at a seq), and folding it forwards or backwards. Pure.
import { CorruptObjectError } from './errors.ts';
import type { LogEntry, PackRef } from './log-entry.ts';
import { compareRefNames } from './refs.ts';

/** A pack in the live set, with the seq of the entry that published it. */
export interface LivePack extends PackRef {
  readonly seq: number;
}

/** Refs and live packs as of `seq`. */
export interface RepoState {
  readonly seq: number;
  /** Ref name → oid, in git's ref order. */
  readonly refs: ReadonlyMap<string, string>;
  /** In publication order. */
  readonly packs: readonly LivePack[];
}

export const EMPTY_STATE: RepoState = { seq: 0, refs: new Map(), packs: [] };

const isZero = (oid: string) => /^0+$/.test(oid);

/** The state after `entries`, which must follow `state` without a gap, each old value holding. */
export function applyEntries(state: RepoState, entries: readonly LogEntry[]): RepoState {
  if (entries.length === 0) return state;
  const refs = new Map(state.refs);
  const packs = [...state.packs];
  let seq = state.seq;
  for (const entry of entries) {
    if (entry.seq !== seq + 1) throw corrupt(entry.seq, `follows seq ${seq}`);
    for (const u of entry.refUpdates) {
      const current = refs.get(u.ref);
      if ((current ?? u.old.replace(/./g, '0')) !== u.old) throw corrupt(entry.seq, `expects ${u.ref} at ${u.old}, but it is at ${current}`);
      if (isZero(u.new)) refs.delete(u.ref);
      else refs.set(u.ref, u.new);
    }
    if (entry.pack && !packs.some((p) => p.sha256 === entry.pack?.sha256)) packs.push({ ...entry.pack, seq: entry.seq });
    seq = entry.seq;
  }
  return { seq, refs: sortRefs(refs), packs };
}

/**
 * The state before `entries` (given newest first, the first one at `state.seq`). Every applied update's old
 * value was checked against the state it was applied to, so setting each ref back to `old` is exact.
 */
export function undoEntries(state: RepoState, newestFirst: readonly LogEntry[]): RepoState {
  if (newestFirst.length === 0) return state;
  const refs = new Map(state.refs);
  let packs = [...state.packs];
  let seq = state.seq;
  for (const entry of newestFirst) {
    if (entry.seq !== seq) throw corrupt(entry.seq, `is not the entry at seq ${seq}`);
    for (const u of entry.refUpdates) {
      if ((refs.get(u.ref) ?? u.new.replace(/./g, '0')) !== u.new) throw corrupt(entry.seq, `set ${u.ref} to ${u.new}, which a later state contradicts`);
      if (isZero(u.old)) refs.delete(u.ref);
      else refs.set(u.ref, u.old);
    }
    packs = packs.filter((p) => p.seq !== entry.seq);
    seq = entry.seq - 1;
  }
  return { seq, refs: sortRefs(refs), packs };
}

export function sortRefs(refs: ReadonlyMap<string, string> | Iterable<[string, string]>): ReadonlyMap<string, string> {
  return new Map([...refs].sort(([a], [b]) => compareRefNames(a, b)));
}

function corrupt(seq: number, detail: string): CorruptObjectError {
  return new CorruptObjectError(`log seq ${seq}`, `the entry ${detail}; the log does not replay`);
}

/** The bytes of `packs` together (the bucket's cost of a pack set). */
export function packBytes(packs: readonly PackRef[]): number {
  return packs.reduce((sum, p) => sum + p.size, 0);
}
