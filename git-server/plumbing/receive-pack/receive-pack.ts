// A push, end to end: read the commands, index the pack into a quarantine, check it the way git's own
// receive-pack does, publish pack and ref updates to the write-ahead log, and only then report `ok`.
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import type { RefResult, RefUpdate, RepoStore } from '../../../src/repo-store/index.ts';
import { isValidRefName, parseRepoPath, zeroOid } from '../../../src/repo-store/index.ts';
import { isOid } from '../../../src/repo-store/refs.ts';
import { PktReader } from '../pkt-line.ts';
import { PackTooLargeError, Quarantine, type IndexedPack } from '../quarantine.ts';
import { SpoolFullError, type SpoolMeter } from '../spool-budget.ts';
import { StorageQuotaError, type QuotaReservation, type StorageQuota } from '../storage-quota.ts';
import type { RepoCache } from '../repo-cache.ts';
import { GitCommandError } from '../../../src/git/run-git.ts';
import { completeTips, isConnected, MAX_TIP_WALKS, objectTypes } from './connectivity.ts';
import { reportBody, type CommandStatus } from './report.ts';
import { readReceivePackRequest, type RefCommand } from './request.ts';

/** How old a head a push may start its publish from (far below log retention's grace period). */
const HEAD_MAX_AGE_MS = 30_000;

/** Why a push (or part of one) was refused: the `reason` label of `service_push_refused_total`. */
export type RefusalReason = 'body' | 'spool' | 'unpack' | 'connectivity' | 'invalid' | 'stale' | 'quota' | 'ref_limit';

export interface ReceivePackOptions {
  readonly repos: RepoStore;
  readonly cache: RepoCache;
  /** The largest pack a push may send. */
  readonly maxPackBytes: number;
  /** Counts the pack against what the owner's and every receive may hold on the disk at once (spool-budget.ts). */
  readonly spool?: SpoolMeter;
  /** What the repository may store: a pack that would pass it is refused (storage-quota.ts). */
  readonly quota?: StorageQuota;
  readonly onRefused?: (reason: RefusalReason) => void;
  /** A published pack could not be moved into the cached copy (`service_publish_local_apply_failed_total`). */
  readonly onLocalApplyFailed?: (error: unknown) => void;
}

export interface PushInput {
  readonly repo: string;
  readonly body: AsyncIterable<Uint8Array>;
  readonly pusher: string;
  readonly requestId: string;
  readonly signal?: AbortSignal;
  /** Called once the commands are read, before the pack: what the client negotiated. */
  readonly onNegotiated?: (negotiated: { sideband: boolean }) => void;
}

export interface PushOutcome {
  /** The `application/x-git-receive-pack-result` body. */
  readonly body: Buffer;
  /** The log entry that published the push, if anything was published. */
  readonly seq?: number;
}

export async function receivePack(input: PushInput, options: ReceivePackOptions): Promise<PushOutcome> {
  const reader = new PktReader(input.body);
  const request = await readReceivePackRequest(reader);
  if (!request) return { body: Buffer.alloc(0) };
  // Fresh whatever wal.freshness_ttl says: a thin pack may use any object pushed anywhere until now.
  const { dir, head } = await options.cache.sync(input.repo, { fresh: true });
  const sideband = request.capabilities.has('side-band-64k');
  input.onNegotiated?.({ sideband });
  const atomic = request.capabilities.has('atomic');
  const zero = zeroOid(head.objectFormat);
  const verdicts = new Map<string, CommandStatus>();
  const refuse = (ref: string, reason: string, label: RefusalReason) => {
    if (!verdicts.has(ref)) options.onRefused?.(label);
    verdicts.set(ref, { ref, ok: false, reason });
  };
  const report = (unpack: string, progress: string[] = []) => reportBody({ unpack, commands: request.commands.map((c) => verdicts.get(c.ref) ?? { ref: c.ref, ok: true }) }, sideband, progress);

  const seen = new Set<string>();
  for (const command of request.commands) {
    const problem = commandProblem(command, head.objectFormat, seen);
    if (problem) refuse(command.ref, problem, 'invalid');
    seen.add(command.ref);
  }

  // A repository already at its ref limit (counting the push's own deletions) takes no create: refused before the
  // pack is read, since publishing would refuse them after index-pack had spent CPU and disk on their objects. With
  // room for some, the publish decides which (a create refused for other reasons leaves room for another).
  const maxRefs = options.repos.maxRefs;
  const deletions = request.commands.filter((c) => !verdicts.has(c.ref) && c.new === zero && head.refs.has(c.ref)).length;
  if (head.refs.size - deletions >= maxRefs) {
    for (const command of request.commands) {
      if (verdicts.has(command.ref) || command.new === zero || head.refs.has(command.ref)) continue;
      refuse(command.ref, rejection({ ref: command.ref, status: 'rejected', reason: 'too many refs', maxRefs }), 'ref_limit');
    }
  }
  if (atomic && verdicts.size > 0) {
    for (const command of request.commands) if (!verdicts.has(command.ref)) refuse(command.ref, 'atomic push failure', 'invalid');
  }

  let quarantine: Quarantine | undefined;
  let reservation: QuotaReservation | undefined;
  try {
    let pack: IndexedPack | undefined;
    if (!request.commands.some((c) => !verdicts.has(c.ref) && c.new !== zero)) {
      // Nothing left needs the pack: read past it unindexed (the client sends it whole before it reads the report).
      await discard(reader.rest(), options.maxPackBytes);
    } else {
      quarantine = await Quarantine.create(options.cache.tmpDir, dir);
      try {
        pack = await quarantine.indexPack(Readable.from(reader.rest()), options.maxPackBytes, input.signal, options.spool);
      } catch (error) {
        const label = error instanceof PackTooLargeError ? 'body' : error instanceof SpoolFullError ? 'spool' : 'unpack';
        const message = error instanceof PackTooLargeError || error instanceof SpoolFullError ? error.message : unpackFailure(error);
        for (const command of request.commands) refuse(command.ref, 'unpacker error', label);
        return { body: report(message) };
      }
    }
    const env = quarantine?.env ?? { GIT_DIR: dir };
    await checkObjects(
      request.commands.filter((c) => !verdicts.has(c.ref) && c.new !== zero),
      env,
      refuse,
    );
    if (atomic && verdicts.size > 0) {
      for (const command of request.commands) if (!verdicts.has(command.ref)) refuse(command.ref, 'atomic push failure', 'invalid');
    }

    // The pack goes up only for updates still accepted that need it (deletions do not).
    const needsPack = request.commands.some((c) => !verdicts.has(c.ref) && c.new !== zero);
    let stored = pack && pack.objects > 0 && needsPack ? pack : undefined;
    const progress: string[] = [];
    if (stored && options.quota) {
      try {
        reservation = await options.quota.reserve(parseRepoPath(input.repo), stored.packBytes + stored.idxBytes);
      } catch (error) {
        if (!(error instanceof StorageQuotaError)) throw error;
        // Deletions need no pack and go on; git shows the reason beside each refused ref (`[remote rejected] main ->
        // main (over the storage quota)`), the message as `remote:` lines. A ref refused already keeps its reason.
        for (const command of request.commands) if (!verdicts.has(command.ref) && (atomic || command.new !== zero)) refuse(command.ref, 'over the storage quota', 'quota');
        progress.push(error.message);
        stored = undefined;
      }
    }
    const updates: RefUpdate[] = request.commands.filter((c) => !verdicts.has(c.ref)).map((c) => ({ ref: c.ref, old: c.old, new: c.new }));
    if (updates.length === 0) return { body: report('ok', progress) };
    const result = await options.repos.publish(input.repo, {
      kind: 'push',
      refUpdates: updates,
      pack: stored ? packUpload(stored) : undefined,
      pusher: input.pusher,
      requestId: input.requestId,
      atomic,
      // cache.sync read the head when this request began: publishing from it saves a request per push.
      headMaxAgeMs: HEAD_MAX_AGE_MS,
    });
    for (const ref of result.refs) if (ref.status === 'rejected') refuse(ref.ref, rejection(ref), ref.reason === 'too many refs' ? 'ref_limit' : 'stale');
    if (result.outcome !== 'published') return { body: report('ok', progress) };
    reservation?.published();
    if (stored && quarantine) await applyLocally(options.cache, input.repo, quarantine, stored, options.onLocalApplyFailed);
    if (!request.capabilities.has('quiet')) progress.push(`cloudwright: published as seq ${result.seq}`);
    return { body: report('ok', progress), seq: result.seq };
  } finally {
    reservation?.release();
    await quarantine?.dispose();
  }
}

function commandProblem(command: RefCommand, format: 'sha1' | 'sha256', seen: ReadonlySet<string>): string | undefined {
  if (!isValidRefName(command.ref)) return 'funny refname';
  if (!isOid(command.old, format) || !isOid(command.new, format)) return `object ids are not ${format}`;
  if (seen.has(command.ref)) return 'updated twice in one push';
  if (/^0+$/.test(command.old) && /^0+$/.test(command.new)) return 'old and new are both the zero object id';
  return undefined;
}

const NONE_INCOMPLETE = { incomplete: new Set<string>(), undecided: new Set<string>() };

/**
 * git's checks of new tips: present, a commit for a branch, and their history complete. One walk for the usual push;
 * when it fails, the tips are walked by halves (`completeTips`), so one incomplete history refuses only its own refs,
 * as git does, not every ref of the push, at a bounded number of walks one after another.
 */
async function checkObjects(commands: readonly RefCommand[], env: Record<string, string>, refuse: (ref: string, reason: string, label: RefusalReason) => void): Promise<void> {
  const tips = [...new Set(commands.map((c) => c.new))];
  const [types, allComplete] = await Promise.all([objectTypes(tips, env), isConnected(tips, env)]);
  const present = (oid: string) => types.get(oid) !== undefined && types.get(oid) !== 'missing';
  // A tip that is not there is refused as it is: walking it again would only say so again.
  const { incomplete, undecided } = allComplete ? NONE_INCOMPLETE : await completeTips(tips.filter(present), (group) => isConnected(group, env));
  for (const command of commands) {
    const type = types.get(command.new);
    if (!present(command.new)) refuse(command.ref, 'missing necessary objects', 'connectivity');
    else if (command.ref.startsWith('refs/heads/') && type !== 'commit') refuse(command.ref, `a branch must point to a commit, not a ${type}`, 'invalid');
    else if (incomplete.has(command.new)) refuse(command.ref, 'missing necessary objects', 'connectivity');
    else if (undecided.has(command.new))
      refuse(command.ref, `not checked: this push has too many tips with incomplete histories (over ${MAX_TIP_WALKS} walks); push fewer refs at a time`, 'connectivity');
  }
}

/**
 * Moves a published pack from its quarantine into the cached copy, which saves downloading it again on the next
 * sync. Never throws: the bucket has the pack, so losing it here (a crash, a file system error) costs only that
 * download; `onFailed` hears of the error.
 */
export async function applyLocally(cache: RepoCache, repo: string, quarantine: Quarantine, pack: IndexedPack, onFailed?: (error: unknown) => void): Promise<void> {
  await cache.exclusive(repo, () => quarantine.adopt(pack)).catch((error: unknown) => onFailed?.(error));
}

/** The store upload of an indexed pack (its `.pack` and `.idx`). */
export function packUpload(pack: IndexedPack) {
  return {
    body: { length: pack.packBytes, open: () => createReadStream(pack.packPath) },
    idx: { length: pack.idxBytes, open: () => createReadStream(pack.idxPath) },
  };
}

function rejection(result: Extract<RefResult, { status: 'rejected' }>): string {
  // git's words for a ref that moved since the client looked: it must fetch and merge first.
  if (result.reason === 'stale old value') return 'fetch first';
  if (result.reason === 'ref name conflict') return `cannot create '${result.ref}': it conflicts with '${result.conflictsWith ?? ''}' (a ref cannot also be a directory of refs)`;
  // git prints it beside the ref: `! [remote rejected] x -> x (too many refs: …)`.
  if (result.reason === 'too many refs' && result.maxRefs !== undefined) return `too many refs: the repository may hold at most ${result.maxRefs}; delete some first`;
  return result.reason;
}

/** What the push's report says when index-pack refused the pack: git's own first complaint (an fsck error, say). */
function unpackFailure(error: unknown): string {
  const stderr = error instanceof GitCommandError ? error.stderr : '';
  const complaint = stderr
    .split('\n')
    .map((line) => line.trim())
    .find((line) => line.startsWith('error:') || line.startsWith('fatal:'));
  return complaint ? `index-pack failed: ${complaint.replace(/^(error|fatal):\s*/, '').slice(0, 200)}` : 'index-pack failed';
}

/** Reads `body` to its end, keeping nothing; stops past `maxBytes` (the connection is closed after the answer then). */
async function discard(body: AsyncIterable<Uint8Array>, maxBytes: number): Promise<void> {
  let read = 0;
  for await (const chunk of body) {
    read += chunk.byteLength;
    if (read > maxBytes) return;
  }
}
