// Import sources outside the bucket: an `https://` URL of a git repository, and the allow-list entries of
// `api.import_sources` that admit such URLs. A pattern is `https://<host>[/<path>]`: the host glob (`*` any
// characters: `*.example.com`, `*` alone any host; a port when not 443) matches the URL's host, and the path glob,
// when given, its path (`*` within one segment, `**` across segments: `https://github.com/acme/*`); without a path
// every repository of the host is admitted. Matched in linear time (src/git/ref-glob.ts), so no pattern can stall a request.
import { PublicError } from '../../src/errors.ts';
import { refGlob, type RefGlob } from '../../src/git/ref-glob.ts';
import { trimTrailing } from '../../src/text/trim.ts';

/** At most this long, as git and browsers cope with much longer URLs but nobody's repository needs it. */
const MAX_URL = 2048;

/** 400: the `url` of an import source is not one this service fetches from. */
export class InvalidSourceUrlError extends PublicError {
  override readonly name = 'InvalidSourceUrlError';
  readonly code = 'invalid_source_url';
  constructor(detail: string) {
    super(400, `source.url ${detail}.`);
  }
}

/**
 * The canonical form of an import source URL (`https://host[:port]/path`, lower-case host, no trailing slash),
 * or a 400 saying what is wrong. Credentials belong in `credentials`, never in the URL (it is recorded in the
 * snapshot and the receipt); the message never repeats the URL, which may hold them.
 */
export function parseSourceUrl(text: string): URL {
  if (text.length > MAX_URL) throw new InvalidSourceUrlError(`is longer than ${MAX_URL} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidSourceUrlError('is not a URL (expected https://host/path.git)');
  }
  if (url.protocol !== 'https:') throw new InvalidSourceUrlError(`must be an https:// URL, not ${url.protocol}//`);
  if (url.username || url.password) throw new InvalidSourceUrlError('must not contain credentials: send them in the request’s `credentials`');
  if (url.search || url.hash) throw new InvalidSourceUrlError('must not have a query or a fragment');
  if (url.pathname === '/' || url.pathname === '') throw new InvalidSourceUrlError('names no repository (expected https://host/path.git)');
  // An encoded slash or backslash is a segment boundary to many servers but not to the allow-list's `*`, which
  // stops at a literal `/`: `https://h/acme/*` would admit `/acme/x%2F..%2Fother`.
  if (/%(?:2f|5c)/i.test(url.pathname)) throw new InvalidSourceUrlError('must not have an encoded slash or backslash (%2F, %5C) in its path');
  url.pathname = trimTrailing(url.pathname, '/');
  return url;
}

/** Whether `entry` of `api.import_sources` is a URL pattern (else it is an `owner/name` of this bucket). */
export function isUrlPattern(entry: string): boolean {
  return entry.startsWith('https://');
}

interface CompiledPattern {
  readonly host: RefGlob;
  readonly path: RefGlob | undefined;
}

/** Throws a plain `Error` saying why `pattern` is not a URL pattern (the configuration loader names the key). */
export function checkUrlPattern(pattern: string): string {
  compile(pattern);
  return pattern;
}

function compile(pattern: string): CompiledPattern {
  const match = /^https:\/\/([^/?#@\s]+)(\/[^?#\s]*)?$/.exec(pattern);
  if (!match) throw new Error(`"${pattern}" is not an import source pattern (expected https://host[/path], * as a wildcard)`);
  const [, host = '', path] = match;
  return { host: refGlob(host.toLowerCase().replace(/:443$/, '')), path: path === undefined || path === '/' ? undefined : refGlob(path.replace(/\/+$/, '')) };
}

/** The URL patterns of `api.import_sources`. */
export class SourcePatterns {
  readonly #patterns: readonly CompiledPattern[];

  constructor(entries: readonly string[]) {
    this.#patterns = entries.filter(isUrlPattern).map(compile);
  }

  get empty(): boolean {
    return this.#patterns.length === 0;
  }

  /** Whether some pattern admits `url` (a URL `parseSourceUrl` answered). */
  admits(url: URL): boolean {
    return this.#patterns.some((p) => p.host.matches(url.host) && (p.path === undefined || p.path.matches(url.pathname)));
  }
}
