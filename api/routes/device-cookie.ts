// OWASP's device cookies, against a user locked out by guesses from many addresses: a browser that signed in as a
// user before carries proof of it, and its attempts for that user are counted on their own, apart from everyone
// else's. Someone guessing from elsewhere spends only the allowance of browsers without it, so the person keeps
// signing in from their own. The proof is keyed with the user's stored password hash, which only the server holds
// and which changes with the password (ending every device's proof): no key of its own to configure or share.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { parseCookie, stringifySetCookie } from 'cookie';

/** A year: a browser used now and then keeps its standing. */
const MAX_AGE_SECONDS = 365 * 24 * 3600;

export function deviceCookieName(secure: boolean): string {
  return secure ? '__Host-cw_device' : 'cw_device';
}

function mac(user: string, nonce: string, passwordHash: string): string {
  return createHmac('sha256', passwordHash).update(`cloudwright-device\n${user}\n${nonce}`).digest('base64url');
}

/** The `set-cookie` value proving this browser signed in as `user` (HttpOnly, SameSite=Strict, Secure where asked). */
export function deviceSetCookie(secure: boolean, user: string, passwordHash: string): string {
  const nonce = randomBytes(16).toString('base64url');
  const value = `${nonce}.${mac(user, nonce, passwordHash)}`;
  return stringifySetCookie({ name: deviceCookieName(secure), value, httpOnly: true, sameSite: 'strict', path: '/', secure, maxAge: MAX_AGE_SECONDS });
}

/** The device a request's cookie proves signed in as `user` before (its nonce), if it does. */
export function deviceOf(cookieHeader: string | undefined, secure: boolean, user: string, passwordHash: string | undefined): string | undefined {
  if (cookieHeader === undefined || passwordHash === undefined) return undefined;
  const [nonce, given] = (parseCookie(cookieHeader)[deviceCookieName(secure)] ?? '').split('.');
  // As made (16 bytes, base64url): a nonce is a key of the attempts' allowances, so none of a caller's choosing.
  if (nonce?.length !== 22 || !given) return undefined;
  const expected = Buffer.from(mac(user, nonce, passwordHash));
  const presented = Buffer.from(given);
  return presented.length === expected.length && timingSafeEqual(presented, expected) ? nonce : undefined;
}
