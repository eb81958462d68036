// Strict reading of the JSON objects this package stores: every field is checked, and a failure names the
// object key and the field, as a `CorruptObjectError`.
import { CorruptObjectError, UnsupportedSchemaError } from './errors.ts';
import { parseSeq } from './seq.ts';

/** The schema version objects of this build write (but those naming a pack copy: {@link schemaFor}). */
export const SCHEMA_VERSION = 1;
/**
 * The schema of objects naming a pack under a copy's key (`copy`): a build from before copies read them without
 * it and wrote the head back naming the plain key, which gc deletes, so a push it acknowledged was lost in a
 * rolling upgrade (found in review). Such a build refuses schema 2 instead. Readers refuse higher versions.
 */
export const COPY_SCHEMA_VERSION = 2;

/** The schema an object naming `packs` is written as: 2 when one of them is a copy. */
export function schemaFor(packs: readonly { readonly copy?: string }[]): number {
  return packs.some((p) => p.copy !== undefined) ? COPY_SCHEMA_VERSION : SCHEMA_VERSION;
}

export class Fields {
  readonly #key: string;
  readonly #path: string;
  readonly #value: Record<string, unknown>;

  constructor(key: string, value: unknown, path = '') {
    this.#key = key;
    this.#path = path;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) this.fail('', 'an object');
    this.#value = value as Record<string, unknown>;
  }

  /** Parses `bytes` as a JSON object whose `schema` this build can read. */
  static parse(key: string, bytes: Uint8Array): Fields {
    let value: unknown;
    try {
      value = JSON.parse(Buffer.from(bytes).toString('utf8'));
    } catch {
      throw new CorruptObjectError(key, 'not JSON');
    }
    const fields = new Fields(key, value);
    const schema = fields.raw('schema');
    if (typeof schema === 'number' && Number.isInteger(schema) && schema > COPY_SCHEMA_VERSION) throw new UnsupportedSchemaError(key, schema);
    if (schema !== SCHEMA_VERSION && schema !== COPY_SCHEMA_VERSION) fields.fail('schema', `schema ${SCHEMA_VERSION} or ${COPY_SCHEMA_VERSION}`);
    return fields;
  }

  raw(name: string): unknown {
    return this.#value[name];
  }

  string(name: string, test?: (s: string) => boolean): string {
    const v = this.#value[name];
    if (typeof v !== 'string' || (test && !test(v))) this.fail(name, 'a valid string');
    return v as string;
  }

  seq(name: string): number {
    const v = this.#value[name];
    const seq = typeof v === 'string' ? parseSeq(v) : undefined;
    if (seq === undefined) this.fail(name, 'a seq as a decimal string');
    return seq as number;
  }

  size(name: string): number {
    const v = this.#value[name];
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) this.fail(name, 'a size in bytes');
    return v as number;
  }

  nullable<T>(name: string, read: (f: Fields) => T): T | null {
    const v = this.#value[name];
    return v === null ? null : read(this.object(name));
  }

  object(name: string): Fields {
    return new Fields(this.#key, this.#value[name], this.#at(name));
  }

  array<T>(name: string, read: (f: Fields) => T): T[] {
    const v = this.#value[name];
    if (!Array.isArray(v)) this.fail(name, 'an array');
    return (v as unknown[]).map((item, i) => read(new Fields(this.#key, item, `${this.#at(name)}[${i}]`)));
  }

  /** A JSON object of string values, as [name, value] pairs in stored order. */
  stringMap(name: string, test: (key: string, value: string) => boolean): [string, string][] {
    const v = this.#value[name];
    if (typeof v !== 'object' || v === null || Array.isArray(v)) this.fail(name, 'an object');
    const entries = Object.entries(v as Record<string, unknown>);
    for (const [k, val] of entries) if (typeof val !== 'string' || !test(k, val)) this.fail(`${name}.${k}`, 'a valid entry');
    return entries as [string, string][];
  }

  fail(name: string, expected: string): never {
    throw new CorruptObjectError(this.#key, `${this.#at(name) || 'the object'} is not ${expected}`);
  }

  #at(name: string): string {
    return [this.#path, name].filter(Boolean).join('.');
  }
}

/** Stable JSON: the object as given (writers build it with keys in a fixed order), with a final newline. */
export function encodeJson(value: unknown): Uint8Array {
  return Buffer.from(`${JSON.stringify(value)}\n`);
}
