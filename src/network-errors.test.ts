import { describe, expect, it } from 'vitest';
import { isNetworkError, isUnsentRequest } from './network-errors.ts';

const coded = (code: string, cause?: unknown) => Object.assign(new Error(code), { code, cause });

describe('isNetworkError', () => {
  it.each(['ECONNREFUSED', 'ECONNRESET', 'UND_ERR_CONNECT_TIMEOUT'])('recognises %s, also wrapped as a cause', (code) => {
    expect(isNetworkError(coded(code))).toBe(true);
    expect(isNetworkError(new Error('SDK failure', { cause: coded(code) }))).toBe(true);
  });

  it('does not treat answers or unknown codes as transport failures', () => {
    expect(isNetworkError(coded('NoSuchKey'))).toBe(false);
    expect(isNetworkError(new Error('plain'))).toBe(false);
    expect(isNetworkError(undefined)).toBe(false);
  });

  it('looks only a few causes deep', () => {
    let err: unknown = coded('ECONNRESET');
    for (let i = 0; i < 4; i++) err = new Error(`wrap ${i}`, { cause: err });
    expect(isNetworkError(err)).toBe(false);
  });
});

describe('isUnsentRequest', () => {
  it('is a refused or unroutable connection, also wrapped as fetch wraps it, never a reset or a timeout', () => {
    expect(isUnsentRequest(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isUnsentRequest(new TypeError('fetch failed', { cause: Object.assign(new Error('no name'), { code: 'ENOTFOUND' }) }))).toBe(true);
    expect(isUnsentRequest(Object.assign(new Error('reset'), { code: 'ECONNRESET' }))).toBe(false);
    expect(isUnsentRequest(new DOMException('late', 'TimeoutError'))).toBe(false);
  });
});
