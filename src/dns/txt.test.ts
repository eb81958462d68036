import { describe, expect, it } from 'vitest';
import { parseCharacterStrings, txtFromPresentation, txtToPresentation } from './txt.ts';

describe('TXT presentation', () => {
  it.each([
    ['hello', '"hello"'],
    ['', '""'],
    ['say "hi"', '"say \\"hi\\""'],
    ['back\\slash', '"back\\\\slash"'],
    ['a'.repeat(256), `"${'a'.repeat(255)}" "a"`],
  ])('writes %j as %j and reads it back', (text, presentation) => {
    expect(txtToPresentation(text)).toBe(presentation);
    expect(txtFromPresentation(presentation, 'octal')).toBe(text);
    expect(txtFromPresentation(presentation, 'decimal')).toBe(text);
  });

  it('reads numeric escapes in the base asked for (Route 53: octal; zone files: decimal)', () => {
    expect(txtFromPresentation('"\\303\\274"', 'octal')).toBe('ü');
    expect(txtFromPresentation('"\\195\\188"', 'decimal')).toBe('ü');
    expect(txtFromPresentation('"\\052"', 'octal')).toBe('*');
  });

  it.each([
    ['"a" "b"', ['a', 'b']],
    ['  "a"\t"b c"  ', ['a', 'b c']],
    ['""', ['']],
  ])('parses %j into strings', (value, strings) => {
    expect(parseCharacterStrings(value)).toEqual(strings);
  });

  it.each(['plain', '"unterminated', '"a""b"', '"a" b', '', '"\\999"'])('answers undefined for %j', (value) => {
    expect(parseCharacterStrings(value)).toBeUndefined();
  });

  it('keeps an unquoted provider value as it is', () => {
    expect(txtFromPresentation('hello world', 'octal')).toBe('hello world');
  });
});
