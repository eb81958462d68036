// What `/resolve/{rest}`, `/tree/{rest}` and `/blob/{rest}` share: turning `{rest}` into a commit and a path
// (resolve-rest.ts splits, git resolves), the object at that path, and the cache headers the address allows.
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SyncedRepo } from '../plumbing/repo-cache.ts';
import { PathNotFoundError, normalizeRepoPath } from '../plumbing/read/repo-file-path.ts';
import { firstSegment, splitRest } from '../plumbing/read/resolve-rest.ts';
import { RevisionNotFoundError, resolveCommit } from '../plumbing/read/rev-parse.ts';
import { lookupEntry, rootTree, type TreeEntry } from '../plumbing/read/tree-entries.ts';
import { OID_LENGTH } from '../../src/repo-store/refs.ts';
import { immutable, revalidated } from './http-cache.ts';

export interface Address {
  /** The full ref name `{rest}` started with, or null when it started with an object id. */
  readonly ref: string | null;
  /** The commit read. */
  readonly sha: string;
  /** The path in its tree, normalised; `''` is the root. */
  readonly path: string;
  /** Addressed by a full object id: the answer can never change. */
  readonly byFullOid: boolean;
  /** How errors name the revision: the short ref name or the object id as typed. */
  readonly revision: string;
}

/** Resolves `rest` (undefined or empty: the default branch) in `repo`. Throws 404 `revision_not_found`, 400. */
export async function resolveAddress({ dir, head }: SyncedRepo, rest: string | undefined): Promise<Address> {
  const target = rest ? splitRest(rest, head.refs.keys()) : { ref: head.headRef, path: '' };
  if (!target) throw new RevisionNotFoundError(firstSegment(rest ?? ''));
  const path = normalizeRepoPath(target.path);
  if ('oid' in target) {
    const sha = await resolveCommit(dir, target.oid);
    if (!sha) throw new RevisionNotFoundError(target.oid);
    return { ref: null, sha, path, byFullOid: target.oid.length === OID_LENGTH[head.objectFormat], revision: target.oid };
  }
  const revision = target.ref.replace(/^refs\/(heads|tags)\//, '');
  const oid = head.refs.get(target.ref);
  // A branch names a commit; a tag may name a tag object (peeled here) or, rarely, no commit at all.
  const sha = oid && (target.ref.startsWith('refs/heads/') ? oid : await resolveCommit(dir, oid));
  if (!sha) throw new RevisionNotFoundError(revision);
  return { ref: target.ref, sha, path, byFullOid: false, revision };
}

/** The tree entry at the address's path (the root tree for `''`). Throws 404 `path_not_found`. */
export async function entryAt(dir: string, address: Address): Promise<TreeEntry> {
  if (address.path === '') return { name: '', type: 'tree', mode: '040000', size: null, sha: await rootTree(dir, address.sha) };
  const entry = await lookupEntry(dir, address.sha, address.path);
  if (!entry) throw new PathNotFoundError(address.path, address.revision);
  return entry;
}

/**
 * Cache headers for an answer about `address`: immutable when addressed by a full object id, else an ETag of the
 * commit, path, query string and `variant` (all the answer is made of) revalidated on each use. True when a 304
 * was sent.
 */
export function cacheAddress(request: FastifyRequest, reply: FastifyReply, address: Address, variant = ''): boolean {
  if (address.byFullOid) {
    immutable(reply);
    return false;
  }
  // The ref in the tag too: the default branch (HEAD) can be retargeted to another at the same commit.
  // `variant`: what else a route's answer depends on (the blob's `Accept`).
  return revalidated(request, reply, `${address.sha}-${shapeTag(`${address.ref ?? ''}\0${address.path}${variant ? `\0${variant}` : ''}`, request)}`);
}

/** A short hash of what, besides the commit, shapes an answer: `key` (a path, a ref kind) and the query string. */
export function shapeTag(key: string, request: FastifyRequest): string {
  const mark = request.url.indexOf('?');
  const query = mark === -1 ? '' : request.url.slice(mark + 1);
  return createHash('sha256').update(`${key}\0${query}`).digest('hex').slice(0, 16);
}
