import { describe, expect, it } from 'vitest';
import { isJson, JsonSyntax, JsonSyntaxError, MAX_JSON_DEPTH } from './json-syntax.ts';

/** What JSON.parse says, the reference. */
function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

describe('JsonSyntax', () => {
  const texts = [
    '0',
    '-0',
    '1',
    '-12.5e+3',
    '1E2',
    '0.25',
    ' 7 ',
    'true',
    'false',
    'null',
    '""',
    '"a\\"b\\\\c\\/\\b\\f\\n\\r\\t\\u00e9"',
    '[]',
    '{}',
    '[1,2,[3,{"a":null}]]',
    '{"a":1,"b":[true,false],"c":{"d":"e"}}',
    ' \n\t\r{ "k" : [ 1 , 2 ] } ',
    '"\u00e9\u{1f600}"',
    '',
    ' ',
    '01',
    '-',
    '1.',
    '.5',
    '1e',
    '1e+',
    '+1',
    '0x1',
    'NaN',
    'Infinity',
    'tru',
    'truex',
    'nul',
    '[1,]',
    '[,1]',
    '{,}',
    '{"a":1,}',
    '{"a" 1}',
    '{a:1}',
    "{'a':1}",
    '[1 2]',
    '{"a":1 "b":2}',
    '[',
    ']',
    '{',
    '}',
    '[}',
    '{]',
    '"abc',
    '"\\x"',
    '"\\u12"',
    '"\\u12g4"',
    '"a\u0001b"',
    '1 2',
    '{} {}',
    '[1]]',
    '"a"x',
    '--1',
    '1-',
    '1.2.3',
    '1e5e5',
    '[01]',
    '{"a":[1,{"b":}]}',
    'true false',
    '[true,]',
  ];
  it.each(texts)('%j as JSON.parse judges it', (text) => {
    expect(isJson(text)).toBe(parses(text));
  });

  it('gives the same answer however the text is split', () => {
    const text = '{"key":[1.5e-3,"a\\u00e9\\n",true,null,{"x":-0}]}';
    for (let cut = 0; cut <= text.length; cut++) {
      const syntax = new JsonSyntax();
      syntax.write(text.slice(0, cut));
      syntax.write(text.slice(cut));
      expect(() => syntax.end()).not.toThrow();
    }
  });

  it('checks a large array without building it', () => {
    const syntax = new JsonSyntax();
    const chunk = `${'0,'.repeat(100_000)}`;
    syntax.write('[');
    for (let i = 0; i < 50; i++) syntax.write(chunk);
    syntax.write('0]');
    expect(() => syntax.end()).not.toThrow();
  });

  it('refuses nesting past its depth', () => {
    expect(isJson(`${'['.repeat(1000)}${']'.repeat(1000)}`)).toBe(true);
    const syntax = new JsonSyntax();
    expect(() => syntax.write('['.repeat(MAX_JSON_DEPTH + 1))).toThrow(JsonSyntaxError);
  });
});
