import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { durationOption, sizeOption } from './command-kit.ts';

describe('option parsers', () => {
  it.each([
    ['1048576', 1048576],
    ['512MiB', 512 * 1024 ** 2],
    ['2GiB', 2 * 1024 ** 3],
    ['1.5 GiB', 1.5 * 1024 ** 3],
    ['500MB', 500e6],
  ])('reads the size %s', (text, bytes) => {
    expect(sizeOption(text)).toBe(bytes);
  });

  it.each([
    ['500ms', 500],
    ['5s', 5000],
    ['1m', 60_000],
    ['250', 250],
  ])('reads the duration %s', (text, ms) => {
    expect(durationOption(text)).toBe(ms);
  });

  it.each(['', 'lots', '2 parsecs', '-1GiB'])('refuses the size %j in one line', (text) => {
    expect(() => sizeOption(text)).toThrow(InvalidArgumentError);
  });

  it.each(['', 'soon', '5h', '-5s'])('refuses the duration %j in one line', (text) => {
    expect(() => durationOption(text)).toThrow(InvalidArgumentError);
  });
});
