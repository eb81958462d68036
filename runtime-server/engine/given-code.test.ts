import { describe, expect, it } from 'vitest';
import { GivenCode } from './given-code.ts';

describe('GivenCode', () => {
  it("takes code given before, and an app's first, for the platform's doing; new code of an app given some for its tenant's", () => {
    const given = new GivenCode();
    expect(given.byPlatform('p', 'p/a', 'c1')).toBe(true);
    given.given('p', 'p/a', 'c1');
    expect(given.byPlatform('p', 'p/a', 'c1')).toBe(true);
    expect(given.byPlatform('p', 'p/a', 'c2')).toBe(false);
    expect(given.byPlatform('p', 'p/b', 'c3')).toBe(true);
  });

  it("forgets only a project's own codes when it makes many", () => {
    const given = new GivenCode();
    given.given('victim', 'victim/site', 'v1');
    for (let i = 0; i < 10_000; i += 1) given.given('hoarder', 'hoarder/h', `h${i}`);
    expect(given.byPlatform('victim', 'victim/site', 'v1')).toBe(true);
    expect(given.byPlatform('victim', 'victim/site', 'v2')).toBe(false);
    expect(given.byPlatform('hoarder', 'hoarder/h', 'h0')).toBe(false);
    expect(given.byPlatform('hoarder', 'hoarder/h', 'h9999')).toBe(true);
  });
});
