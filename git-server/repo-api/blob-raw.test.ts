import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { contentDisposition, looksLikeText, peek, rawTypes, SNIFF_BYTES } from './blob-raw.ts';

describe('looksLikeText', () => {
  it('calls UTF-8 without NUL text, and a NUL or invalid UTF-8 binary', () => {
    expect(looksLikeText(Buffer.from('héllo <script>\n'), true)).toBe(true);
    expect(looksLikeText(Buffer.alloc(0), true)).toBe(true);
    expect(looksLikeText(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00]), false)).toBe(false);
    expect(looksLikeText(Buffer.from([0x63, 0x61, 0x66, 0xe9]), true)).toBe(false); // latin-1 "café"
    expect(looksLikeText(Buffer.from([0x63, 0xe9, 0x66]), false)).toBe(false);
  });

  it('allows a character cut by the sniff window, and looks no further than it', () => {
    const cut = Buffer.concat([Buffer.alloc(SNIFF_BYTES - 1, 'a'), Buffer.from('é')]);
    expect(looksLikeText(cut, false)).toBe(true);
    expect(looksLikeText(cut.subarray(0, SNIFF_BYTES), true)).toBe(false);
    expect(looksLikeText(Buffer.concat([Buffer.alloc(SNIFF_BYTES, 'a'), Buffer.from([0])]), false)).toBe(true);
    expect(rawTypes(Buffer.from('text'), true)).toEqual(['text/plain', 'application/octet-stream']);
    expect(rawTypes(Buffer.from([0]), true)).toEqual(['application/octet-stream']);
  });
});

describe('contentDisposition', () => {
  it('names the file with an ASCII fallback and its UTF-8 name', () => {
    expect(contentDisposition('inline', 'README.md')).toBe(`inline; filename="README.md"; filename*=UTF-8''README.md`);
    expect(contentDisposition('attachment', 'naïve "x".bin')).toBe(`attachment; filename="na_ve _x_.bin"; filename*=UTF-8''na%C3%AFve%20%22x%22.bin`);
  });
});

describe('peek', () => {
  it('reads the first bytes and still yields every byte', async () => {
    const chunks = ['abc', 'defg', 'hij'].map((s) => Buffer.from(s));
    const { head, body } = await peek(Readable.from(chunks), 5);
    expect(head.toString()).toBe('abcde');
    expect(await text(body)).toBe('abcdefghij');
  });

  it('copes with a stream shorter than the window, and an empty one', async () => {
    const short = await peek(Readable.from([Buffer.from('ab')]), 5);
    expect([short.head.toString(), await text(short.body)]).toEqual(['ab', 'ab']);
    const empty = await peek(Readable.from([]), 5);
    expect([empty.head.length, await text(empty.body)]).toEqual([0, '']);
  });

  it('destroys the source when the body is abandoned', async () => {
    const source = Readable.from(
      (function* () {
        for (;;) yield Buffer.alloc(1024);
      })(),
    );
    const { body } = await peek(source, 10);
    const closed = new Promise((resolve) => source.once('close', resolve));
    for await (const _ of body) break;
    await closed;
    expect(source.destroyed).toBe(true);
  });
});
