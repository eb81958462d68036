import { describe, expect, it } from 'vitest';
import { negotiate, parseAccept, quality } from './accept.ts';

const TEXT = ['application/json', 'text/plain', 'application/octet-stream'];
const BINARY = ['application/json', 'application/octet-stream'];

describe('negotiate', () => {
  it.each([
    [undefined, TEXT, 'application/json'],
    ['', TEXT, 'application/json'],
    ['*/*', TEXT, 'application/json'],
    ['application/json', TEXT, 'application/json'],
    ['text/plain', TEXT, 'text/plain'],
    ['text/*', TEXT, 'text/plain'],
    ['application/octet-stream', TEXT, 'application/octet-stream'],
    ['application/octet-stream', BINARY, 'application/octet-stream'],
    ['application/json;q=0.5, */*', TEXT, 'text/plain'],
    ['text/plain, */*;q=0.1', TEXT, 'text/plain'],
    ['application/json, text/plain', TEXT, 'application/json'],
    ['text/plain;q=0.9, application/json;q=0.8', TEXT, 'text/plain'],
    // A browser's navigation: */* alone matches JSON and text equally; the default wins.
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', TEXT, 'application/json'],
    // The most specific range decides: JSON refused by name, anything else welcome.
    ['application/json;q=0, */*', TEXT, 'text/plain'],
    ['application/json;q=0, */*', BINARY, 'application/octet-stream'],
    // Nothing acceptable.
    ['text/plain', BINARY, undefined],
    ['text/html', TEXT, undefined],
    ['*/*;q=0', TEXT, undefined],
    // Malformed ranges are skipped; a header with nothing well-formed counts as absent.
    ['garbage', TEXT, 'application/json'],
    ['text/plain;q=2, application/octet-stream', TEXT, 'application/octet-stream'],
    ['TEXT/PLAIN', TEXT, 'text/plain'],
  ])('%j among %j → %j', (accept, offers, expected) => {
    expect(negotiate(accept, offers)).toBe(expected);
  });
});

describe('parseAccept and quality', () => {
  it('reads q values and ignores other parameters', () => {
    expect(parseAccept('text/plain; charset=utf-8; q=0.5, */*;q=0.1')).toEqual([
      { type: 'text', subtype: 'plain', q: 0.5 },
      { type: '*', subtype: '*', q: 0.1 },
    ]);
    expect(parseAccept('*/plain, a/b/c, text/plain;q=1.5')).toEqual([]);
  });

  it('takes the most specific match whatever the order', () => {
    const ranges = parseAccept('*/*;q=0.2, text/*;q=0.5, text/plain;q=0.9');
    expect(quality(ranges, 'text/plain')).toBe(0.9);
    expect(quality(ranges, 'text/csv')).toBe(0.5);
    expect(quality(ranges, 'application/json')).toBe(0.2);
    expect(quality(parseAccept('text/plain'), 'application/json')).toBe(0);
  });
});
