import { describe, expect, it } from 'vitest';
import { internStrings, StringPool } from './string-pool.ts';

describe('StringPool', () => {
  it('holds at most two generations, whatever passes through it', () => {
    const pool = new StringPool(100);
    for (let i = 0; i < 1_000; i++) expect(pool.intern(`s-${i}`)).toBe(`s-${i}`);
    expect(pool.size).toBeLessThanOrEqual(200);
  });

  it('keeps a string asked for in every generation, and drops one not asked for in two', () => {
    const pool = new StringPool(10);
    pool.intern('RuntimeApp');
    for (let i = 0; i < 100; i++) {
      pool.intern(`unique-${i}`);
      if (i % 5 === 0) pool.intern('RuntimeApp');
    }
    expect(pool.has('RuntimeApp')).toBe(true);
    expect(pool.has('unique-0')).toBe(false);
    expect(pool.has('unique-99')).toBe(true);
  });
});

describe('internStrings', () => {
  it('leaves every value as it was, nested objects and arrays included, and answers the object itself', () => {
    const long = 'x'.repeat(500);
    const object = {
      apiVersion: 'cloudwright.dev/v1alpha1',
      metadata: { namespace: 'p', labels: { a: 'b' } },
      spec: { hostnames: ['a.example.com'], n: 3, on: true, none: null, long },
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    };
    const copy = structuredClone(object);
    expect(internStrings(object, new StringPool())).toBe(object);
    expect(object).toEqual(copy);
  });

  it('walks only plain objects and arrays: a Buffer or a class instance is left as it is', () => {
    const buffer = Buffer.alloc(8);
    class Getter {
      get x(): string {
        return 'y';
      }
    }
    const instance = new Getter();
    const object = internStrings({ buffer, instance }, new StringPool());
    expect(object.buffer).toBe(buffer);
    expect(object.instance.x).toBe('y');
  });

  it('passes over a frozen object', () => {
    const frozen = Object.freeze({ status: 'none' });
    expect(internStrings({ spec: frozen }, new StringPool()).spec).toBe(frozen);
  });
});
