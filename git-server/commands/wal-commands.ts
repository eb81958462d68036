// `cw-git wal pending|ls|show`: reading the write-ahead log of the bucket the configuration names.
import { seqArgument, UsageError } from './args.ts';
import { repoArgument, writeJson, type Command } from './command.ts';
import { ENTRY_HEADER, entryJson, formatEntryLine, formatPendingLine, PENDING_HEADER } from './format.ts';
import { pendingWork } from './pending-work.ts';

// Entries read per request round; `listLog` reads a page's entries in parallel.
const PAGE = 100;

export const walPending: Command = {
  name: 'wal pending',
  summary: 'list the maintenance markers and what waits in each repository (checkpoint, compaction); manual check only',
  positionals: [],
  options: {},
  json: true,
  details:
    "Lists the bucket-wide markers under pending/ with each repository's head: entries since its checkpoint and live packs, and which of them makes maintenance due. It only reads: the maintainer acts on them.",
  async run(invocation, context, out) {
    const markers = await context.repos.listPending();
    if (!invocation.json && markers.length === 0) return out.write('no pending maintenance markers\n');
    if (!invocation.json) await out.write(`${PENDING_HEADER}\n`);
    for (const marker of markers) {
      const waiting = await pendingWork(context.repos, marker.repo);
      const row = { repo: marker.repo, key: marker.key, marked_at: marker.markedAt.toISOString(), ...waiting };
      if (invocation.json) await writeJson(out, row);
      else await out.write(`${formatPendingLine(row)}\n`);
    }
  },
};

export const walLs: Command = {
  name: 'wal ls',
  summary: 'list committed log entries: seq, kind, time, pusher, ref updates',
  positionals: ['owner/repo'],
  options: {
    from: { type: 'string', value: 'seq', help: 'first seq to list (default: the oldest kept entry)' },
    limit: { type: 'string', value: 'n', help: 'list at most n entries (default: all up to the head)' },
  },
  json: true,
  details: 'With --json, one entry per line as `wal show` prints it. A first seq later than --from means the log before it was folded into a checkpoint.',
  async run(invocation, context, out) {
    const repo = repoArgument(invocation);
    const from = invocation.options.from === undefined ? 1 : seqArgument(String(invocation.options.from), '--from', 'wal ls');
    const limit = invocation.options.limit === undefined ? Infinity : seqArgument(String(invocation.options.limit), '--limit', 'wal ls');
    if (!invocation.json) await out.write(`${ENTRY_HEADER}\n`);
    let next: number | undefined = from;
    let left = limit;
    while (next !== undefined && left > 0) {
      const page = await context.repos.listLog(repo, next, { limit: Math.min(PAGE, left) });
      for (const entry of page.entries) await (invocation.json ? writeJson(out, entryJson(repo, entry)) : out.write(`${formatEntryLine(entry)}\n`));
      left -= page.entries.length;
      next = page.entries.length === 0 ? undefined : page.next;
    }
  },
};

export const walShow: Command = {
  name: 'wal show',
  summary: 'print one committed log entry as JSON',
  positionals: ['owner/repo', 'seq'],
  options: {},
  json: false,
  async run(invocation, context, out) {
    const repo = repoArgument(invocation);
    const seq = seqArgument(invocation.positionals[1] as string, '<seq>', 'wal show');
    const entry = await context.repos.readEntry(repo, seq);
    if (!entry) {
      const head = await context.repos.readHead(repo);
      const why = seq > head.seq ? `its head is seq ${head.seq}` : `its log is kept from seq ${head.logStart}`;
      throw new UsageError(`${repo} has no entry at seq ${seq}: ${why}`, 'wal show');
    }
    await out.write(`${JSON.stringify(entryJson(repo, entry), null, 2)}\n`);
  },
};
