import { describe, expect, it } from 'vitest';
import { classifyRoute53Error, toDnsProviderError } from './route53-errors.ts';

const sdkError = (name: string, status: number, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(`${name}: upstream text with RequestId abc and arn:aws:iam::123456789012:user/x`), { name, $metadata: { httpStatusCode: status }, ...extra });

describe('classifyRoute53Error', () => {
  it.each([
    [sdkError('NoSuchHostedZone', 404), 'zone_not_found'],
    [sdkError('Throttling', 400), 'throttled'],
    [sdkError('PriorRequestNotComplete', 400), 'throttled'],
    [sdkError('InvalidChangeBatch', 400), 'rejected'],
    [sdkError('HostedZoneNotEmpty', 400), 'rejected'],
    [sdkError('TooManyHostedZones', 400), 'limit_exceeded'],
    [sdkError('AccessDenied', 403), 'access_denied'],
    [sdkError('InvalidClientTokenId', 403), 'access_denied'],
    [sdkError('SomethingNew', 503), 'unavailable'],
    [sdkError('SomethingNew', 429), 'throttled'],
    [sdkError('SomethingNew', 403), 'access_denied'],
    [sdkError('SomethingNew', 400), 'invalid'],
    [Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }), 'unavailable'],
    [Object.assign(new Error('outer'), { cause: Object.assign(new Error('inner'), { code: 'ETIMEDOUT' }) }), 'unavailable'],
    [Object.assign(new Error('timeout'), { name: 'TimeoutError' }), 'unavailable'],
    [new TypeError('a bug of ours'), 'invalid'],
    ['not even an error', 'invalid'],
  ])('%o → %s', (err, code) => {
    expect(classifyRoute53Error(err)).toBe(code);
  });
});

describe('toDnsProviderError', () => {
  it('keeps the provider code and the cause but never the upstream message', () => {
    const upstream = sdkError('InvalidChangeBatch', 400);
    const err = toDnsProviderError(upstream, 'applyChanges');
    expect(err).toMatchObject({ code: 'rejected', retryable: false, status: 502, op: 'applyChanges', providerCode: 'InvalidChangeBatch' });
    expect(err.message).toBe('The DNS provider rejected the change.');
    expect(err.cause).toBe(upstream);
  });

  it('makes a retryable 503 with Retry-After of throttling and of a zone not empty yet', () => {
    expect(toDnsProviderError(sdkError('Throttling', 400), 'listRecords')).toMatchObject({ retryable: true, status: 503, headers: { 'retry-after': '10' } });
    expect(toDnsProviderError(sdkError('HostedZoneNotEmpty', 400), 'deleteZone')).toMatchObject({ code: 'rejected', retryable: true, status: 503 });
  });
});
