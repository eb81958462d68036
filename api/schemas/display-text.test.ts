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
});
