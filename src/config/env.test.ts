import { describe, expect, it } from 'vitest';
import { ConfigError, EnvReader, isSecretName, shownValue } from './env.ts';
import { configFailure } from './testing/config-failure.ts';

const read = (env: Record<string, string>) => new EnvReader(env);

describe('EnvReader', () => {
  it('answers the default for an unset or empty variable, whatever its kind', () => {
    const r = read({ EMPTY: '' });
    for (const name of ['UNSET', 'EMPTY']) {
      expect(r.optional(name)).toBeUndefined();
      expect(r.string(name, 'd')).toBe('d');
      expect(r.port(name, 8080)).toBe(8080);
      expect(r.integer(name, 7)).toBe(7);
      expect(r.positiveNumber(name, 0.5)).toBe(0.5);
      expect(r.durationMs(name, 20_000)).toBe(20_000);
      expect(r.bool(name, true)).toBe(true);
      expect(r.url(name)).toBeUndefined();
      expect(r.oneOf(name, ['a', 'b'], 'b')).toBe('b');
      expect(r.list(name)).toEqual([]);
      expect(r.matching(name, undefined, () => false, 'x')).toBeUndefined();
    }
  });

  it.each([
    ['port', { V: '1' }, (r: EnvReader) => r.port('V', 80), 1],
    ['port', { V: '65535' }, (r: EnvReader) => r.port('V', 80), 65535],
    ['integer', { V: '200' }, (r: EnvReader) => r.integer('V', 1, { max: 1000 }), 200],
    ['positiveNumber', { V: '0.5' }, (r: EnvReader) => r.positiveNumber('V', 1), 0.5],
    ['positiveNumber', { V: '1e+06' }, (r: EnvReader) => r.positiveNumber('V', 1), 1_000_000],
    ['durationMs', { V: '1500' }, (r: EnvReader) => r.durationMs('V', 0), 1500],
    ['durationMs', { V: '500ms' }, (r: EnvReader) => r.durationMs('V', 0), 500],
    ['durationMs', { V: '20s' }, (r: EnvReader) => r.durationMs('V', 0), 20_000],
    ['durationMs', { V: '5m' }, (r: EnvReader) => r.durationMs('V', 0), 300_000],
    ['durationMs', { V: '1h' }, (r: EnvReader) => r.durationMs('V', 0), 3_600_000],
    ['bytes', { V: '1048576' }, (r: EnvReader) => r.bytes('V', 1), 1_048_576],
    ['bytes', { V: '2Gi' }, (r: EnvReader) => r.bytes('V', 1), 2 * 2 ** 30],
    ['bytes', { V: '500k' }, (r: EnvReader) => r.bytes('V', 1), 500_000],
    ['bool', { V: 'true' }, (r: EnvReader) => r.bool('V', false), true],
    ['bool', { V: '1' }, (r: EnvReader) => r.bool('V', false), true],
    ['bool', { V: 'false' }, (r: EnvReader) => r.bool('V', true), false],
    ['bool', { V: '0' }, (r: EnvReader) => r.bool('V', true), false],
    ['url', { V: 'https://api.example.com/base' }, (r: EnvReader) => r.url('V'), 'https://api.example.com/base'],
    ['oneOf', { V: 'memory' }, (r: EnvReader) => r.oneOf('V', ['route53', 'memory'], 'route53'), 'memory'],
    ['list', { V: ' a, b,,c ' }, (r: EnvReader) => r.list('V'), ['a', 'b', 'c']],
    ['required', { V: 'x' }, (r: EnvReader) => r.required('V', 'why'), 'x'],
  ])('%s reads %j', (_kind, env, get, expected) => {
    expect(get(read(env))).toEqual(expected);
  });

  it.each([
    [{ CW_API_PORT: '80a' }, (r: EnvReader) => r.port('CW_API_PORT', 8080), 'CW_API_PORT must be a port number from 1 to 65535, got "80a"'],
    [{ CW_API_PORT: '0' }, (r: EnvReader) => r.port('CW_API_PORT', 8080), 'CW_API_PORT must be a port number from 1 to 65535, got "0"'],
    [{ CW_API_PORT: '70000' }, (r: EnvReader) => r.port('CW_API_PORT', 8080), 'CW_API_PORT must be a port number from 1 to 65535, got "70000"'],
    [{ CW_API_PORT: ' 80' }, (r: EnvReader) => r.port('CW_API_PORT', 8080), 'CW_API_PORT must be a port number from 1 to 65535, got " 80"'],
    [{ N: '1e3' }, (r: EnvReader) => r.integer('N', 1), 'N must be a whole number of at least 1, got "1e3"'],
    [{ N: '-1' }, (r: EnvReader) => r.integer('N', 1, { max: 10 }), 'N must be a whole number from 1 to 10, got "-1"'],
    [{ N: '11' }, (r: EnvReader) => r.integer('N', 1, { max: 10 }), 'N must be a whole number from 1 to 10, got "11"'],
    [{ N: '0' }, (r: EnvReader) => r.positiveNumber('N', 1), 'N must be a number greater than 0, got "0"'],
    [{ N: 'NaN' }, (r: EnvReader) => r.positiveNumber('N', 1, { max: 100 }), 'N must be a number greater than 0 and at most 100, got "NaN"'],
    [{ D: '20 s' }, (r: EnvReader) => r.durationMs('D', 0), 'D must be a duration (milliseconds, or with a unit: 500ms, 20s, 5m, 1h), got "20 s"'],
    [{ D: '2h' }, (r: EnvReader) => r.durationMs('D', 0, { min: 1, max: 3_600_000 }), 'D must be a duration (milliseconds, or with a unit: 500ms, 20s, 5m, 1h) from 1 ms to 3600000 ms, got "2h"'],
    [{ S: '2GB' }, (r: EnvReader) => r.bytes('S', 1), 'S must be a size in bytes, or with a unit (Ki, Mi, Gi, Ti, k, M, G, T: 512Mi, 2Gi), got "2GB"'],
    [{ S: '1Ki' }, (r: EnvReader) => r.bytes('S', 1, { min: 4096 }), 'S must be a size in bytes, or with a unit (Ki, Mi, Gi, Ti, k, M, G, T: 512Mi, 2Gi) of at least 4096 bytes, got "1Ki"'],
    [{ B: 'yes' }, (r: EnvReader) => r.bool('B', false), 'B must be true or false (or 1 or 0), got "yes"'],
    [{ U: 'ftp://host/' }, (r: EnvReader) => r.url('U'), 'U must be an http:// or https:// URL, got "ftp://host/"'],
    [{ U: 'localhost:8080' }, (r: EnvReader) => r.url('U'), 'U must be an http:// or https:// URL, got "localhost:8080"'],
    [{ E: 'Memory' }, (r: EnvReader) => r.oneOf('E', ['route53', 'memory'], 'route53'), 'E must be one of route53, memory, got "Memory"'],
    [{ L: 'a,b!' }, (r: EnvReader) => r.list('L', { valid: (t) => /^\w+$/.test(t), expects: 'a list of words' }), 'L must be a list of words, got "a,b!"'],
    [{}, (r: EnvReader) => r.required('R', 'the bucket'), 'R is required (the bucket)'],
    [{ M: 'x y' }, (r: EnvReader) => r.matching('M', 'd', (t) => !t.includes(' '), 'one word'), 'M must be one word, got "x y"'],
  ])('refuses %j with one line naming the variable', (env, get, message) => {
    expect(configFailure(() => get(read(env)))).toBe(message);
  });

  it('never shows the value of a secret variable, nor a URL with credentials', () => {
    expect(configFailure(() => read({ CW_S3_SECRET_ACCESS_KEY: 'hunter2' }).bool('CW_S3_SECRET_ACCESS_KEY', false))).toBe(
      'CW_S3_SECRET_ACCESS_KEY must be true or false (or 1 or 0), got a value that is not shown (secret)',
    );
    expect(configFailure(() => read({ CW_HOOK_URL: 'ftp://user:hunter2@host/' }).url('CW_HOOK_URL'))).toBe('CW_HOOK_URL must be an http:// or https:// URL, got a URL with credentials (not shown)');
  });

  it('shows a value on one line, escaped and cut short', () => {
    expect(shownValue('V', 'a\nb')).toBe('"a\\nb"');
    expect(shownValue('V', 'x'.repeat(300))).toBe(`"${'x'.repeat(200)}…"`);
  });

  it('throws ConfigError, which a binary tells from other failures', () => {
    expect(() => read({ P: 'x' }).port('P', 1)).toThrow(ConfigError);
  });
});

describe('isSecretName', () => {
  it.each(['CW_S3_SECRET_ACCESS_KEY', 'CW_S3_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'CW_GIT_TOKEN', 'SERVICE__AUTH__TOKEN_SECRET', 'DB_PASSWORD', 'SECRET'])('%s is secret', (name) => {
    expect(isSecretName(name)).toBe(true);
  });

  it.each(['CW_API_PORT', 'KUBECONFIG', 'CW_API_TRUST_PROXY', 'CW_DNS_OWNER_ID', 'CW_RUNTIME_WORKERS', 'HOSTNAME'])('%s is not', (name) => {
    expect(isSecretName(name)).toBe(false);
  });
});
