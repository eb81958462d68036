// `cw-git repo info <owner/repo>`: a full sync of the repository from the bucket into a local bare copy (which
// proves every live pack is there and usable), then a summary of its head.
import { packBytes } from '../../src/repo-store/state.ts';
import { RepoCache } from '../plumbing/repo-cache.ts';
import { runGit } from '../../src/git/run-git.ts';
import { repoArgument, writeJson, type Command } from './command.ts';
import { countRefs, formatRepoInfo, parseCountObjects, repoInfoJson, type RepoInfo } from './format.ts';

export const repoInfo: Command = {
  name: 'repo info',
  summary: 'sync a repository from the bucket into <cache.dir>/admin and summarise it',
  positionals: ['owner/repo'],
  options: {},
  json: true,
  details: 'Shows head seq, head ref, whether it is pristine, refs by kind, live packs and their bytes, and the object count git sees in the synced copy.',
  async run(invocation, context, out) {
    const repo = repoArgument(invocation);
    const { dir, head } = await new RepoCache({ repos: context.repos, dir: context.syncRoot }).sync(repo);
    const counts = parseCountObjects((await runGit(['-C', dir, 'count-objects', '-v'])).stdout.toString());
    const info: RepoInfo = {
      repo: head.repo,
      objectFormat: head.objectFormat,
      headSeq: head.seq,
      headRef: head.headRef,
      logStart: head.logStart,
      checkpointSeq: head.checkpoint?.seq ?? null,
      pristine: head.seq === 0,
      refs: countRefs(head.refs.keys()),
      packs: { count: head.packs.length, bytes: packBytes(head.packs) },
      objects: (counts['in-pack'] ?? 0) + (counts.count ?? 0),
      cacheDir: dir,
    };
    await (invocation.json ? writeJson(out, repoInfoJson(info)) : out.write(formatRepoInfo(info)));
  },
};
