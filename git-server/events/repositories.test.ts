import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../../src/object-store/memory-object-store.ts';
import { listRepositories } from './repositories.ts';

describe('listRepositories', () => {
  it('lists owner/repo of every repository prefix, skipping names that cannot be repositories', async () => {
    const store = new MemoryObjectStore();
    for (const key of [
      'repos/acme/site/manifest.json',
      'repos/acme/api/log/1.json',
      'repos/zed/x/manifest.json',
      'repos/bad..name/y/m',
      'repos/acme/z.git/m',
      'pending/acme/site.json',
      'repos/loose',
    ]) {
      await store.put(key, 'x');
    }
    const found: string[] = [];
    for await (const repo of listRepositories(store)) found.push(repo);
    expect(found).toEqual(['acme/api', 'acme/site', 'zed/x']);
  });
});
