import type { JsonSchemaProps } from './crd-types.ts';
import { CrdSchemaError } from './schema-error.ts';

/**
 * Require every string, list and map of a kind to be bounded (`maxLength` or `enum`, `maxItems`,
 * `maxProperties`). Objects are stored whole in etcd, and the kube-apiserver estimates the cost of CEL
 * rules from these bounds; an unbounded field makes both open-ended.
 *
 * @throws {CrdSchemaError} naming the first unbounded field.
 */
export function requireBounds(schema: JsonSchemaProps, path: string): void {
  if (schema.type === 'string' && schema.maxLength === undefined && schema.enum === undefined) {
    throw new CrdSchemaError(path, 'string without maxLength (inputs must be bounded)');
  }
  if (schema.type === 'array') {
    if (schema.maxItems === undefined) throw new CrdSchemaError(path, 'array without maxItems (inputs must be bounded)');
    if (schema.items !== undefined) requireBounds(schema.items, `${path}[*]`);
  }
  if (schema.additionalProperties !== undefined) {
    if (schema.maxProperties === undefined) throw new CrdSchemaError(path, 'map without maxProperties (inputs must be bounded)');
    requireBounds(schema.additionalProperties, `${path}.*`);
  }
  for (const [name, property] of Object.entries(schema.properties ?? {})) requireBounds(property, `${path}.${name}`);
}
