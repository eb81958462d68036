// The kinds of value a configuration key can hold. Each kind reads a YAML value (already typed by the parser)
// or an environment override (always a string) and answers the typed value, or throws `FieldError`.
import { isIP } from 'node:net';
import { FieldError } from './config-error.ts';
import { parseDuration } from './duration.ts';
import { isAddressOrRange } from '../../src/address-range.ts';

/** One configuration key's kind: how to read it, and what it is when absent. */
export interface Field<T> {
  /** Whether the value is a secret: no message ever quotes it. */
  readonly secret: boolean;
  /** A YAML value; `null` never reaches here (an empty key counts as absent). */
  fromYaml(value: unknown): T;
  /** An environment override. An empty string means "set to nothing": the default, or an empty list. */
  fromEnv(text: string): T;
  /** The value when the key is absent; throws `FieldError` for a required key. */
  absent(): T;
}

/** The value type a field produces. */
export type FieldValue<F> = F extends Field<infer T> ? T : never;

const MAX_TEXT = 4096;

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value !== null && typeof value === 'object') return 'a mapping';
  return typeof value;
}

interface TextOptions {
  secret?: boolean;
  /** Checks (and may normalise) a non-empty value; throws `FieldError`. */
  check?: (text: string) => string;
}

function required(): never {
  throw new FieldError('is required but not set');
}

function textField<D>(fallback: () => D, options: TextOptions): Field<string | D> {
  const read = (text: string): string | D => {
    if (text === '') return fallback();
    if (text.length > MAX_TEXT) throw new FieldError(`is longer than ${MAX_TEXT} characters`);
    return options.check ? options.check(text) : text;
  };
  return {
    secret: options.secret ?? false,
    fromYaml: (value) => {
      // Numbers and booleans are not silently turned into strings: `bucket: 123` is more likely a mistake.
      if (typeof value !== 'string') throw new FieldError(`expected a string, got ${describe(value)}`);
      return read(value);
    },
    fromEnv: read,
    absent: fallback,
  };
}

/** A required string; empty counts as missing. */
export function requiredText(options: TextOptions = {}): Field<string> {
  return textField(required, options);
}

/** A string with a default (or `undefined` when optional); an empty string counts as absent. */
export function text<D extends string | undefined>(fallback: D, options: TextOptions = {}): Field<string | D> {
  return textField(() => fallback, options);
}

/** `true` or `false`. */
export function bool(fallback: boolean): Field<boolean> {
  return {
    secret: false,
    fromYaml: (value) => {
      if (typeof value !== 'boolean') throw new FieldError(`expected true or false, got ${describe(value)}`);
      return value;
    },
    fromEnv: (value) => {
      if (value === '') return fallback;
      if (value === 'true' || value === 'false') return value === 'true';
      throw new FieldError(`expected true or false, got "${value}"`);
    },
    absent: () => fallback,
  };
}

/** A duration string (`20s`), read into milliseconds. */
export function duration(fallback: string): Field<number> {
  const fallbackMs = parseDuration(fallback);
  return {
    secret: false,
    fromYaml: (value) => {
      if (value === 0) return 0;
      if (typeof value !== 'string') throw new FieldError(`expected a duration such as "20s", got ${describe(value)}`);
      return parseDuration(value);
    },
    fromEnv: (value) => (value === '' ? fallbackMs : parseDuration(value)),
    absent: () => fallbackMs,
  };
}

/** A number from 0 to 1 inclusive (`0.85`). */
export function fraction(fallback: number): Field<number> {
  const check = (n: number, shown: string): number => {
    if (!Number.isFinite(n) || n < 0 || n > 1) throw new FieldError(`expected a fraction from 0 to 1 (such as 0.85), got ${shown}`);
    return n;
  };
  return {
    secret: false,
    fromYaml: (value) => {
      if (typeof value !== 'number') throw new FieldError(`expected a fraction from 0 to 1 (such as 0.85), got ${describe(value)}`);
      return check(value, String(value));
    },
    fromEnv: (value) => (value === '' ? fallback : check(value.trim() === '' ? NaN : Number(value), `"${value}"`)),
    absent: () => fallback,
  };
}

// Binary units, and Kubernetes' decimal ones (`20G`, as a chart value may be written).
const SIZE_UNITS: Readonly<Record<string, number>> = { '': 1, b: 1, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3, tib: 1024 ** 4, k: 1e3, m: 1e6, g: 1e9, t: 1e12 };

/**
 * A size in bytes: a whole number with an optional binary unit (`512MiB`, `1GiB`, `65536`; Kubernetes' `512Mi`,
 * `20Gi` and decimal `20G` too, so a chart value that is a volume's size reads as it is). `undefined` as the
 * fallback makes the key optional.
 */
export function byteSize<D extends string | undefined>(fallback: D): Field<number | (D extends string ? never : undefined)> {
  type Value = number | (D extends string ? never : undefined);
  const parse = (value: string): number => {
    const match = /^(\d{1,16})\s*(?:([KMGT]i)B?|([KMGT])|(B))?$/i.exec(value.trim());
    const unit = match ? (match[2] ? `${match[2]}b` : (match[3] ?? match[4] ?? '')).toLowerCase() : '';
    const bytes = match ? Number(match[1]) * (SIZE_UNITS[unit] ?? NaN) : NaN;
    if (!Number.isSafeInteger(bytes) || bytes <= 0) throw new FieldError(`"${value}" is not a size (examples: 65536, 512MiB, 1GiB)`);
    return bytes;
  };
  const orFallback = (): Value => (fallback === undefined ? undefined : parse(fallback)) as Value;
  return {
    secret: false,
    fromYaml: (value) => {
      if (typeof value === 'number') return parse(String(value));
      if (typeof value !== 'string') throw new FieldError(`expected a size such as "1GiB", got ${describe(value)}`);
      return parse(value);
    },
    fromEnv: (value) => (value === '' ? orFallback() : parse(value)),
    absent: orFallback,
  };
}

/** A whole number of at least 1 (`100`). */
export function count(fallback: number): Field<number> {
  const parse = (value: unknown, shown: string): number => {
    const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d{1,9}$/.test(value.trim()) ? Number(value) : NaN;
    if (!Number.isSafeInteger(n) || n < 1) throw new FieldError(`expected a whole number of at least 1, got ${shown}`);
    return n;
  };
  return {
    secret: false,
    fromYaml: (value) => parse(value, typeof value === 'number' ? String(value) : describe(value)),
    fromEnv: (value) => (value === '' ? fallback : parse(value, `"${value}"`)),
    absent: () => fallback,
  };
}

/** One of a fixed set of words. */
export function oneOf<const V extends string>(values: readonly V[], fallback: V): Field<V> {
  return text(fallback, {
    check: (value) => {
      if (!(values as readonly string[]).includes(value)) throw new FieldError(`expected one of ${values.join(', ')}, got "${value}"`);
      return value;
    },
  }) as Field<V>;
}

/** A list: a YAML sequence, or comma-separated in the environment. Items are checked one by one. */
export function list<T>(item: (text: string) => T): Field<T[]> {
  const each = (items: string[]): T[] =>
    items.map((entry, i) => {
      try {
        return item(entry);
      } catch (err) {
        if (err instanceof FieldError) throw new FieldError(`item ${i + 1}: ${err.message}`);
        throw err;
      }
    });
  return {
    secret: false,
    fromYaml: (value) => {
      if (!Array.isArray(value)) throw new FieldError(`expected a list, got ${describe(value)}`);
      if (value.length > 1000) throw new FieldError('has more than 1000 items');
      const strings = value.map((v, i) => {
        if (typeof v !== 'string') throw new FieldError(`item ${i + 1}: expected a string, got ${describe(v)}`);
        return v;
      });
      return each(strings);
    },
    fromEnv: (value) => (value.trim() === '' ? [] : each(value.split(',').map((s) => s.trim()))),
    absent: () => [],
  };
}

/**
 * An absolute `http:` or `https:` URL without credentials, query or fragment. Messages do not quote the
 * value: a mistyped URL may still carry a password.
 */
export function checkHttpUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new FieldError('is not a URL (expected http://host/… or https://host/…)');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new FieldError('is not an http:// or https:// URL');
  if (url.username || url.password) throw new FieldError('must not contain credentials (user:password@)');
  if (url.search || url.hash) throw new FieldError('must not have a query or a fragment');
  return value;
}

/** A base URL other URLs are built on: as `checkHttpUrl`, answered without a trailing slash. */
export function checkBaseUrl(value: string): string {
  return checkHttpUrl(value).replace(/\/+$/, '');
}

/** A browser origin: scheme, host and optional port, nothing else (`https://app.example.com`). */
export function checkOrigin(value: string): string {
  const origin = new URL(checkHttpUrl(value)).origin;
  if (origin !== value.replace(/\/$/, '')) throw new FieldError(`"${value}" is not an origin (expected scheme://host[:port], such as ${origin})`);
  return origin;
}

/** An IP address or a CIDR range (`10.0.0.0/8`, `fd00::/8`). */
export function checkAddressOrRange(value: string): string {
  if (!isAddressOrRange(value)) throw new FieldError(`"${value}" is not an IP address or CIDR range`);
  return value;
}

/** A listen address `host:port` (`127.0.0.1:8090`, `[::]:8090`, `0.0.0.0:0`). */
export interface ListenAddress {
  host: string;
  port: number;
}

export function hostPort(fallback: string): Field<ListenAddress> {
  const parse = (value: string): ListenAddress => {
    const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]\s]+)):(\d{1,5})$/.exec(value);
    const port = Number(match?.[3]);
    const host = match?.[1] ?? match?.[2];
    if (!match || host === undefined || port > 65535 || (match[1] !== undefined && isIP(host) !== 6)) {
      throw new FieldError(`"${value}" is not host:port (such as 127.0.0.1:8090 or [::]:8090)`);
    }
    return { host, port };
  };
  const field = text(fallback);
  return {
    secret: false,
    fromYaml: (value) => parse(field.fromYaml(value)),
    fromEnv: (value) => parse(field.fromEnv(value)),
    absent: () => parse(fallback),
  };
}
