import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { DISPLAY_TEXT_PATTERN } from './display-text.ts';

// Through Fastify's own validator, as the API checks a body.
const app = Fastify();
app.post('/', { schema: { body: { type: 'object', properties: { name: { type: 'string', pattern: DISPLAY_TEXT_PATTERN } } } } }, async () => ({ ok: true }));
afterAll(() => app.close());
const valid = async (name: string): Promise<boolean> => (await app.inject({ method: 'POST', url: '/', payload: { name } })).statusCode === 200;

describe('display text', () => {
  it.each(['web', 'My Shop', ' padded ', 'Café Zürich', 'ショップ', 'launch 🚀', 'a\tb'.replace('\t', ' ')])('accepts %j', async (text) => {
    expect(await valid(text)).toBe(true);
  });

  it.each([
    ['blank', '   '],
    ['a tab (a control character)', 'a\tb'],
    ['a C1 control character', 'a\u0085b'],
    ['a right-to-left override', 'invoice\u202Etxt.exe'],
    ['a bidirectional isolate', 'a\u2066b\u2069'],
    ['a left-to-right mark', 'a\u200Eb'],
  ])('refuses %s', async (_name, text) => {
    expect(await valid(text)).toBe(false);
  });

  // The lookahead form the pattern had (display-text.ts says why it changed), against the pattern as the API
  // compiles it (ajv: the `u` flag): the same answer for every string of up to three characters drawn from
  // visible, blank, control, separator and bidirectional ones.
  it('accepts and refuses what its lookahead form did', () => {
    // oxlint-disable-next-line eslint/no-control-regex -- the control characters are the ones the pattern refuses
    const lookahead = new RegExp('^(?=.*\\S)[^\\x00-\\x1F\\x7F-\\x9F\\u061C\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069]*$', 'u');
    const pattern = new RegExp(DISPLAY_TEXT_PATTERN, 'u');
    const alphabet = ['a', 'é', '🚀', ' ', '\u00A0', '\u3000', '\uFEFF', '\u200B', '\t', '\n', '\u0085', '\u2028', '\u2029', '\u202E', '\u2066', '\u061C', '\x7F'];
    const differing: string[] = [];
    const visit = (text: string): void => {
      if (text && lookahead.test(text) !== pattern.test(text)) differing.push(JSON.stringify(text));
      if (text.length < 3) for (const c of alphabet) visit(text + c);
    };
    visit('');
    expect(differing).toEqual([]);
  });
});
