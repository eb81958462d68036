import type { ValidationRule } from './crd-types.ts';
import { checkPortablePattern, isInternal, isNode, type KeywordReader } from './schema-reader.ts';

/**
 * `propertyNames` → a CEL rule over the keys: CRDs have no keyword for map keys, but the kube-apiserver
 * runs CEL, so map keys are checked there as well as by TypeBox. Only length and pattern translate.
 */
export function mapKeyRule(keys: unknown, reader: KeywordReader): ValidationRule {
  if (!isNode(keys)) throw reader.error('propertyNames must be a schema');
  const extra = Object.keys(keys).filter((k) => !isInternal(k) && !['type', 'minLength', 'maxLength', 'pattern', 'description'].includes(k));
  if (keys['type'] !== 'string' || extra.length > 0) {
    throw reader.error(`propertyNames must be a string schema with only minLength, maxLength and pattern (found ${extra.join(', ') || 'no type string'})`);
  }
  const { minLength, maxLength, pattern } = keys;
  // Keys are inputs too, and bounded like every other string.
  if (typeof maxLength !== 'number') throw reader.error('propertyNames needs maxLength');
  const checks = [`size(k) <= ${maxLength}`];
  if (typeof minLength === 'number' && minLength > 0) checks.unshift(`size(k) >= ${minLength}`);
  let message = `keys must be at most ${maxLength} characters`;
  if (typeof pattern === 'string') {
    checkPortablePattern(pattern, reader);
    checks.push(`k.matches(${celString(pattern)})`);
    message = `keys must match ${pattern} and be at most ${maxLength} characters`;
  }
  return { rule: `self.all(k, ${checks.join(' && ')})`, message };
}

/** A CEL string literal: single-quoted, with backslashes and quotes escaped. */
function celString(value: string): string {
  return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}
