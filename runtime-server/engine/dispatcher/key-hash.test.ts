import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keyHash as contractHash, keyOnCanary } from '../../../src/runtime-contract/releases.ts';
// @ts-expect-error: the dispatcher's modules are plain JavaScript for workerd, without declarations
import { keyHash } from './key-hash.js';

const dispatcherHash = keyHash as (text: string) => number;

describe("the dispatcher's affinity hash", () => {
  it('gives the contract’s answer for many keys (ASCII, UUIDs, non-ASCII, empty)', () => {
    const keys = ['', 'a', 'user-1', 'ü', '𝄞 clef', ...Array.from({ length: 5000 }, (_, i) => (i % 2 ? crypto.randomUUID() : randomBytes(1 + (i % 40)).toString('latin1')))];
    expect(keys.filter((k) => dispatcherHash(k) !== contractHash(k))).toEqual([]);
    // and so the release each key gets at every weight
    for (const weight of [1, 30, 99]) expect(keys.filter((k) => dispatcherHash(k) % 10_000 < weight * 100 !== keyOnCanary(k, weight))).toEqual([]);
  });
});
