// `cw-git wal materialize <repo> --at-seq <seq> --out <dir>`: a bare repository equal to the repository as
// of one seq (refs as they were then, every object they reach), for inspection or recovery.
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { SYNC_STATE_DIR, syncBareRepo } from '../../src/git/bare-repo.ts';
import { seqArgument, UsageError } from './args.ts';
import { repoArgument, writeJson, type Command } from './command.ts';

export const walMaterialize: Command = {
  name: 'wal materialize',
  summary: 'write a bare git repository holding the repository as of one seq',
  positionals: ['owner/repo'],
  options: {
    'at-seq': { type: 'string', value: 'seq', help: 'the seq to materialize (0 is the pristine repository)', required: true },
    out: { type: 'string', value: 'dir', help: 'a new or empty directory to write the bare repository into', required: true },
  },
  json: true,
  details: 'The result has the refs of that seq, HEAD pointing at the current head ref, and passes `git fsck`.',
  async run(invocation, context, out) {
    const repo = repoArgument(invocation);
    const seq = seqArgument(String(invocation.options['at-seq']), '--at-seq', 'wal materialize');
    const dir = resolve(String(invocation.options.out));
    const created = await prepareEmptyDir(dir);
    try {
      const head = await context.repos.readHead(repo);
      const state = await context.repos.stateAt(repo, seq);
      await syncBareRepo({ repos: context.repos, repo, head, state, dir });
      // The sync's bookkeeping is for keeping a cache current; a materialized repository is a plain one.
      await rm(join(dir, SYNC_STATE_DIR), { recursive: true, force: true });
      const summary = { repo, seq: String(seq), dir, headRef: head.headRef, refs: state.refs.size, packs: state.packs.length };
      if (invocation.json) await writeJson(out, summary);
      else await out.write(`materialized ${repo} at seq ${seq} into ${dir}: ${summary.refs} refs, ${summary.packs} packs, HEAD → ${head.headRef}\n`);
    } catch (err) {
      // Leave nothing half-written behind: the directory as it was (absent, or empty).
      if (created) await rm(dir, { recursive: true, force: true });
      else for (const name of await readdir(dir).catch(() => [])) await rm(join(dir, name), { recursive: true, force: true });
      throw err;
    }
  },
};

/** Creates `dir` (answering true), or accepts an existing empty directory; refuses anything else. */
async function prepareEmptyDir(dir: string): Promise<boolean> {
  const info = await stat(dir).catch(() => undefined);
  if (!info) {
    await mkdir(dir, { recursive: true });
    return true;
  }
  if (!info.isDirectory()) throw new UsageError(`--out ${dir} exists and is not a directory`, 'wal materialize');
  if ((await readdir(dir)).length > 0) throw new UsageError(`--out ${dir} is not empty; give a new or empty directory`, 'wal materialize');
  return false;
}
