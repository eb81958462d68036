import { describe, expect, it } from 'vitest';
import { isAlreadyExists, isConflict, isGone, isNotFound, KubeApiError, statusCodeOf } from './api-error.ts';

describe('statusCodeOf', () => {
  it.each([
    ['our error', new KubeApiError(404, 'x', 'NotFound'), 404],
    ['client-node ApiException shape', Object.assign(new Error('x'), { code: 409 }), 409],
    ['failed watch request', Object.assign(new Error('Gone'), { statusCode: 410 }), 410],
    ['watch ERROR event Status', { kind: 'Status', code: 410, reason: 'Expired' }, 410],
    ['transport error', Object.assign(new Error('fetch failed'), { code: 'ECONNREFUSED' }), undefined],
    ['not an object', 'boom', undefined],
  ])('%s', (_, err, code) => expect(statusCodeOf(err)).toBe(code));
});

describe('KubeApiError.fromResponse', () => {
  it('takes message and reason from a Status body', () => {
    const body = JSON.stringify({ kind: 'Status', code: 409, reason: 'Conflict', message: 'the object has been modified' });
    const err = KubeApiError.fromResponse(409, body);
    expect([err.code, err.reason, err.message]).toEqual([409, 'Conflict', 'the object has been modified']);
    expect(isConflict(err)).toBe(true);
    expect(isAlreadyExists(err)).toBe(false);
  });

  it('copes with a body that is not a Status', () => {
    expect(KubeApiError.fromResponse(502, '<html>bad gateway</html>').message).toBe('apiserver answered HTTP 502');
  });

  it('tells AlreadyExists from a version conflict', () => {
    const exists = new KubeApiError(409, 'x', 'AlreadyExists');
    expect([isAlreadyExists(exists), isConflict(exists)]).toEqual([true, false]);
    expect(isNotFound(new KubeApiError(404, 'x'))).toBe(true);
    expect(isGone(new KubeApiError(410, 'x', 'Expired'))).toBe(true);
  });
});
