// Who a JSON API write records as author and committer, as git's own environment variables: the request says
// it, so the server's configuration (user.name, the host's clock and zone) never shows in a commit.
import { PublicError } from '../../../src/errors.ts';

/** A person as a write request names them; `when` is RFC 3339 with an explicit offset or `Z` (default: now, UTC). */
export interface Identity {
  readonly name: string;
  readonly email: string;
  readonly when?: string | undefined;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|([+-])(\d{2}):(\d{2}))$/;

/** A field of the request git cannot record as it was meant (a bad date, a `<` in a name). */
export class InvalidIdentityError extends PublicError {
  override readonly name = 'InvalidIdentityError';
  readonly code = 'invalid_request';
  constructor(detail: string) {
    super(400, detail);
  }
}

/**
 * `when` in git's internal date format, `<unix seconds> <+hhmm>`: the offset is kept as written, so the commit
 * shows the zone the client gave. Throws `InvalidIdentityError` for anything but RFC 3339 with an offset.
 */
export function gitDate(when: string): string {
  const match = RFC3339.exec(when);
  const ms = Date.parse(when);
  if (!match || Number.isNaN(ms)) throw new InvalidIdentityError(`${JSON.stringify(when.slice(0, 64))} is not an RFC 3339 date with an offset.`);
  const [, , month, day, hour, minute, second, , , sign, offH, offM] = match;
  if (Number(month) > 12 || Number(day) > 31 || Number(hour) > 23 || Number(minute) > 59 || Number(second) > 60) {
    throw new InvalidIdentityError(`${JSON.stringify(when)} is not a valid date.`);
  }
  // git stores seconds since 1970 as an unsigned number: an earlier date fails its date parser and fsck.
  if (ms < 0) throw new InvalidIdentityError(`${JSON.stringify(when)} is before 1970-01-01T00:00:00Z, which git cannot record.`);
  const offset = sign ? `${sign}${offH}${offM}` : '+0000';
  return `${Math.floor(ms / 1000)} ${offset}`;
}

/** git refuses `<`, `>` and line breaks in idents (they would end the header); names and emails must not be empty. */
function checkPart(what: string, value: string): void {
  if (value.trim() === '' || /[<>\n\r\0]/.test(value)) throw new InvalidIdentityError(`The ${what} ${JSON.stringify(value.slice(0, 64))} cannot be recorded by git.`);
}

/** The environment that makes git record `committer` (and `author`, default the committer). */
export function identityEnv(committer: Identity, author: Identity = committer, now: () => Date = () => new Date()): Record<string, string> {
  for (const [role, who] of [
    ['committer', committer],
    ['author', author],
  ] as const) {
    checkPart(`${role} name`, who.name);
    checkPart(`${role} email`, who.email);
  }
  const fallback = `${Math.floor(now().getTime() / 1000)} +0000`;
  return {
    GIT_COMMITTER_NAME: committer.name,
    GIT_COMMITTER_EMAIL: committer.email,
    GIT_COMMITTER_DATE: committer.when === undefined ? fallback : gitDate(committer.when),
    GIT_AUTHOR_NAME: author.name,
    GIT_AUTHOR_EMAIL: author.email,
    GIT_AUTHOR_DATE: author.when === undefined ? fallback : gitDate(author.when),
  };
}
