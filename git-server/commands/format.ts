// What the admin commands print: one line per log entry, the repository summary, and their JSON forms. Pure.
import { logEntryJson, type LogEntry, type RefUpdate } from '../../src/repo-store/index.ts';
import { printable } from './args.ts';

/** The summary `cw-git repo info` prints. */
export interface RepoInfo {
  readonly repo: string;
  readonly objectFormat: string;
  readonly headSeq: number;
  readonly headRef: string;
  readonly logStart: number;
  readonly checkpointSeq: number | null;
  /** Created and never published to. */
  readonly pristine: boolean;
  readonly refs: { readonly total: number; readonly branches: number; readonly tags: number; readonly other: number };
  readonly packs: { readonly count: number; readonly bytes: number };
  /** Objects in the synced bare repository (`git count-objects -v`: in-pack + loose). */
  readonly objects: number;
  readonly cacheDir: string;
}

/** `1234567` → `1.2 MiB`. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${units[unit]}`;
}

const isZero = (oid: string) => /^0+$/.test(oid);
const short = (oid: string) => oid.slice(0, 10);

/** `refs/heads/main 1a2b3c4d5e..6f7a8b9c0d`, `refs/tags/v1 created 1a2b…`, `refs/heads/x deleted (was 1a2b…)`. */
export function formatRefUpdate(u: RefUpdate): string {
  if (isZero(u.old)) return `${u.ref} created ${short(u.new)}`;
  if (isZero(u.new)) return `${u.ref} deleted (was ${short(u.old)})`;
  return `${u.ref} ${short(u.old)}..${short(u.new)}`;
}

/** The header of `wal ls`, aligned with `formatEntryLine`. */
export const ENTRY_HEADER = `${'SEQ'.padStart(8)}  ${'KIND'.padEnd(10)}  ${'TIME'.padEnd(24)}  ${'PUSHER'.padEnd(16)}  REF UPDATES`;

/** One line of `wal ls`: seq, kind, time, pusher, ref updates. Control characters are escaped. */
export function formatEntryLine(entry: LogEntry): string {
  const refs = entry.refUpdates.map(formatRefUpdate).join(', ');
  return printable(`${String(entry.seq).padStart(8)}  ${entry.kind.padEnd(10)}  ${entry.at.padEnd(24)}  ${entry.pusher.padEnd(16)}  ${refs}`);
}

/** An entry as `wal show` and `wal ls --json` print it: the log's own JSON shape (seqs as decimal strings). */
export function entryJson(repo: string, entry: LogEntry): Record<string, unknown> {
  return { repo, ...logEntryJson(entry) };
}

/** Counts refs by kind. */
export function countRefs(names: Iterable<string>): RepoInfo['refs'] {
  let total = 0;
  let branches = 0;
  let tags = 0;
  for (const name of names) {
    total++;
    if (name.startsWith('refs/heads/')) branches++;
    else if (name.startsWith('refs/tags/')) tags++;
  }
  return { total, branches, tags, other: total - branches - tags };
}

/** The fields of `git count-objects -v` (`count`, `in-pack`, `size-pack`, ...) as numbers. */
export function parseCountObjects(text: string): Record<string, number> {
  const fields: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const match = /^([a-z-]+): (\d+)$/.exec(line.trim());
    if (match) fields[match[1] as string] = Number(match[2]);
  }
  return fields;
}

export function formatRepoInfo(info: RepoInfo): string {
  const { refs, packs } = info;
  const rows: [string, string][] = [
    ['repository', info.repo],
    ['object format', info.objectFormat],
    ['head seq', `${info.headSeq} (log kept from ${info.logStart}, checkpoint ${info.checkpointSeq ?? 'none'})`],
    ['head ref', info.headRef],
    ['pristine', info.pristine ? 'yes' : 'no'],
    ['refs', `${refs.total} (${refs.branches} branches, ${refs.tags} tags${refs.other ? `, ${refs.other} other` : ''})`],
    ['live packs', `${packs.count}, ${formatBytes(packs.bytes)}${packs.bytes >= 1024 ? ` (${packs.bytes} bytes)` : ''}`],
    ['objects', String(info.objects)],
    ['synced into', info.cacheDir],
  ];
  return rows.map(([k, v]) => `${k.padEnd(14)}${printable(v)}`).join('\n') + '\n';
}

/** `repo info --json`: the summary with seqs as decimal strings, as everywhere in the service's JSON. */
export function repoInfoJson(info: RepoInfo): Record<string, unknown> {
  return {
    ...info,
    headSeq: String(info.headSeq),
    logStart: String(info.logStart),
    checkpointSeq: info.checkpointSeq === null ? null : String(info.checkpointSeq),
  };
}

/** One row of `wal pending`: the marker and what waits in its repository. */
export interface PendingRow {
  readonly repo: string;
  readonly key: string;
  readonly marked_at: string;
  /** `null` when the repository is gone (the maintainer drops the marker). */
  readonly head_seq: string | null;
  readonly entries_since_checkpoint: number;
  readonly packs: number;
  readonly due: readonly string[];
}

export const PENDING_HEADER = `${'REPOSITORY'.padEnd(32)}  ${'MARKED AT'.padEnd(24)}  ${'HEAD SEQ'.padStart(8)}  ${'SINCE CP'.padStart(8)}  ${'PACKS'.padStart(5)}  DUE`;

export function formatPendingLine(row: PendingRow): string {
  const due = row.head_seq === null ? 'repository gone' : row.due.length > 0 ? row.due.join(', ') : 'nothing (done since marked)';
  return printable(
    `${row.repo.padEnd(32)}  ${row.marked_at.padEnd(24)}  ${(row.head_seq ?? '-').padStart(8)}  ${String(row.entries_since_checkpoint).padStart(8)}  ${String(row.packs).padStart(5)}  ${due}`,
  );
}
