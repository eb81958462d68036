// The admin commands against what stock git pushed through the service: `wal ls` shows each push with its
// pusher, and `wal materialize --at-seq` rebuilds the repository exactly as it was at that seq.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runGit } from '../src/git/run-git.ts';
import { gitServiceConfig } from './harness/git-service.ts';
import { useGitTestbed } from './harness/git-testbed.ts';

const bed = useGitTestbed();

async function cwGit(args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['bin/cw-git.ts', ...args], { env: { ...process.env, ...env } }, (error, stdout, stderr) =>
      error ? reject(new Error(`cw-git ${args.join(' ')}: ${stderr}`)) : resolve(stdout),
    );
  });
}

describe('cw-git admin commands on pushed history', () => {
  it('lists the pushes and materializes the repository as of an older seq', async () => {
    const { git, remote } = bed;
    const repo = await bed.createRepo();
    const work = await git.workdir(`admin-${randomBytes(3).toString('hex')}`);
    await git.run(['init', '-q'], { cwd: work });
    const snapshots: string[] = [];
    for (const [i, branch] of ['main', 'feature', 'main'].entries()) {
      if (branch === 'feature') await git.run(['checkout', '-q', '-b', 'feature'], { cwd: work });
      if (i === 2) await git.run(['checkout', '-q', 'main'], { cwd: work });
      await git.commit(work, `change ${i}`, { [`file-${i}.txt`]: `${i}\n` });
      if (i === 1) await git.run(['tag', '-a', 'v1', '-m', 'v1'], { cwd: work });
      await git.run(['push', '-q', '--follow-tags', remote(bed.a, repo), branch], { cwd: work });
      snapshots.push(await git.out(['ls-remote', remote(bed.b, repo)]));
    }

    const config = await gitServiceConfig(bed.setup);
    const env = { ...config.env, CW_GIT_CONFIG: config.path };
    const log = (await cwGit(['wal', 'ls', repo], env)).trimEnd().split('\n');
    expect(log.slice(1).map((line) => line.trim().split(/\s+/).slice(0, 2))).toEqual([
      ['1', 'push'],
      ['2', 'push'],
      ['3', 'push'],
    ]);
    expect(log.slice(1).every((line) => line.includes('ada'))).toBe(true);

    const out = join(config.dir, 'at-2');
    await cwGit(['wal', 'materialize', repo, '--at-seq', '2', '--out', out], env);
    await runGit(['-C', out, 'fsck', '--full', '--strict']);
    const refs = (await runGit(['-C', out, 'show-ref', '--dereference'])).stdout
      .toString()
      .trim()
      .split('\n')
      .map((l) => l.replace(' ', '\t'));
    const atTwo = snapshots[1]!.split('\n').filter((l) => !l.endsWith('\tHEAD'));
    expect(refs.sort()).toEqual(atTwo.sort());
    expect(await git.out(['-C', out, 'log', '--format=%s', 'main'])).toBe('change 0');
  });
});
