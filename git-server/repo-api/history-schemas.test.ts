import { describe, expect, it } from 'vitest';
import { parseRange } from './compare.ts';
import { digest, isFullOid, withDeadline } from './history-schemas.ts';

describe('history route helpers', () => {
  it('splits base...head and refuses two dots or a missing side', () => {
    expect(parseRange('main...feature/x')).toEqual(['main', 'feature/x']);
    expect(parseRange('v1.0...v2.0')).toEqual(['v1.0', 'v2.0']);
    for (const bad of ['main..feature', 'main...', '...feature', 'a...b...c', 'main']) {
      expect(() => parseRange(bad), bad).toThrow(/three dots/);
    }
  });

  it('calls only a full oid equal to what it resolved to immutable', () => {
    const sha = 'a'.repeat(40);
    expect(isFullOid(sha, sha)).toBe(true);
    expect(isFullOid(sha.slice(0, 12), sha)).toBe(false);
    expect(isFullOid('main', sha)).toBe(false);
    expect(isFullOid('b'.repeat(64), 'b'.repeat(64))).toBe(true);
  });

  it('digests parts into a quote-free tag that changes with them', () => {
    expect(digest(['main', 'a"b', 0, 35])).toMatch(/^[\w-]{16}$/);
    expect(digest(['main', undefined, 0, 35])).not.toBe(digest(['main', undefined, 0, 36]));
  });

  it('turns work stopped by the deadline into a 504 timeout', async () => {
    const stopped = withDeadline((signal) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('killed')))), 5);
    await expect(stopped).rejects.toMatchObject({ status: 504, code: 'timeout' });
    await expect(withDeadline(() => Promise.reject(new Error('other')), 1000)).rejects.toThrow('other');
  });
});
