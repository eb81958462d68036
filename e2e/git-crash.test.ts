// A cw-git process killed with SIGKILL in the middle of a push leaves the repository either before or after
// that push, never between: every ref of an atomic push moved or none did, the log stays gapless, and the
// next push through another instance succeeds (rolling forward whatever the dead one had prepared).
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { RepoStore } from '../src/repo-store/index.ts';
import { spawnGitService } from './harness/git-service.ts';
import { useGitTestbed } from './harness/git-testbed.ts';

// Instance `a` of the testbed survives every kill; the victims are child processes on the same bucket.
const bed = useGitTestbed();
/** Every child started, so a failing test leaves no process behind. */
const children: { stop(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(children.map((c) => c.stop()));
});

async function remoteRefs(repo: string): Promise<Map<string, string>> {
  const out = await bed.git.out(['ls-remote', bed.remote(bed.a, repo)]);
  return new Map(
    out
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split('\t').reverse() as [string, string]),
  );
}

describe('SIGKILL during a push', () => {
  it('leaves the repository before or after the push, never between, at any moment of the kill', { timeout: 240_000 }, async () => {
    const { git, remote } = bed;
    const repo = await bed.createRepo();
    const work = await git.workdir(`crash-${randomBytes(3).toString('hex')}`);
    await git.run(['init', '-q'], { cwd: work });
    await git.commit(work, 'base', { 'base.txt': 'base\n' });
    await git.run(['branch', 'side'], { cwd: work });
    await git.run(['push', '-q', '--atomic', remote(bed.a, repo), 'main', 'side'], { cwd: work });

    const outcomes: string[] = [];
    const prepare = async (label: string) => {
      await git.run(['fetch', '-q', remote(bed.a, repo), '+main:refs/remotes/s/main', '+side:refs/remotes/s/side'], { cwd: work });
      await git.run(['reset', '-q', '--hard', 'refs/remotes/s/main'], { cwd: work });
      // Incompressible content, so the push takes long enough for a kill to land inside it.
      await writeFile(join(work, 'blob.bin'), randomBytes(4 * 1024 * 1024));
      const main = await git.commit(work, label, { 'n.txt': `${label}\n` });
      await git.run(['branch', '-f', 'side', 'main'], { cwd: work });
      return main;
    };

    // How long one such push takes here, unkilled: the kill points are fractions of it.
    await prepare('timing');
    const timing = await spawnGitService(bed.setup);
    children.push(timing.service);
    const started = performance.now();
    await git.run(['push', '-q', '--atomic', remote(timing, repo), 'main', 'side'], { cwd: work });
    const pushMs = performance.now() - started;
    await timing.service.stop();

    // From "while the pack streams in" through "around the publish" to "after the answer".
    for (const fraction of [0.2, 0.5, 0.7, 0.85, 0.95, 1.05, 1.3]) {
      const killAfterMs = Math.round(pushMs * fraction);
      const before = await remoteRefs(repo);
      const main = await prepare(`kill at ${killAfterMs}`);
      const victim = await spawnGitService(bed.setup);
      children.push(victim.service);
      const push = git.run(['push', '--atomic', remote(victim, repo), 'main', 'side'], { cwd: work, okCodes: [0, 1, 128] });
      // Time is the subject: the kill lands at a fraction of a measured push, to sample every phase of it.
      await sleep(killAfterMs);
      victim.service.child.kill('SIGKILL');
      const result = await push;

      // A push killed between its log entry and its manifest swap is decided but not yet visible: the next
      // publish on any instance rolls it forward. Make one (a tag on the old tip), then look.
      const probe = before.get('refs/heads/main')!;
      await git.run(['push', '-q', remote(bed.a, repo), `${probe}:refs/tags/probe-${killAfterMs}`], { cwd: work });
      const after = await remoteRefs(repo);
      const moved = after.get('refs/heads/main') === main;
      expect(after.get('refs/heads/side'), 'both refs of the atomic push move together').toBe(moved ? main : before.get('refs/heads/side'));
      if (!moved) expect(after.get('refs/heads/main')).toBe(before.get('refs/heads/main'));
      if (result.code === 0) expect(moved, 'an acknowledged push is never lost').toBe(true);
      outcomes.push(`${killAfterMs}ms: ${result.code === 0 ? 'acknowledged' : 'failed'}, ${moved ? 'after' : 'before'}`);
    }

    // And an ordinary push through the surviving instance succeeds.
    await git.run(['fetch', '-q', remote(bed.a, repo), '+main:refs/remotes/s/main'], { cwd: work });
    await git.run(['reset', '-q', '--hard', 'refs/remotes/s/main'], { cwd: work });
    const last = await git.commit(work, 'after the crashes', { 'after.txt': 'ok\n' });
    await git.run(['push', '-q', remote(bed.a, repo), 'main'], { cwd: work });
    expect((await remoteRefs(repo)).get('refs/heads/main')).toBe(last);

    const store = new RepoStore({ store: new S3ObjectStore({ config: bed.setup.s3, bucket: bed.setup.bucket }) });
    const head = await store.readHead(repo);
    const page = await store.listLog(repo, 1, { limit: 1000 });
    expect(page.entries.map((e) => e.seq)).toEqual(Array.from({ length: head.seq }, (_, i) => i + 1));
    const clone = join(git.home, `verify-${randomBytes(3).toString('hex')}`);
    await git.run(['clone', '-q', '--mirror', remote(bed.a, repo), clone]);
    await git.run(['fsck', '--full'], { cwd: clone });
    console.log(`push ${Math.round(pushMs)} ms; kill outcomes: ${outcomes.join('; ')}`);
  });
});
