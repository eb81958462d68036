import { CrdSchemaError } from './schema-error.ts';

// Keyword bookkeeping shared by the translation rules: which keywords a schema node has, which were
// consumed, and the hints for the ones a CRD can never take.

export type Node = Record<string, unknown>;

export const SCALAR_TYPES: ReadonlySet<string> = new Set(['string', 'integer', 'number', 'boolean']);

/** Keywords with a better hint than "not supported". */
export const HINTS: Readonly<Record<string, string>> = {
  patternProperties: 'patternProperties (Type.Record) is not allowed in a CRD; use MapOf() for a map',
  allOf: 'allOf (Type.Intersect) is not allowed in a structural schema; compose a single Type.Object',
  not: 'not (Type.Not/Exclude) is not allowed in a structural schema',
  $defs: '$defs (Type.Cyclic/Type.Module references) is not supported; CRD schemas must be self-contained, compose schema values directly',
  definitions: 'definitions is not supported; CRD schemas must be self-contained',
  prefixItems: 'tuples are not allowed in a structural schema',
  additionalItems: 'tuples are not allowed in a structural schema',
  'x-kubernetes-preserve-unknown-fields': 'x-kubernetes-preserve-unknown-fields is not used: every field is typed',
  'x-kubernetes-int-or-string': 'x-kubernetes-int-or-string is not used: give the field one type',
  'x-kubernetes-embedded-resource': 'x-kubernetes-embedded-resource is not used',
};

/** TypeBox bookkeeping (`~kind`, `~optional`, `~unsafe`, …) and `$id`, which mean nothing in a CRD. */
export function isInternal(key: string): boolean {
  return key.startsWith('~') || key === '$id';
}

export function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Tracks which keywords were consumed, so that anything left over is rejected. */
export class KeywordReader {
  readonly node: Node;
  readonly path: string;
  readonly #read = new Set<string>();

  constructor(node: Node, path: string) {
    this.node = node;
    this.path = path;
  }

  has(key: string): boolean {
    return key in this.node;
  }

  take(key: string): unknown {
    this.#read.add(key);
    return this.node[key];
  }

  number(key: string, integer = true): number | undefined {
    const value = this.take(key);
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || (integer && (!Number.isInteger(value) || value < 0))) {
      throw this.error(`${key} must be a ${integer ? 'non-negative integer' : 'number'}`);
    }
    return value;
  }

  error(reason: string): CrdSchemaError {
    return new CrdSchemaError(this.path, reason);
  }

  rejectUnread(): void {
    for (const key of Object.keys(this.node)) {
      if (this.#read.has(key) || isInternal(key)) continue;
      throw this.error(HINTS[key] ?? `keyword ${JSON.stringify(key)} is not supported in a CRD schema`);
    }
  }
}

/** The kube-apiserver evaluates patterns with Go's RE2: no look-around, no back-references. */
export function checkPortablePattern(pattern: string, reader: KeywordReader): void {
  try {
    new RegExp(pattern);
  } catch {
    throw reader.error(`pattern ${JSON.stringify(pattern)} is not a valid regular expression`);
  }
  if (/\(\?<?[=!]|\\[1-9]|\\k</.test(pattern)) {
    throw reader.error(`pattern ${JSON.stringify(pattern)} uses look-around or back-references, which RE2 (kube-apiserver) lacks`);
  }
}
