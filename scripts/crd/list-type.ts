import type { JsonSchemaProps } from './crd-types.ts';
import { type KeywordReader, SCALAR_TYPES } from './schema-reader.ts';

/**
 * The list type of an array whose items are already translated: `uniqueItems` on scalars becomes a
 * `set` (the CRD form of "unique"), explicit `x-kubernetes-list-type`/`-map-keys` are checked.
 */
export function translateListType(reader: KeywordReader, itemSchema: JsonSchemaProps, out: JsonSchemaProps): void {
  const listType = reader.take('x-kubernetes-list-type');
  const mapKeys = reader.take('x-kubernetes-list-map-keys');
  const unique = reader.take('uniqueItems');
  if (unique !== undefined && typeof unique !== 'boolean') throw reader.error('uniqueItems must be a boolean');
  if (listType !== undefined && listType !== 'atomic' && listType !== 'set' && listType !== 'map') {
    throw reader.error(`x-kubernetes-list-type ${JSON.stringify(listType)} must be atomic, set or map`);
  }
  const scalarItems = itemSchema.type !== undefined && SCALAR_TYPES.has(itemSchema.type);
  if (unique === true) {
    // The CRD form of "unique items" is a set list; Kubernetes allows it for scalar items only.
    if (!scalarItems) {
      throw reader.error('uniqueItems on an array of objects or arrays is not supported; use x-kubernetes-list-type: map with x-kubernetes-list-map-keys');
    }
    if (listType !== undefined && listType !== 'set') throw reader.error(`uniqueItems conflicts with x-kubernetes-list-type ${listType}`);
    out['x-kubernetes-list-type'] = 'set';
  } else if (listType !== undefined) {
    out['x-kubernetes-list-type'] = listType;
  }
  if (out['x-kubernetes-list-type'] === 'set' && !scalarItems) throw reader.error('x-kubernetes-list-type set needs scalar items');
  if (out['x-kubernetes-list-type'] === 'map') {
    out['x-kubernetes-list-map-keys'] = checkListMapKeys(mapKeys, itemSchema, reader);
  } else if (mapKeys !== undefined) {
    throw reader.error('x-kubernetes-list-map-keys needs x-kubernetes-list-type: map');
  }
}

/** Map-list keys must be required scalar fields of the items, or merging by key is undefined. */
function checkListMapKeys(keys: unknown, items: JsonSchemaProps, reader: KeywordReader): string[] {
  if (!Array.isArray(keys) || keys.length === 0 || !keys.every((k) => typeof k === 'string')) {
    throw reader.error('x-kubernetes-list-type map needs x-kubernetes-list-map-keys (non-empty list of field names)');
  }
  if (items.type !== 'object') throw reader.error('x-kubernetes-list-type map needs object items');
  for (const key of keys) {
    const field = items.properties?.[key];
    if (field === undefined || field.type === undefined || !SCALAR_TYPES.has(field.type)) {
      throw reader.error(`list map key ${JSON.stringify(key)} must be a scalar property of the items`);
    }
    if (!items.required?.includes(key) && field.default === undefined) {
      throw reader.error(`list map key ${JSON.stringify(key)} must be required (or have a default)`);
    }
  }
  return keys;
}
