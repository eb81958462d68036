import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LogFollowers } from './log-followers.ts';

describe('LogFollowers', () => {
  let ended: string[];
  let followers: LogFollowers;
  beforeEach(() => {
    vi.useFakeTimers();
    ended = [];
    followers = new LogFollowers(1000, (key) => ended.push(key));
  });
  afterEach(() => vi.useRealTimers());

  it('collects while followed and for the linger after the last follower left', () => {
    expect(followers.collecting('p/a')).toBe(false);
    const one = followers.join('p/a');
    const two = followers.join('p/a');
    expect([one.first, two.first]).toEqual([true, false]);
    one.leave();
    one.leave(); // leaving twice counts once
    vi.advanceTimersByTime(5000);
    expect(followers.collecting('p/a')).toBe(true);
    two.leave();
    vi.advanceTimersByTime(999);
    expect(followers.collecting('p/a')).toBe(true);
    expect(ended).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(followers.collecting('p/a')).toBe(false);
    expect(ended).toEqual(['p/a']);
  });

  it('a follower back within the linger keeps collecting, without an end', () => {
    followers.join('p/a').leave();
    vi.advanceTimersByTime(500);
    const back = followers.join('p/a');
    expect(back.first).toBe(true);
    vi.advanceTimersByTime(5000);
    expect(ended).toEqual([]);
    expect(followers.collecting('p/a')).toBe(true);
  });

  it('keeps apps apart', () => {
    followers.join('p/a').leave();
    followers.join('p/b');
    vi.advanceTimersByTime(1000);
    expect(ended).toEqual(['p/a']);
    expect(followers.collecting('p/b')).toBe(true);
  });

  it('ends no linger once stopped', () => {
    followers.join('p/a').leave();
    followers.stop();
    vi.advanceTimersByTime(5000);
    expect(ended).toEqual([]);
  });
});
