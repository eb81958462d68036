import { describe, expect, it } from 'vitest';
import { gitPackName, indexMatchesPack, packedRefs, PackUnavailableError } from './bare-repo.ts';

describe('packedRefs', () => {
  it('writes one line per ref after a header declaring them sorted and not peeled', () => {
    const refs = new Map([
      ['refs/heads/main', 'a'.repeat(40)],
      ['refs/tags/v1', 'b'.repeat(40)],
    ]);
    expect(packedRefs(refs)).toBe(`# pack-refs with: sorted \n${'a'.repeat(40)} refs/heads/main\n${'b'.repeat(40)} refs/tags/v1\n`);
    expect(packedRefs(new Map())).toBe('# pack-refs with: sorted \n');
  });
});

describe('pack names', () => {
  const checksum = Buffer.alloc(20, 0xab);
  const pack = Buffer.concat([Buffer.from('PACK'), Buffer.from([0, 0, 0, 2, 0, 0, 0, 0]), checksum]);

  it('names a pack by its trailing checksum, per object format', () => {
    expect(gitPackName(pack, 'sha1')).toBe(`pack-${'ab'.repeat(20)}`);
    const long = Buffer.concat([Buffer.from('PACK'), Buffer.alloc(8), Buffer.alloc(32, 0xcd)]);
    expect(gitPackName(long, 'sha256')).toBe(`pack-${'cd'.repeat(32)}`);
    expect(() => gitPackName(Buffer.from('nope'), 'sha1')).toThrow(PackUnavailableError);
    expect(() => gitPackName(Buffer.concat([Buffer.from('JUNK'), Buffer.alloc(28)]), 'sha1')).toThrow('not a git pack');
  });

  it('matches an index to its pack by the pack checksum it ends with', () => {
    const idx = Buffer.concat([Buffer.alloc(100), checksum, Buffer.alloc(20, 0x11)]);
    expect(indexMatchesPack(idx, gitPackName(pack, 'sha1'), 'sha1')).toBe(true);
    expect(indexMatchesPack(idx, `pack-${'cd'.repeat(20)}`, 'sha1')).toBe(false);
    expect(indexMatchesPack(Buffer.alloc(10), gitPackName(pack, 'sha1'), 'sha1')).toBe(false);
  });
});
