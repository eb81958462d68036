import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScratchRepo } from '../../../src/git/testing/scratch-repo.ts';
import { logCommits, parseCommitLog } from './commit-log.ts';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const record = (sha: string, parents: string, subject: string, body: string) =>
  `${sha}\0${parents}\0Ada\0ada@example.com\x002026-01-01T00:00:00+00:00\0Bob\0bob@example.com\x002026-01-02T00:00:00+01:00\0${subject}\0${body}\0\0`;

describe('parseCommitLog', () => {
  it('reads NUL-separated records whatever the message holds', () => {
    const body = 'line one\n\nsha: not a header\n\ttabbed\n';
    const commits = parseCommitLog(record(A, B, 'subject', body) + record(B, '', 'root', ''));
    expect(commits).toEqual([
      {
        sha: A,
        parents: [B],
        author: { name: 'Ada', email: 'ada@example.com', date: '2026-01-01T00:00:00+00:00' },
        committer: { name: 'Bob', email: 'bob@example.com', date: '2026-01-02T00:00:00+01:00' },
        subject: 'subject',
        body: 'line one\n\nsha: not a header\n\ttabbed',
      },
      expect.objectContaining({ sha: B, parents: [], subject: 'root', body: '' }),
    ]);
  });

  it('leaves out a record cut short, even one cut right after its last field', () => {
    const whole = record(A, `${B} ${B}`, 'merge', 'x');
    expect(parseCommitLog(whole + record(B, '', 'root', 'y').slice(0, -1)).map((c) => c.sha)).toEqual([A]);
    expect(parseCommitLog(whole + record(B, '', 'root', 'y').slice(0, 60))).toHaveLength(1);
    expect(parseCommitLog(whole)[0]?.parents).toEqual([B, B]);
    expect(parseCommitLog('')).toEqual([]);
  });

  it('refuses output that is not records', () => {
    expect(() => parseCommitLog('nonsense\0'.repeat(11))).toThrow(/unexpected git log output/);
  });
});

describe('logCommits', () => {
  let repo: ScratchRepo;
  const shas: string[] = [];
  beforeAll(async () => {
    repo = await ScratchRepo.create();
    shas.push(await repo.commit('main', { 'a.txt': 'a\n' }, { message: 'first\nsecond line of subject\n\nbody with\nlines' }));
    shas.push(await repo.commit('main', { 'b.txt': 'b\n' }, { message: '-n looks like an option' }));
    shas.push(await repo.commit('main', { 'a.txt': 'a2\n' }, { message: 'third' }));
  });
  afterAll(() => repo.remove());

  it('lists newest first, with skip, limit and a literal path', async () => {
    const dir = `${repo.dir}/.git`;
    const all = await logCommits(dir, { revisions: [shas[2] ?? ''], limit: 10 });
    expect(all.commits.map((c) => c.sha)).toEqual([...shas].reverse());
    expect(all.commits[2]).toMatchObject({ subject: 'first second line of subject', body: 'body with\nlines', parents: [] });
    expect(all.commits[1]?.subject).toBe('-n looks like an option');
    const page = await logCommits(dir, { revisions: [shas[2] ?? ''], skip: 1, limit: 1 });
    expect(page.commits.map((c) => c.sha)).toEqual([shas[1]]);
    const touching = await logCommits(dir, { revisions: [shas[2] ?? ''], path: 'a.txt', limit: 10 });
    expect(touching.commits.map((c) => c.sha)).toEqual([shas[2], shas[0]]);
    expect((await logCommits(dir, { revisions: [shas[2] ?? ''], path: '*.txt', limit: 10 })).commits).toEqual([]);
  });

  it('answers whole commits up to a byte budget and says it was cut', async () => {
    const cut = await logCommits(`${repo.dir}/.git`, { revisions: [shas[2] ?? ''], limit: 10, maxBytes: 300 });
    expect(cut.cut).toBe(true);
    expect(cut.commits.length).toBeGreaterThan(0);
    expect(cut.commits.length).toBeLessThan(3);
  });
});
