import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../kube/types.ts';
import { byAge } from './domain-store.ts';

const object = (uid: string, name: string, created: string): KubeObject => ({ metadata: { uid, name, creationTimestamp: created } });

describe('byAge', () => {
  it('puts the oldest first, and breaks a tie of the same second by name, so every process agrees', () => {
    const a = object('u-1', 'example-com-000000', '2026-01-01T00:00:05Z');
    const b = object('u-2', 'example-com-ffffff', '2026-01-01T00:00:05Z');
    const old = object('u-3', 'example-com-aaaaaa', '2026-01-01T00:00:04Z');
    expect([b, a, old].sort(byAge)).toEqual([old, a, b]);
    expect([a, b, old].sort(byAge)).toEqual([old, a, b]);
  });
});
