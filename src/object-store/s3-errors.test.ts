import { describe, expect, it } from 'vitest';
import { classifyS3Error } from './s3-errors.ts';

const http = (status: number, name = 'Unknown') => Object.assign(new Error(name), { name, $metadata: { httpStatusCode: status } });

describe('classifyS3Error', () => {
  it('recognises the answers the port turns into results', () => {
    expect(classifyS3Error(http(304, 'NotModified'))).toBe('not_modified');
    expect(classifyS3Error(http(412, 'PreconditionFailed'))).toBe('precondition_failed');
    expect(classifyS3Error(http(404, 'NoSuchKey'))).toBe('not_found');
    expect(classifyS3Error(http(404, 'NotFound'))).toBe('not_found');
    expect(classifyS3Error(http(400, 'BadDigest'))).toBe('checksum_mismatch');
  });

  it('retries throttling, server errors, conflicting conditional writes and transport failures', () => {
    expect(classifyS3Error(http(503, 'SlowDown'))).toBe('retryable');
    expect(classifyS3Error(http(500, 'InternalError'))).toBe('retryable');
    expect(classifyS3Error(http(409, 'ConditionalRequestConflict'))).toBe('retryable');
    expect(classifyS3Error(http(429))).toBe('retryable');
    expect(classifyS3Error(Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }))).toBe('retryable');
    expect(classifyS3Error(new Error('wrapped', { cause: Object.assign(new Error('reset'), { code: 'ECONNRESET' }) }))).toBe('retryable');
    expect(classifyS3Error(Object.assign(new Error('timeout'), { name: 'TimeoutError' }))).toBe('retryable');
  });

  it('does not retry what a retry cannot fix', () => {
    expect(classifyS3Error(http(403, 'AccessDenied'))).toBe('fatal');
    expect(classifyS3Error(http(404, 'NoSuchBucket'))).toBe('not_found');
    expect(classifyS3Error(new TypeError('bug'))).toBe('fatal');
    expect(classifyS3Error('string')).toBe('fatal');
  });
});
