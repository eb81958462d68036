import { describe, expect, it } from 'vitest';
import { canonicalMode, findTreeEntry, treeEntries } from './tree-object.ts';

const oid = (byte: number, length = 20) => Buffer.alloc(length, byte);
const entry = (mode: string, name: Buffer | string, id: Buffer) => Buffer.concat([Buffer.from(`${mode} `), Buffer.from(name), Buffer.from([0]), id]);

describe('treeEntries', () => {
  it('reads mode, name bytes and id of each entry, in stored order', () => {
    const tree = Buffer.concat([entry('100644', 'a.txt', oid(1)), entry('40000', 'a', oid(2)), entry('160000', 'sub', oid(3)), entry('120000', Buffer.from([0xff, 0x20, 0x41]), oid(4))]);
    expect([...treeEntries(tree, 20)].map((e) => [e.name.toString('hex'), e.type, e.mode, e.oid])).toEqual([
      [Buffer.from('a.txt').toString('hex'), 'blob', '100644', '01'.repeat(20)],
      ['61', 'tree', '040000', '02'.repeat(20)],
      [Buffer.from('sub').toString('hex'), 'commit', '160000', '03'.repeat(20)],
      ['ff2041', 'blob', '120000', '04'.repeat(20)],
    ]);
  });

  it('takes 32-byte ids (sha256) and stops at the limit', () => {
    const tree = Buffer.concat([entry('100755', 'x', oid(9, 32)), entry('100644', 'y', oid(8, 32))]);
    expect([...treeEntries(tree, 32, 1)].map((e) => [e.name.toString(), e.mode, e.oid])).toEqual([['x', '100755', '09'.repeat(32)]]);
  });

  it('fails on bytes that are not a tree', () => {
    expect(() => [...treeEntries(Buffer.from('100644 truncated\0abc'), 20)]).toThrow(/malformed/);
    expect(() => [...treeEntries(Buffer.from('no space here'), 20)]).toThrow(/malformed/);
  });
});

describe('canonicalMode', () => {
  it('canonicalises as git does: any regular file is 100644 or 100755', () => {
    expect(canonicalMode(0o100664)).toEqual({ mode: '100644', type: 'blob' });
    expect(canonicalMode(0o100775)).toEqual({ mode: '100755', type: 'blob' });
    expect(canonicalMode(0o40000)).toEqual({ mode: '040000', type: 'tree' });
    expect(canonicalMode(0o120777)).toEqual({ mode: '120000', type: 'blob' });
    expect(canonicalMode(0o160000)).toEqual({ mode: '160000', type: 'commit' });
  });
});

describe('findTreeEntry', () => {
  it('compares whole names as bytes', () => {
    const tree = Buffer.concat([entry('100644', 'ab', oid(1)), entry('100644', 'b*c', oid(2))]);
    expect(findTreeEntry(tree, 20, Buffer.from('b*c'))?.oid).toBe('02'.repeat(20));
    expect(findTreeEntry(tree, 20, Buffer.from('a'))).toBeUndefined();
    expect(findTreeEntry(tree, 20, Buffer.from('b*'))).toBeUndefined();
  });
});
