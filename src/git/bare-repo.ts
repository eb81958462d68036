// A local bare git repository that mirrors one state of a repository in the bucket: what `git upload-pack`
// serves from, and what `cw-git repo info` and `wal materialize` build. The bucket is the repository; this
// directory is a cache of it, brought to a given state incrementally and safely under a concurrent reader.
//
// Layout besides git's own files: `cloudwright/packs/<sha256>` records which bucket pack is which git pack
// (git names a pack by its trailing checksum, which is not known before the bytes are), so a sync fetches
// only packs it has not placed yet. It goes by content: a copy under another bucket key has the same bytes.
// `cloudwright/tmp/` holds downloads until they are renamed into place.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { join } from 'node:path';
import type { RepoHead, RepoState, LivePack, ObjectFormat } from '../repo-store/index.ts';
import { packObjectName } from '../repo-store/pack-object.ts';
import type { RepoStore } from '../repo-store/repo-store.ts';
import { runGit } from './run-git.ts';

export interface SyncBareRepoOptions {
  readonly repos: RepoStore;
  readonly repo: string;
  readonly head: Pick<RepoHead, 'headRef' | 'objectFormat'>;
  readonly state: RepoState;
  /** The bare repository; created (with its parents) when absent. */
  readonly dir: string;
  /**
   * Called for a live pack that cannot be fetched or does not verify, which is then left out instead of
   * failing the sync (fsck wants to see what is missing, not stop at the first gap).
   */
  readonly onUnavailable?: (sha256: string, error: PackUnavailableError) => void;
}

/** A live pack missing from the bucket, or bytes that are not the pack the manifest names. */
export class PackUnavailableError extends Error {
  override readonly name = 'PackUnavailableError';
}

/** The directory inside the bare repository where the sync keeps its bookkeeping (removable: a sync rebuilds it). */
export const SYNC_STATE_DIR = 'cloudwright';
const CHECKSUM_BYTES: Record<ObjectFormat, number> = { sha1: 20, sha256: 32 };
const PACK_FILE = /^(pack-[0-9a-f]+)\.(pack|idx|rev|bitmap|keep|promisor|mtimes)$/;
// Packs fetched at once: enough to hide the store's latency, few enough to bound memory (each is held whole).
const DOWNLOADS_AT_ONCE = 4;
// Config a cache needs: git must never repack or prune it behind our back (that would rename the packs we
// track), nor keep reflogs of refs we replace wholesale. (`init.defaultRefFormat=files` at init: we write
// `packed-refs` ourselves, whatever a user's git config prefers.)
const CACHE_CONFIG = '[gc]\n\tauto = 0\n[receive]\n\tautogc = false\n[core]\n\tlogAllRefUpdates = false\n';

/**
 * Makes `dir` a bare git repository holding exactly `state`: every live pack in `objects/pack/` under git's
 * name for it (`pack-<trailing checksum>`), the refs as one `packed-refs` file, and HEAD → `head.headRef`.
 *
 * Safe for a concurrent `git upload-pack` on `dir`: packs are placed (`.pack` renamed before `.idx`) before
 * the refs that need them, and the refs change by one rename, so a reader sees the old or the new ref set,
 * never a mix, and every object either names. A live pack already in `objects/pack/` (a push moved it there
 * after publishing it) is recognised by its digest and not fetched. Packs this function placed or recognised
 * that the state no longer lists are removed after the refs moved; other files are left alone. Callers serialise
 * calls per `dir`. Throws `PackUnavailableError` when a live pack cannot be fetched or does not verify.
 */
export async function syncBareRepo(options: SyncBareRepoOptions): Promise<void> {
  const { dir, head, state } = options;
  await ensureBareRepo(dir, head.objectFormat);
  const placed = await placedPacks(dir);
  await recognisePacks(
    dir,
    state.packs.filter((p) => !placed.has(p.sha256)),
    placed,
  );
  const missing = state.packs.filter((p) => !placed.has(p.sha256));
  for (let i = 0; i < missing.length; i += DOWNLOADS_AT_ONCE) {
    await Promise.all(
      missing.slice(i, i + DOWNLOADS_AT_ONCE).map(async (p) => {
        try {
          placed.set(p.sha256, await placePack(options, p));
        } catch (err) {
          if (!(err instanceof PackUnavailableError) || !options.onUnavailable) throw err;
          options.onUnavailable(p.sha256, err);
        }
      }),
    );
  }
  await replaceIfChanged(dir, 'packed-refs', packedRefs(state.refs));
  await removeLooseRefs(join(dir, 'refs'));
  await writeHead(dir, head.headRef);
  await removeDeadPacks(dir, placed, new Set(state.packs.map((p) => p.sha256)));
}

/** The `packed-refs` file of `refs` (already in git's order): peeled values are left for git to compute. */
export function packedRefs(refs: ReadonlyMap<string, string>): string {
  // "sorted" lets git binary-search; no "peeled" trait, since we do not write `^` lines.
  let text = '# pack-refs with: sorted \n';
  for (const [name, oid] of refs) text += `${oid} ${name}\n`;
  return text;
}

/** Git's name of a pack: `pack-` and the hex of its trailing checksum. */
export function gitPackName(pack: Uint8Array, format: ObjectFormat): string {
  const n = CHECKSUM_BYTES[format];
  if (pack.byteLength < 12 + n || Buffer.from(pack.subarray(0, 4)).toString('latin1') !== 'PACK') throw new PackUnavailableError('not a git pack');
  return `pack-${Buffer.from(pack.subarray(pack.byteLength - n)).toString('hex')}`;
}

/** Whether `idx` indexes the pack named `name`: an index ends with the pack's checksum, then its own. */
export function indexMatchesPack(idx: Uint8Array, name: string, format: ObjectFormat): boolean {
  const n = CHECKSUM_BYTES[format];
  if (idx.byteLength < 2 * n) return false;
  return Buffer.from(idx.subarray(idx.byteLength - 2 * n, idx.byteLength - n)).toString('hex') === name.slice('pack-'.length);
}

async function ensureBareRepo(dir: string, format: ObjectFormat): Promise<void> {
  const formatFile = join(dir, SYNC_STATE_DIR, 'object-format');
  const known = await readFile(formatFile, 'utf8').catch(() => undefined);
  if (known === undefined) {
    if (!(await exists(join(dir, 'HEAD')))) {
      await mkdir(dir, { recursive: true });
      await runGit(['-c', 'init.defaultRefFormat=files', 'init', '--quiet', '--bare', `--object-format=${format}`, dir]);
      await writeFile(join(dir, 'config'), CACHE_CONFIG, { flag: 'a' });
    }
    const found = (await runGit(['-C', dir, 'rev-parse', '--show-object-format'])).stdout.toString().trim();
    await mkdir(join(dir, SYNC_STATE_DIR, 'packs'), { recursive: true });
    await writeFile(formatFile, found);
    return checkFormat(dir, found, format);
  }
  checkFormat(dir, known, format);
}

function checkFormat(dir: string, found: string, wanted: ObjectFormat): void {
  if (found !== wanted) throw new Error(`${dir} is a ${found} repository; the repository is ${wanted}`);
}

/** sha256 of a bucket pack → git's name for it, for every pack placed here and still present. */
export async function placedPacks(dir: string): Promise<Map<string, string>> {
  const markers = join(dir, SYNC_STATE_DIR, 'packs');
  const placed = new Map<string, string>();
  const present = new Set(await readdir(join(dir, 'objects', 'pack')));
  for (const sha256 of await readdir(markers)) {
    const name = (await readFile(join(markers, sha256), 'utf8')).trim();
    // A pack deleted by hand is fetched again rather than trusted.
    if (present.has(`${name}.pack`) && present.has(`${name}.idx`)) placed.set(sha256, name);
  }
  return placed;
}

/**
 * Finds live packs that are in `objects/pack/` without a marker (moved in by a push that published them, or
 * placed by a sync that died before its marker) by size and then digest, and records them: not fetched again.
 */
async function recognisePacks(dir: string, unplaced: readonly LivePack[], placed: Map<string, string>): Promise<void> {
  if (unplaced.length === 0) return;
  const packDir = join(dir, 'objects', 'pack');
  const known = new Set(placed.values());
  const files = new Set(await readdir(packDir));
  for (const file of files) {
    const name = PACK_FILE.exec(file)?.[1];
    if (!name || !file.endsWith('.pack') || known.has(name) || !files.has(`${name}.idx`)) continue;
    const size = (await stat(join(packDir, file))).size;
    const candidates = unplaced.filter((p) => p.size === size && !placed.has(p.sha256));
    if (candidates.length === 0) continue;
    const digest = await fileSha256(join(packDir, file));
    const match = candidates.find((p) => p.sha256 === digest);
    if (!match) continue;
    await writeFile(join(dir, SYNC_STATE_DIR, 'packs', match.sha256), `${name}\n`);
    placed.set(match.sha256, name);
  }
}

export async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Fetches a live pack (and its index, or builds one) and renames both into `objects/pack/`. The pack is
 * streamed to disk while it is hashed (packs run to gigabytes); the index, a few percent of it, is read whole.
 */
async function placePack(options: SyncBareRepoOptions, pack: LivePack): Promise<string> {
  const { repos, repo, dir, head } = options;
  const tmp = join(dir, SYNC_STATE_DIR, 'tmp');
  await mkdir(tmp, { recursive: true });
  const base = join(tmp, `${randomBytes(8).toString('hex')}`);
  try {
    const [stream, published] = await Promise.all([repos.streamPack(repo, pack), pack.idxSize === null ? undefined : repos.readPackIndex(repo, pack)]);
    if (!stream) throw new PackUnavailableError(`pack ${packObjectName(pack)} of ${repo} is not in the bucket`);
    const hash = createHash('sha256');
    await pipeline(stream.body, new Transform({ transform: (chunk: Buffer, _encoding, done) => done(null, (hash.update(chunk), chunk)) }), createWriteStream(`${base}.pack`));
    if (hash.digest('hex') !== pack.sha256) throw new PackUnavailableError(`pack ${packObjectName(pack)} of ${repo} does not match its digest`);
    const name = gitPackName(await packEnds(`${base}.pack`, head.objectFormat), head.objectFormat);
    if (published && indexMatchesPack(published, name, head.objectFormat)) {
      await writeFile(`${base}.idx`, published);
    } else {
      // No index in the bucket (or one for other bytes): build it, which also verifies every object.
      await runGit(['-C', dir, 'index-pack', '-o', `${base}.idx`, `${base}.pack`]);
    }
    const target = join(dir, 'objects', 'pack', name);
    // The pack first: git looks for packs by their .idx, so it never finds an index without its pack.
    await rename(`${base}.pack`, `${target}.pack`);
    await rename(`${base}.idx`, `${target}.idx`);
    await writeFile(join(dir, SYNC_STATE_DIR, 'packs', pack.sha256), `${name}\n`);
    return name;
  } finally {
    await rm(`${base}.pack`, { force: true });
    await rm(`${base}.idx`, { force: true });
    await rm(`${base}.rev`, { force: true });
  }
}

/** Replaces `dir/file` by write + rename, unless it already has `content`. */
/** Points the copy's HEAD at `headRef` (a retarget moves no ref, so it can come without a new seq). */
export async function writeHead(dir: string, headRef: string): Promise<void> {
  await replaceIfChanged(dir, 'HEAD', `ref: ${headRef}\n`);
}

async function replaceIfChanged(dir: string, file: string, content: string): Promise<void> {
  const path = join(dir, file);
  if ((await readFile(path, 'utf8').catch(() => undefined)) === content) return;
  const tmp = join(dir, SYNC_STATE_DIR, `${file}.${randomBytes(6).toString('hex')}.tmp`);
  await writeFile(tmp, content);
  await rename(tmp, path);
}

/** Removes every loose ref under `refs/` (a loose ref would override its packed value). */
async function removeLooseRefs(refsDir: string): Promise<void> {
  for (const entry of await readdir(refsDir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) await unlink(join(entry.parentPath, entry.name)).catch(() => {});
  }
}

/** Removes the packs this function placed that `live` no longer lists, with their markers. */
async function removeDeadPacks(dir: string, placed: ReadonlyMap<string, string>, live: ReadonlySet<string>): Promise<void> {
  const dead = new Set<string>();
  for (const [sha256, name] of placed) {
    if (live.has(sha256)) continue;
    dead.add(name);
    await unlink(join(dir, SYNC_STATE_DIR, 'packs', sha256));
  }
  if (dead.size === 0) return;
  const packDir = join(dir, 'objects', 'pack');
  // The index first, the reverse of placing: git never finds an index whose pack is gone.
  const files = (await readdir(packDir)).filter((f) => dead.has(PACK_FILE.exec(f)?.[1] ?? ''));
  files.sort((a, b) => Number(b.endsWith('.idx')) - Number(a.endsWith('.idx')));
  for (const file of files) await unlink(join(packDir, file)).catch(() => {});
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** The pack's header and trailing checksum, as `gitPackName` reads them, without reading the whole file. */
async function packEnds(path: string, format: ObjectFormat): Promise<Uint8Array> {
  const n = CHECKSUM_BYTES[format];
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    if (size < 12 + n) return new Uint8Array(0);
    const ends = Buffer.alloc(12 + n);
    await file.read(ends, 0, 12, 0);
    await file.read(ends, 12, n, size - n);
    return ends;
  } finally {
    await file.close();
  }
}

/**
 * Brings the sync's bookkeeping in line after git rewrote `objects/pack/` (a compaction's repack): markers of
 * packs git removed are dropped, and `added` (bucket sha256 → git's name) are recorded, so the next sync
 * neither fetches the new packs again nor looks for the removed ones.
 */
export async function recordRepack(dir: string, removed: Iterable<string>, added: ReadonlyMap<string, string>): Promise<void> {
  for (const sha256 of removed) await unlink(join(dir, SYNC_STATE_DIR, 'packs', sha256)).catch(() => {});
  for (const [sha256, name] of added) await writeFile(join(dir, SYNC_STATE_DIR, 'packs', sha256), `${name}\n`);
}
