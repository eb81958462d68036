import { describe, expect, it } from 'vitest';
import { statusPatch } from './controller.ts';

describe('statusPatch', () => {
  it('sets dropped fields to null, so a merge patch removes them', () => {
    expect(statusPatch({ servingBuildId: 'b1', url: 'https://a.p.example', observedGeneration: 1 }, { observedGeneration: 2 })).toEqual({
      observedGeneration: 2,
      servingBuildId: null,
      url: null,
    });
  });

  it('is the status itself when nothing is dropped', () => {
    expect(statusPatch(undefined, { observedGeneration: 1 })).toEqual({ observedGeneration: 1 });
  });
});
