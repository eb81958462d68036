// Typed readers of a process's environment. Each binary reads every variable once, at start, through an
// `EnvReader` into a frozen configuration object; a bad value stops it with one line naming the variable,
// what it got and what it expects.
//
// Our own rather than TypeBox's Value module (already a dependency): Value.Convert + Value.Check validate an
// object schema, but their errors name a JSON path with generic text ("Expected integer"), `Convert` turns
// "" into 0 and "1e3" into 1000, ports, durations, URL schemes and comma-separated lists would each still need
// a custom format, and redacting secrets would be a pass over its errors. That is more code than these
// readers, and worse messages.

/** A variable a binary cannot start with. The message is one line naming the variable, never a secret's value. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** The environment as a process gets it. */
export type Env = Readonly<Record<string, string | undefined>>;

/** Whether a variable's value must never be shown: `*_SECRET*`, `*_KEY*`, `*_TOKEN*`, `*PASSWORD*`. */
export function isSecretName(name: string): boolean {
  return /(^|_)(SECRET|KEY|TOKEN)|PASSWORD/i.test(name);
}

const MAX_SHOWN = 200;

/** How an error line shows `value` of `name`: quoted and escaped (one line), cut short, or not at all for a secret. */
export function shownValue(name: string, value: string): string {
  if (isSecretName(name)) return 'a value that is not shown (secret)';
  // A URL may carry a password whatever the variable is called.
  if (/^[a-z][a-z0-9+.-]*:\/\/[^/@\s]*:[^/@\s]*@/i.test(value)) return 'a URL with credentials (not shown)';
  const cut = value.length > MAX_SHOWN ? `${value.slice(0, MAX_SHOWN)}…` : value;
  return JSON.stringify(cut);
}

/** The error for a value of `name` that is not what it `expects` ("a port number from 1 to 65535"). */
export function configError(name: string, value: string, expects: string): ConfigError {
  return new ConfigError(`${name} must be ${expects}, got ${shownValue(name, value)}`);
}

export interface Bounds {
  readonly min?: number;
  readonly max?: number;
}

const BYTE_UNITS: Record<string, number> = { '': 1, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, k: 1e3, M: 1e6, G: 1e9, T: 1e12 };
const DURATION_UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * Reads variables of one environment. An unset or empty variable takes its default (an empty value is
 * what a chart writes for "not set"); a set one must be valid, or the reader throws {@link ConfigError}.
 */
export class EnvReader {
  readonly #env: Env;

  constructor(env: Env) {
    this.#env = env;
  }

  /** The raw value; `undefined` when unset or empty. */
  optional(name: string): string | undefined {
    const value = this.#env[name];
    return value === undefined || value === '' ? undefined : value;
  }

  /** A string with a default. */
  string(name: string, fallback: string): string {
    return this.optional(name) ?? fallback;
  }

  /** A string that must be set; `what` says what it is for. */
  required(name: string, what: string): string {
    const value = this.optional(name);
    if (value === undefined) throw new ConfigError(`${name} is required (${what})`);
    return value;
  }

  /** A TCP port, 1 to 65535. */
  port(name: string, fallback: number): number {
    return this.integer(name, fallback, { min: 1, max: 65535 }, 'a port number from 1 to 65535');
  }

  /** A whole number from `min` (default 1) to `max` (default 2^53 - 1), digits only. */
  integer(name: string, fallback: number, bounds: Bounds = {}, expects?: string): number {
    const { min = 1, max = Number.MAX_SAFE_INTEGER } = bounds;
    const raw = this.optional(name);
    if (raw === undefined) return fallback;
    const value = /^\d{1,16}$/.test(raw) ? Number(raw) : NaN;
    if (!(value >= min && value <= max)) throw configError(name, raw, expects ?? rangeText('a whole number', min, max));
    return value;
  }

  /** A number greater than 0 (`0.5`, `3600`, `1e+06`), at most `max`. */
  positiveNumber(name: string, fallback: number, bounds: { max?: number } = {}): number {
    const max = bounds.max ?? Number.MAX_SAFE_INTEGER;
    const raw = this.optional(name);
    if (raw === undefined) return fallback;
    // Exponents too: Helm renders a large number from values.yaml as 1e+06.
    const value = /^\d+(\.\d+)?(e[+-]?\d+)?$/i.test(raw) ? Number(raw) : NaN;
    if (!(value > 0 && value <= max)) throw configError(name, raw, `a number greater than 0${max < Number.MAX_SAFE_INTEGER ? ` and at most ${max}` : ''}`);
    return value;
  }

  /** A duration, answered in milliseconds: whole milliseconds (`1500`) or a number with a unit (`500ms`, `20s`, `5m`, `1h`). */
  durationMs(name: string, fallback: number, bounds: Bounds = {}): number {
    const { min = 0, max = Number.MAX_SAFE_INTEGER } = bounds;
    const raw = this.optional(name);
    if (raw === undefined) return fallback;
    const match = /^(\d{1,12})(ms|s|m|h)?$/.exec(raw);
    const value = match ? Number(match[1]) * (DURATION_UNITS[match[2] ?? 'ms'] ?? NaN) : NaN;
    if (!(value >= min && value <= max)) {
      const range = min === 0 && max >= Number.MAX_SAFE_INTEGER ? '' : ` ${rangeText('', min, max, ' ms').trim()}`;
      throw configError(name, raw, `a duration (milliseconds, or with a unit: 500ms, 20s, 5m, 1h)${range}`);
    }
    return value;
  }

  /**
   * A size in bytes: whole bytes (`1048576`) or a Kubernetes quantity (`512Mi`, `2Gi`, `1G`, `500k`), so a
   * chart value such as a volume's size can be passed as it is. From `min` (default 1) to `max`.
   */
  bytes(name: string, fallback: number, bounds: Bounds = {}): number {
    const { min = 1, max = Number.MAX_SAFE_INTEGER } = bounds;
    const raw = this.optional(name);
    if (raw === undefined) return fallback;
    const match = /^(\d{1,15})(Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(raw);
    const value = match ? Number(match[1]) * (BYTE_UNITS[match[2] ?? ''] ?? NaN) : NaN;
    if (!(value >= min && value <= max)) throw configError(name, raw, `a size in bytes, or with a unit (Ki, Mi, Gi, Ti, k, M, G, T: 512Mi, 2Gi)${min > 1 ? ` of at least ${min} bytes` : ''}`);
    return value;
  }

  /** `true` or `false` (`1` and `0` too). */
  bool(name: string, fallback: boolean): boolean {
    const raw = this.optional(name);
    if (raw === undefined) return fallback;
    if (raw === 'true' || raw === '1') return true;
    if (raw === 'false' || raw === '0') return false;
    throw configError(name, raw, 'true or false (or 1 or 0)');
  }

  /** An absolute `http:` or `https:` URL. */
  url(name: string): string | undefined {
    const raw = this.optional(name);
    if (raw !== undefined && !isHttpUrl(raw)) throw configError(name, raw, 'an http:// or https:// URL');
    return raw;
  }

  /** One of `values`. */
  oneOf<const V extends string>(name: string, values: readonly V[], fallback: V): V {
    const raw = this.optional(name);
    if (raw === undefined) return fallback;
    if (!(values as readonly string[]).includes(raw)) throw configError(name, raw, `one of ${values.join(', ')}`);
    return raw as V;
  }

  /**
   * A comma-separated list, items trimmed, empty items dropped. With `item`, each must pass it: `expects`
   * says what the list is ("a comma-separated list of http:// or https:// URLs").
   */
  list(name: string, item?: { readonly valid: (text: string) => boolean; readonly expects: string }): string[] {
    const raw = this.optional(name);
    if (raw === undefined) return [];
    const items = raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (item && !items.every(item.valid)) throw configError(name, raw, item.expects);
    return items;
  }

  /** A string that must pass `valid`; `expects` describes it ("a host name"). */
  matching(name: string, fallback: string, valid: (text: string) => boolean, expects: string): string;
  matching(name: string, fallback: undefined, valid: (text: string) => boolean, expects: string): string | undefined;
  matching(name: string, fallback: string | undefined, valid: (text: string) => boolean, expects: string): string | undefined {
    const raw = this.optional(name);
    if (raw === undefined) return fallback;
    if (!valid(raw)) throw configError(name, raw, expects);
    return raw;
  }
}

/** Whether `text` is an absolute `http:` or `https:` URL. */
export function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

function rangeText(what: string, min: number, max: number, unit = ''): string {
  if (max >= Number.MAX_SAFE_INTEGER) return `${what} of at least ${min}${unit}`;
  return `${what} from ${min}${unit} to ${max}${unit}`;
}
