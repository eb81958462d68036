// `cw env pull` writes values with dotenvQuote, read back exactly by Node's own dotenv parser.
import { parseEnv } from 'node:util';
import { describe, expect, it } from 'vitest';
import { dotenvQuote } from './env.ts';

/** Writes `values` as a .env file with dotenvQuote, one key each, and parses the file back. */
function roundTrip(values: readonly string[]): string[] {
  const parsed = parseEnv(values.map((v, i) => `K${i}=${dotenvQuote(`K${i}`, v)}\n`).join(''));
  return values.map((_, i) => parsed[`K${i}`] ?? '(missing)');
}

describe('dotenvQuote', () => {
  it('quotes with a quote character the value lacks, escaping nothing', () => {
    expect(dotenvQuote('K', 'a\\b"c\nd')).toBe(`'a\\b"c\nd'`);
    expect(dotenvQuote('K', "it's")).toBe(`"it's"`);
    expect(dotenvQuote('K', 'it\'s "x"')).toBe('`it\'s "x"`');
    expect(dotenvQuote('K', '')).toBe("''");
    expect(() => dotenvQuote('K', '\'"`')).toThrow(/K cannot be written/);
  });

  it('round-trips through util.parseEnv', () => {
    const values = ['line1\nline2', 'x=y', '#hash', '', "it's", '  padded  ', 'a # not a comment', '${NOT_EXPANDED}'];
    expect(roundTrip(values)).toEqual(values);
  });

  // Carriage returns are not kept: the parsers normalise line ends.
  it('round-trips quotes, backslashes and newlines through util.parseEnv', () => {
    const values = ['a"b', 'C:\\dir', "it's a\\nb", 'it\'s "multi\nline"'];
    expect(roundTrip(values)).toEqual(values);
  });
});
