// The repository JSON API's read routes through two cw-git instances on one bucket, with the stock git client
// pushing: what a platform shows without cloning.
import { describe, expect, it } from 'vitest';
import { useGitTestbed } from './harness/git-testbed.ts';

const bed = useGitTestbed();

async function api(service: { url: string }, path: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${service.url}${path}`, { headers: { authorization: `Bearer ${bed.token}`, ...headers } });
}

describe('repository JSON API: summary', () => {
  it('summarises a repository pushed through one instance when read through the other, with an ETag that revalidates', async () => {
    const repo = await bed.createRepo();
    const work = await bed.git.workdir('summary');
    await bed.git.run(['init', '-q', '-b', 'main'], { cwd: work });
    const sha = await bed.git.commit(work, 'first', { 'README.md': '# hello\n' });
    await bed.git.run(['branch', 'feature'], { cwd: work });
    await bed.git.run(['tag', 'v1'], { cwd: work });
    await bed.git.run(['push', '-q', bed.remote(bed.a, repo), 'main', 'feature', 'v1'], { cwd: work });

    const response = await api(bed.b, `/${repo}/api`);
    expect(response.status).toBe(200);
    const [owner, name] = repo.split('/');
    expect(await response.json()).toEqual({
      owner,
      name,
      full_name: repo,
      default_branch: 'main',
      head: { name: 'refs/heads/main', sha },
      branches: 2,
      tags: 1,
      clone_url: `${bed.b.url}/${repo}.git`,
      api_url: `${bed.b.url}/${repo}/api`,
    });
    const etag = response.headers.get('etag');
    expect(etag).toMatch(/^"[^"]+"$/);
    expect((await api(bed.b, `/${repo}/api`, { 'if-none-match': etag ?? '' })).status).toBe(304);
    expect((await api(bed.b, `/nobody/${repo.split('/')[1]}-missing/api`)).status).toBe(404);
  });
});
