import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube/types.ts';
import { MemorySource } from './source.ts';

const obj = (namespace: string, name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace, name } });

describe('MemorySource', () => {
  it("lists one namespace's objects, or every object without one (as client-node's cache)", () => {
    const source = new MemorySource();
    for (const o of [obj('a', 'x'), obj('b', 'y'), obj('a', 'z')]) source.upsert(o);
    expect(source.list('a').map((o) => o.metadata?.name)).toEqual(['x', 'z']);
    expect(source.list('c')).toEqual([]);
    expect(source.list()).toHaveLength(3);
    expect(source.list('')).toHaveLength(3);
  });
});
