// The pinned state of an import source: the source's branches and tags at one moment, and a hash over them that
// names the snapshot. `POST /import` recomputes both: a snapshot that was edited is refused (400), one the
// source has moved past is stale (409).
import { createHash } from 'node:crypto';
import { Type, type Static } from 'typebox';
import { PublicError } from '../../../src/errors.ts';
import type { RepoHead } from '../../../src/repo-store/index.ts';

/** At most this many refs in one import. */
export const MAX_IMPORT_REFS = 10_000;

export const ImportSnapshot = Type.Object(
  {
    source: Type.Union([
      Type.Object({ owner: Type.String({ minLength: 1, maxLength: 100 }), repo: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false }),
      Type.Object({ url: Type.String({ minLength: 1, maxLength: 2048, description: 'An https:// git URL, without credentials.' }) }, { additionalProperties: false }),
    ]),
    object_format: Type.Union([Type.Literal('sha1'), Type.Literal('sha256')]),
    refs: Type.Record(Type.String({ maxLength: 1000 }), Type.String({ pattern: '^(?:[0-9a-f]{40}|[0-9a-f]{64})$' }), {
      description: `Every branch and tag of the source (full ref names) and the object it points at; at most ${MAX_IMPORT_REFS}.`,
    }),
    head: Type.String({ description: "The source's HEAD (a full ref name)." }),
    snapshot_hash: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 over source, object format, head and the sorted refs.' }),
  },
  { additionalProperties: false },
);
export type ImportSnapshot = Static<typeof ImportSnapshot>;

/** The refs an import carries: branches and tags (the service's own namespaces and others stay behind). */
export function importedRefs(refs: ReadonlyMap<string, string>): Map<string, string> {
  return new Map([...refs].filter(([name]) => name.startsWith('refs/heads/') || name.startsWith('refs/tags/')).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The snapshot of `source` (`owner/name` of this bucket, or an https URL) at `head`. */
export function snapshotOf(source: string | URL, head: Pick<RepoHead, 'refs' | 'objectFormat' | 'headRef'>): ImportSnapshot {
  const [owner = '', repo = ''] = typeof source === 'string' ? source.split('/') : [];
  const refs = Object.fromEntries(importedRefs(head.refs));
  const base = { source: typeof source === 'string' ? { owner, repo } : { url: source.href }, object_format: head.objectFormat, refs, head: head.headRef };
  return { ...base, snapshot_hash: snapshotHash(base) };
}

/** Whether `refs` are exactly the snapshot's branches and tags. */
export function sameRefs(snapshot: ImportSnapshot, refs: ReadonlyMap<string, string>): boolean {
  const imported = importedRefs(refs);
  const wanted = Object.entries(snapshot.refs);
  return imported.size === wanted.length && wanted.every(([name, oid]) => imported.get(name) === oid);
}

/** SHA-256 (hex) over the snapshot's fields, refs in byte order: independent of the JSON's key order. */
export function snapshotHash(snapshot: Omit<ImportSnapshot, 'snapshot_hash'>): string {
  const hash = createHash('sha256');
  const source = 'url' in snapshot.source ? snapshot.source.url : `${snapshot.source.owner}/${snapshot.source.repo}`;
  hash.update(`source ${source}\nformat ${snapshot.object_format}\nhead ${snapshot.head}\n`);
  for (const name of Object.keys(snapshot.refs).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))) hash.update(`${snapshot.refs[name]} ${name}\n`);
  return hash.digest('hex');
}

/** 400: the snapshot's hash is not the hash of its fields (it was edited), or it holds too many refs. */
export class InvalidSnapshotError extends PublicError {
  override readonly name = 'InvalidSnapshotError';
  readonly code = 'invalid_snapshot';
  constructor(detail: string) {
    super(400, detail);
  }
}

/** 409: the source's refs are no longer the snapshot's; resolve again. */
export class SnapshotStaleError extends PublicError {
  override readonly name = 'SnapshotStaleError';
  readonly code = 'snapshot_stale';
  constructor(source: string | URL) {
    super(409, `The refs of ${String(source)} changed since the snapshot was resolved; resolve it again (POST /api/import/resolve).`);
  }
}

/** Throws `InvalidSnapshotError` unless `snapshot` is as resolve answered it. */
export function checkSnapshot(snapshot: ImportSnapshot): void {
  const names = Object.keys(snapshot.refs);
  if (names.length === 0) throw new InvalidSnapshotError('The snapshot has no refs: there is nothing to import.');
  if (names.length > MAX_IMPORT_REFS) throw new InvalidSnapshotError(`${names.length} refs; at most ${MAX_IMPORT_REFS} may be imported.`);
  if (names.some((name) => !name.startsWith('refs/heads/') && !name.startsWith('refs/tags/'))) throw new InvalidSnapshotError('Only branches and tags are imported.');
  const { snapshot_hash: given, ...rest } = snapshot;
  if (snapshotHash(rest) !== given) throw new InvalidSnapshotError('snapshot_hash does not match the snapshot; send it as POST /api/import/resolve answered it.');
}
