// `manifest.json`: the head of a repository and the only object ever overwritten, always by compare-and-swap
// on its etag. It carries everything a read needs (refs and live packs at the head), so a warm read is one
// conditional GET.
import { encodeJson, Fields, schemaFor } from './json-fields.ts';
import { packRefJson, readPackRef } from './log-entry.ts';
import { compareRefNames, isOid, isValidRefName, type ObjectFormat } from './refs.ts';
import { parseRepoPath } from './repo-path.ts';
import { seqToString } from './seq.ts';
import { sortRefs, type LivePack, type RepoState } from './state.ts';

/** A checkpoint: the folded state at `seq`, kept at `checkpoints/<seq>.json` (written by maintenance). */
export interface CheckpointRef {
  readonly seq: number;
}

export interface Manifest extends RepoState {
  /** `owner/name`, so the object describes itself (bucket notifications, tooling). */
  readonly repo: string;
  /**
   * Random per incarnation: a repository deleted and created again gets a new one. Log entries carry it, so
   * a leftover of the old incarnation is never mistaken for an entry of the new, and no two manifests of
   * different incarnations have the same bytes (hence the same etag).
   */
  readonly repoId: string;
  readonly objectFormat: ObjectFormat;
  /** The target of the symbolic ref HEAD. */
  readonly headRef: string;
  /** The oldest seq whose log entry is kept (1 until retention folds the log into a checkpoint). */
  readonly logStart: number;
  readonly checkpoint: CheckpointRef | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export const OBJECT_FORMATS: readonly ObjectFormat[] = ['sha1', 'sha256'];

export function encodeManifest(m: Manifest): Uint8Array {
  return encodeJson({
    schema: schemaFor(m.packs),
    repo: m.repo,
    repoId: m.repoId,
    objectFormat: m.objectFormat,
    headRef: m.headRef,
    seq: seqToString(m.seq),
    logStart: seqToString(m.logStart),
    checkpoint: m.checkpoint && { seq: seqToString(m.checkpoint.seq) },
    createdAt: m.createdAt,
    updatedAt: m.updatedAt,
    packs: m.packs.map((p) => ({ ...packRefJson(p), seq: seqToString(p.seq) })),
    refs: Object.fromEntries(sortRefs(m.refs)),
  });
}

/** Decodes the object at `key`; throws `CorruptObjectError` or `UnsupportedSchemaError`. */
export function decodeManifest(key: string, bytes: Uint8Array): Manifest {
  const f = Fields.parse(key, bytes);
  const objectFormat = f.string('objectFormat', (s) => (OBJECT_FORMATS as readonly string[]).includes(s)) as ObjectFormat;
  const seq = f.seq('seq');
  const logStart = f.seq('logStart');
  if (logStart < 1 || logStart > seq + 1) f.fail('logStart', `between 1 and seq + 1`);
  const checkpoint = f.nullable('checkpoint', (c) => ({ seq: c.seq('seq') }));
  if (checkpoint && checkpoint.seq > seq) f.fail('checkpoint.seq', 'at most seq');
  const packs = f.array('packs', (p): LivePack => ({ ...readPackRef(p), seq: p.seq('seq') }));
  if (packs.some((p) => p.seq > seq)) f.fail('packs', 'published at or before seq');
  return {
    repo: f.string('repo', (s) => {
      try {
        return parseRepoPath(s).full === s;
      } catch {
        return false;
      }
    }),
    repoId: f.string('repoId', (s) => s.length > 0),
    objectFormat,
    headRef: f.string('headRef', isValidRefName),
    seq,
    logStart,
    checkpoint,
    createdAt: f.string('createdAt'),
    updatedAt: f.string('updatedAt'),
    packs,
    refs: sortRefs(f.stringMap('refs', (name, oid) => isValidRefName(name) && isOid(oid, objectFormat))),
  };
}

/** The manifest of a new, pristine repository: seq 0, no refs, no packs. */
export function pristineManifest(options: { repo: string; repoId: string; objectFormat: ObjectFormat; headRef: string; now: Date }): Manifest {
  const at = options.now.toISOString();
  return {
    repo: options.repo,
    repoId: options.repoId,
    objectFormat: options.objectFormat,
    headRef: options.headRef,
    seq: 0,
    logStart: 1,
    checkpoint: null,
    createdAt: at,
    updatedAt: at,
    refs: new Map(),
    packs: [],
  };
}

/** `base` moved to `state` at `now`: what a writer CASes in. */
export function manifestAt(base: Manifest, state: RepoState, now: Date): Manifest {
  const { repo, repoId, objectFormat, logStart, checkpoint, createdAt } = base;
  const headRef = firstBranchesHead(base, state.refs);
  return { repo, repoId, objectFormat, headRef, logStart, checkpoint, createdAt, updatedAt: now.toISOString(), seq: state.seq, refs: state.refs, packs: state.packs };
}

/** The branches HEAD prefers when the first branches of a repository leave its own branch absent, in order. */
export const FIRST_PUSH_HEADS: readonly string[] = ['refs/heads/main', 'refs/heads/master'];

/**
 * HEAD after `base` moves to `refs`. As GitHub and Gitea do, the write that gives a repository its first branches
 * also chooses its default branch when HEAD's own is not among them (a project still on `master`): `main`, else
 * `master`, else the first branch in git's byte order. Otherwise HEAD stays: later writes never retarget it (that
 * is `PUT /api/refs`, which writes no log entry). Computed from base and refs alone, so whichever writer commits
 * an entry (its own, or another's by roll-forward) reaches the same HEAD.
 */
export function firstBranchesHead(base: Manifest, refs: ReadonlyMap<string, string>): string {
  if (refs.has(base.headRef) || hasBranch(base.refs)) return base.headRef;
  const branches = [...refs.keys()].filter(isBranch);
  if (branches.length === 0) return base.headRef;
  return FIRST_PUSH_HEADS.find((name) => refs.has(name)) ?? (branches.sort(compareRefNames)[0] as string);
}

const isBranch = (name: string) => name.startsWith('refs/heads/');
const hasBranch = (refs: ReadonlyMap<string, string>) => [...refs.keys()].some(isBranch);

/**
 * What maintenance may change in a manifest, and HEAD's target (a retarget: no log entry, so no event); refs and
 * seq belong to the writers.
 */
export interface HeadAmendment {
  readonly packs?: readonly LivePack[];
  readonly checkpoint?: CheckpointRef;
  readonly logStart?: number;
  readonly headRef?: string;
}

/** `base` with maintenance's `change`; throws `RangeError` for a change that breaks the manifest's rules. */
export function amendedManifest(base: Manifest, change: HeadAmendment, now: Date): Manifest {
  const next: Manifest = {
    ...base,
    packs: change.packs ?? base.packs,
    checkpoint: change.checkpoint ?? base.checkpoint,
    logStart: change.logStart ?? base.logStart,
    headRef: change.headRef ?? base.headRef,
    updatedAt: now.toISOString(),
  };
  if (change.headRef !== undefined && (!change.headRef.startsWith('refs/heads/') || !isValidRefName(change.headRef))) throw new RangeError('HEAD must name a branch');
  if (next.checkpoint && next.checkpoint.seq > next.seq) throw new RangeError('a checkpoint past the head');
  if (next.logStart < base.logStart || next.logStart > (next.checkpoint?.seq ?? 0) + 1) throw new RangeError('logStart must move forward and stay covered by the checkpoint');
  if (next.packs.some((p) => p.seq > next.seq)) throw new RangeError('a pack published after the head');
  return next;
}
