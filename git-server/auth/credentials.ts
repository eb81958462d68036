// Where a request's token is: `Authorization: Bearer <token>`, or HTTP Basic with the token as the password —
// stock git and git-lfs only send Basic credentials (from a credential helper or `http://x:<token>@host/…`).
import { UnauthenticatedError } from './errors.ts';

const MAX_HEADER_LENGTH = 8192;

/**
 * The token carried by an `Authorization` header. Basic: the password, or the user name when the password is
 * empty (`http://<token>@host/…`). Throws `UnauthenticatedError` when there is none or the header is not one
 * of these schemes.
 */
export function tokenFromAuthorization(header: string | undefined): string {
  if (header === undefined || header.trim() === '') {
    throw new UnauthenticatedError('Authentication required: send an access token as "Authorization: Bearer <token>" or as the password of HTTP Basic.');
  }
  if (header.length > MAX_HEADER_LENGTH) throw new UnauthenticatedError('The Authorization header is too long.');
  const match = /^([A-Za-z]+) +(\S+) *$/.exec(header);
  const scheme = match?.[1]?.toLowerCase();
  const value = match?.[2] ?? '';
  if (scheme === 'bearer') return value;
  if (scheme === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw new UnauthenticatedError('The Basic credentials are malformed: expected base64 of "user:token".');
    const user = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1);
    const token = password || user;
    if (!token) throw new UnauthenticatedError('The Basic credentials carry no token: put the access token in the password.');
    return token;
  }
  throw new UnauthenticatedError('Unsupported Authorization scheme: use Bearer, or Basic with the access token as the password.');
}
