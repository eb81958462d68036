import { describe, expect, it } from 'vitest';
import { BadRequestError, ConflictError, NotFoundError, PublicError } from '../errors.ts';
import { ForbiddenError, UnauthorizedError } from './errors.ts';

describe('auth errors', () => {
  it.each([
    {
      error: new UnauthorizedError('no token', { tokenPresented: false }),
      status: 401,
      headers: { 'www-authenticate': 'Bearer realm="cloudwright"' },
    },
    {
      error: new UnauthorizedError('bad token', { tokenPresented: true }),
      status: 401,
      headers: { 'www-authenticate': 'Bearer realm="cloudwright", error="invalid_token"' },
    },
    {
      error: new ForbiddenError('no scope', { missingScope: 'apps:write' }),
      status: 403,
      headers: { 'www-authenticate': 'Bearer realm="cloudwright", error="insufficient_scope", scope="apps:write"' },
    },
    { error: new ForbiddenError('not a member'), status: 403, headers: {} },
    { error: new BadRequestError('bad'), status: 400, headers: {} },
    { error: new NotFoundError('gone'), status: 404, headers: {} },
    { error: new ConflictError('again'), status: 409, headers: {} },
  ])('$error.name carries status $status and its challenge', ({ error, status, headers }) => {
    expect(error).toBeInstanceOf(PublicError);
    expect(error.status).toBe(status);
    expect(error.headers).toEqual(headers);
  });
});
