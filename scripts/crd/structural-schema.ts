import Value from 'typebox/value';
import type { JsonSchemaProps, ValidationRule } from './crd-types.ts';
import { translateListType } from './list-type.ts';
import { mapKeyRule } from './map-key-rule.ts';
import { CrdSchemaError } from './schema-error.ts';
import { checkPortablePattern, HINTS, isNode, KeywordReader, SCALAR_TYPES } from './schema-reader.ts';

// Turns a TypeBox (JSON Schema 2020-12) schema into a structural OpenAPI v3 schema as
// apiextensions.k8s.io/v1 accepts it. Every keyword is either translated, stripped (TypeBox's own
// bookkeeping) or rejected with the path: a keyword passed through unexamined could make the API
// server validate differently from the kube-apiserver, or make the CRD itself invalid.

type ScalarType = 'string' | 'integer' | 'number' | 'boolean';
type SchemaType = ScalarType | 'object' | 'array';

const ALL_TYPES: ReadonlySet<string> = new Set([...SCALAR_TYPES, 'object', 'array']);

/** Formats the kube-apiserver validates, per type; any other would be silently ignored there. */
const FORMATS: Readonly<Record<SchemaType, ReadonlySet<string>>> = {
  string: new Set(['date-time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'cidr', 'mac', 'uri', 'uuid', 'byte', 'password']),
  integer: new Set(['int32', 'int64']),
  number: new Set(['float', 'double']),
  boolean: new Set(),
  object: new Set(),
  array: new Set(),
};

/**
 * Translate `schema` (found at `path`) into a structural CRD schema.
 *
 * Rules: `const` → one-value `enum`; a union of literals → `enum`; a union with `null` → `nullable`;
 * `uniqueItems` on scalars → `x-kubernetes-list-type: set`; `additionalProperties: false` is dropped
 * (structural schemas prune unknown fields); numeric `exclusiveMinimum`/`exclusiveMaximum` become the
 * OpenAPI v3.0 boolean form; `propertyNames` of a map becomes a CEL rule over its keys. Rejected:
 * `$ref`/`$defs`, `patternProperties`, `allOf`, `not`, tuples, untyped schemas, unions of non-literals,
 * unknown keywords and formats. TypeBox's own keys (`~kind`, `~optional`, …) and `$id` are stripped.
 *
 * @throws {CrdSchemaError} naming the path of the first schema that cannot be translated.
 */
export function toStructuralSchema(schema: unknown, path: string): JsonSchemaProps {
  if (!isNode(schema)) throw new CrdSchemaError(path, 'expected a schema object');
  if ('$ref' in schema) {
    throw new CrdSchemaError(path, `$ref ${JSON.stringify(schema['$ref'])} is not supported; CRD schemas must be self-contained, use the schema value instead of Type.Ref`);
  }
  // Known-unsupported keywords first: their hint is more useful than whatever else fails after them.
  const unsupported = Object.keys(HINTS).find((key) => key in schema);
  if (unsupported !== undefined) throw new CrdSchemaError(path, HINTS[unsupported] ?? unsupported);
  const reader = new KeywordReader(schema, path);
  const keyRules: ValidationRule[] = [];
  const out = 'anyOf' in schema || 'oneOf' in schema ? translateUnion(reader) : translateTyped(reader, keyRules);
  translateAnnotations(reader, out, keyRules);
  reader.rejectUnread();
  return out;
}

function translateUnion(reader: KeywordReader): JsonSchemaProps {
  if (reader.has('anyOf') && reader.has('oneOf')) throw reader.error('anyOf and oneOf together are not supported');
  const keyword = reader.has('anyOf') ? 'anyOf' : 'oneOf';
  const branches = reader.take(keyword);
  if (!Array.isArray(branches) || branches.length === 0) throw reader.error(`${keyword} must be a non-empty array`);
  const isNull = (b: unknown): boolean => isNode(b) && b['type'] === 'null';
  const nullable = branches.some(isNull);
  const rest = branches.filter((b) => !isNull(b)).map((b) => toStructuralSchema(b, reader.path));
  const [first] = rest;
  if (first === undefined) throw reader.error(`${keyword} of only null has no type`);
  let out: JsonSchemaProps;
  if (rest.length === 1) {
    out = first;
  } else {
    out = mergeLiterals(rest, reader, keyword);
  }
  if (nullable) out.nullable = true;
  return out;
}

/** `anyOf` of literals (Type.Union of Type.Literal) → one `enum` of their common type. */
function mergeLiterals(branches: JsonSchemaProps[], reader: KeywordReader, keyword: string): JsonSchemaProps {
  const values: unknown[] = [];
  let type: JsonSchemaProps['type'];
  for (const b of branches) {
    const onlyLiteral = b.enum !== undefined && Object.keys(b).every((k) => ['type', 'enum', 'description', 'title'].includes(k));
    if (!onlyLiteral) {
      throw reader.error(`${keyword} of non-literal schemas cannot be expressed in a structural schema; only unions of literals (and null) are supported`);
    }
    if (type !== undefined && b.type !== type) throw reader.error(`${keyword} mixes literal types ${type} and ${b.type}`);
    type = b.type;
    values.push(...(b.enum ?? []));
  }
  return { type, enum: [...new Set(values)] };
}

function translateTyped(reader: KeywordReader, keyRules: ValidationRule[]): JsonSchemaProps {
  const out: JsonSchemaProps = {};
  const values = literalValues(reader);
  const type = resolveType(reader, values, out);
  out.type = type;
  if (values !== undefined) {
    if (!SCALAR_TYPES.has(type)) throw reader.error(`enum/const on type ${type} is not supported`);
    out.enum = values;
  }
  const format = reader.take('format');
  if (format !== undefined) {
    if (typeof format !== 'string' || !FORMATS[type].has(format)) {
      throw reader.error(`format ${JSON.stringify(format)} is not supported for type ${type} (the kube-apiserver would not check it)`);
    }
    out.format = format;
  }
  switch (type) {
    case 'string':
      translateString(reader, out);
      break;
    case 'integer':
    case 'number':
      translateNumber(reader, out, type === 'integer');
      break;
    case 'array':
      translateArray(reader, out);
      break;
    case 'object':
      translateObject(reader, out, keyRules);
      break;
    case 'boolean':
      break;
  }
  return out;
}

/** Values of `const` or `enum`, with `null` split off into `nullable`. */
function literalValues(reader: KeywordReader): unknown[] | undefined {
  if (reader.has('const') && reader.has('enum')) throw reader.error('const and enum together are not supported');
  if (reader.has('const')) return [reader.take('const')];
  if (!reader.has('enum')) return undefined;
  const values = reader.take('enum');
  if (!Array.isArray(values) || values.length === 0) throw reader.error('enum must be a non-empty array');
  return [...values];
}

function resolveType(reader: KeywordReader, values: unknown[] | undefined, out: JsonSchemaProps): SchemaType {
  let declared = reader.take('type');
  if (Array.isArray(declared)) {
    const types = declared.filter((t) => t !== 'null');
    if (types.length !== declared.length) out.nullable = true;
    if (types.length !== 1) throw reader.error(`type ${JSON.stringify(declared)} must name exactly one non-null type`);
    declared = types[0];
  }
  if (values?.includes(null)) {
    out.nullable = true;
    values.splice(values.indexOf(null), 1);
    if (values.length === 0) throw reader.error('an enum of only null has no type');
  }
  const inferred = values === undefined ? undefined : inferLiteralType(values, reader);
  if (declared === undefined) {
    if (inferred === undefined) {
      throw reader.error('schema has no type (Type.Any/Type.Unknown?); a structural schema needs a type on every field');
    }
    return inferred;
  }
  if (typeof declared !== 'string' || !ALL_TYPES.has(declared)) throw reader.error(`type ${JSON.stringify(declared)} is not supported`);
  const type = declared as SchemaType;
  if (inferred !== undefined && inferred !== type && !(type === 'number' && inferred === 'integer')) {
    throw reader.error(`enum/const values of type ${inferred} do not match type ${type}`);
  }
  return type;
}

function inferLiteralType(values: unknown[], reader: KeywordReader): ScalarType {
  const types = new Set(values.map((v) => (typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v)));
  if (types.size === 2 && types.has('integer') && types.has('number')) return 'number';
  const [only] = types;
  if (types.size !== 1 || only === undefined || !SCALAR_TYPES.has(only)) {
    throw reader.error(`enum/const values must all be strings, numbers or booleans (found ${[...types].join(', ')})`);
  }
  return only as ScalarType;
}

function translateString(reader: KeywordReader, out: JsonSchemaProps): void {
  const minLength = reader.number('minLength');
  const maxLength = reader.number('maxLength');
  if (minLength !== undefined) out.minLength = minLength;
  if (maxLength !== undefined) out.maxLength = maxLength;
  const pattern = reader.take('pattern');
  if (pattern === undefined) return;
  if (typeof pattern !== 'string') throw reader.error('pattern must be a string');
  checkPortablePattern(pattern, reader);
  out.pattern = pattern;
}

function translateNumber(reader: KeywordReader, out: JsonSchemaProps, integer: boolean): void {
  for (const [bound, exclusive] of [
    ['minimum', 'exclusiveMinimum'],
    ['maximum', 'exclusiveMaximum'],
  ] as const) {
    const inclusiveValue = reader.number(bound, false);
    const exclusiveValue = reader.take(exclusive);
    if (exclusiveValue === undefined) {
      if (inclusiveValue !== undefined) out[bound] = inclusiveValue;
      continue;
    }
    // JSON Schema 2020-12 has a numeric exclusive bound; OpenAPI v3.0 has a boolean flag on the bound.
    if (typeof exclusiveValue !== 'number') throw reader.error(`${exclusive} must be a number`);
    if (inclusiveValue !== undefined) throw reader.error(`${bound} and ${exclusive} together are not supported`);
    out[bound] = exclusiveValue;
    out[exclusive] = true;
  }
  const multipleOf = reader.number('multipleOf', false);
  if (multipleOf !== undefined) {
    if (multipleOf <= 0 || (integer && !Number.isInteger(multipleOf))) throw reader.error('multipleOf must be positive');
    out.multipleOf = multipleOf;
  }
}

function translateArray(reader: KeywordReader, out: JsonSchemaProps): void {
  const items = reader.take('items');
  if (Array.isArray(items)) throw reader.error('tuples are not allowed in a structural schema');
  if (items === undefined) throw reader.error('an array needs items');
  const itemSchema = toStructuralSchema(items, `${reader.path}[*]`);
  out.items = itemSchema;
  const minItems = reader.number('minItems');
  const maxItems = reader.number('maxItems');
  if (minItems !== undefined) out.minItems = minItems;
  if (maxItems !== undefined) out.maxItems = maxItems;
  translateListType(reader, itemSchema, out);
}

function translateObject(reader: KeywordReader, out: JsonSchemaProps, keyRules: ValidationRule[]): void {
  const properties = reader.take('properties');
  if (properties !== undefined) {
    if (!isNode(properties)) throw reader.error('properties must be an object');
    const entries = Object.entries(properties).map(([name, schema]) => [name, toStructuralSchema(schema, `${reader.path}.${name}`)] as const);
    if (entries.length > 0) out.properties = Object.fromEntries(entries);
  }
  const required = reader.take('required');
  if (required !== undefined) {
    if (!Array.isArray(required) || !required.every((r) => typeof r === 'string')) throw reader.error('required must be a list of names');
    for (const name of required) {
      if (out.properties?.[name] === undefined) throw reader.error(`required property ${JSON.stringify(name)} is not declared`);
    }
    if (required.length > 0) out.required = [...new Set(required)];
  }
  const additional = reader.take('additionalProperties');
  if (additional === true) {
    throw reader.error('additionalProperties: true is not supported; declare the fields, or use MapOf() for a map');
  }
  if (isNode(additional)) {
    // A structural schema is either a struct (properties) or a map (additionalProperties), never both.
    if (out.properties !== undefined) throw reader.error('properties and additionalProperties together are not allowed in a CRD');
    out.additionalProperties = toStructuralSchema(additional, `${reader.path}.*`);
  } else if (additional !== undefined && additional !== false) {
    throw reader.error('additionalProperties must be a schema or false');
  }
  // additionalProperties: false needs no translation: a structural schema prunes unknown fields.
  if (reader.has('propertyNames')) {
    if (out.additionalProperties === undefined) throw reader.error('propertyNames is only supported on maps (MapOf)');
    keyRules.push(mapKeyRule(reader.take('propertyNames'), reader));
  }
  const minProperties = reader.number('minProperties');
  const maxProperties = reader.number('maxProperties');
  if (minProperties !== undefined) out.minProperties = minProperties;
  if (maxProperties !== undefined) out.maxProperties = maxProperties;
  const mapType = reader.take('x-kubernetes-map-type');
  if (mapType !== undefined) {
    if (mapType !== 'atomic' && mapType !== 'granular') throw reader.error('x-kubernetes-map-type must be atomic or granular');
    out['x-kubernetes-map-type'] = mapType;
  }
}

/** Keywords valid on any schema: documentation, defaults, CEL rules. */
function translateAnnotations(reader: KeywordReader, out: JsonSchemaProps, keyRules: ValidationRule[]): void {
  for (const key of ['description', 'title'] as const) {
    const value = reader.take(key);
    if (value === undefined) continue;
    if (typeof value !== 'string') throw reader.error(`${key} must be a string`);
    out[key] = value;
  }
  const nullable = reader.take('nullable');
  if (nullable !== undefined) {
    if (typeof nullable !== 'boolean') throw reader.error('nullable must be a boolean');
    if (nullable) out.nullable = true;
  }
  if (reader.has('default')) {
    const value = reader.take('default');
    // The kube-apiserver rejects a CRD whose default does not validate; fail here, with the path.
    if (!Value.Check(reader.node, value)) throw reader.error(`default ${JSON.stringify(value)} does not match the schema`);
    out.default = value;
  }
  const rules = reader.take('x-kubernetes-validations');
  const all = [...keyRules, ...(rules === undefined ? [] : validationRules(rules, reader))];
  if (all.length > 0) out['x-kubernetes-validations'] = all;
}

function validationRules(rules: unknown, reader: KeywordReader): ValidationRule[] {
  if (!Array.isArray(rules) || rules.length === 0) throw reader.error('x-kubernetes-validations must be a non-empty list');
  return rules.map((r) => {
    const ok =
      isNode(r) &&
      typeof r['rule'] === 'string' &&
      r['rule'].length > 0 &&
      (r['message'] === undefined || typeof r['message'] === 'string') &&
      Object.keys(r).every((k) => k === 'rule' || k === 'message');
    if (!ok) throw reader.error('x-kubernetes-validations entries must be {rule, message?}');
    const rule: ValidationRule = { rule: r['rule'] as string };
    if (r['message'] !== undefined) rule.message = r['message'] as string;
    return rule;
  });
}
