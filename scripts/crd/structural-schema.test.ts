import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { MapOf } from '../../src/apis/v1alpha1/map-of.ts';
import { CrdSchemaError } from './schema-error.ts';
import { toStructuralSchema } from './structural-schema.ts';

describe('toStructuralSchema translates', () => {
  it.each([
    ['a string with bounds and pattern', Type.String({ minLength: 1, maxLength: 5, pattern: '^a+$' }), { type: 'string', minLength: 1, maxLength: 5, pattern: '^a+$' }],
    ['a supported format', Type.String({ format: 'date-time', maxLength: 64 }), { type: 'string', format: 'date-time', maxLength: 64 }],
    ['an integer with int32 format', Type.Integer({ minimum: 1, maximum: 10, format: 'int32' }), { type: 'integer', minimum: 1, maximum: 10, format: 'int32' }],
    ['a numeric exclusiveMinimum into the boolean form', Type.Number({ exclusiveMinimum: 0 }), { type: 'number', minimum: 0, exclusiveMinimum: true }],
    ['a numeric exclusiveMaximum into the boolean form', Type.Integer({ exclusiveMaximum: 9 }), { type: 'integer', maximum: 9, exclusiveMaximum: true }],
    ['const into a one-value enum', Type.Literal('zone_delegated'), { type: 'string', enum: ['zone_delegated'] }],
    ['a union of literals into an enum', Type.Union([Type.Literal('a'), Type.Literal('b')]), { type: 'string', enum: ['a', 'b'] }],
    ['oneOf of literals into an enum', { oneOf: [{ const: 1 }, { const: 2 }] }, { type: 'integer', enum: [1, 2] }],
    ['a typeless Type.Enum, inferring the type', Type.Enum(['x', 'y']), { type: 'string', enum: ['x', 'y'] }],
    ['a union with null into nullable', Type.Union([Type.String({ maxLength: 3 }), Type.Null()]), { type: 'string', maxLength: 3, nullable: true }],
    ['a literal union with null into a nullable enum', Type.Union([Type.Literal('a'), Type.Literal('b'), Type.Null()]), { type: 'string', enum: ['a', 'b'], nullable: true }],
    ['a type list with null into nullable', { type: ['integer', 'null'] }, { type: 'integer', nullable: true }],
    [
      'uniqueItems on scalars into a set list',
      Type.Array(Type.String({ maxLength: 3 }), { uniqueItems: true, maxItems: 2 }),
      { type: 'array', items: { type: 'string', maxLength: 3 }, maxItems: 2, 'x-kubernetes-list-type': 'set' },
    ],
    ['uniqueItems: false into nothing', Type.Array(Type.Boolean(), { uniqueItems: false }), { type: 'array', items: { type: 'boolean' } }],
    [
      'MapOf into additionalProperties',
      MapOf(Type.String({ maxLength: 2 }), { description: 'm', maxProperties: 4 }),
      { type: 'object', description: 'm', maxProperties: 4, additionalProperties: { type: 'string', maxLength: 2 } },
    ],
    [
      'additionalProperties: false into nothing (pruning)',
      Type.Object({ a: Type.Boolean() }, { additionalProperties: false }),
      { type: 'object', properties: { a: { type: 'boolean' } }, required: ['a'] },
    ],
    ['an empty object', Type.Object({}), { type: 'object' }],
    ['annotations and a valid default', Type.Boolean({ default: false, description: 'd', title: 't' }), { type: 'boolean', default: false, description: 'd', title: 't' }],
    [
      'CEL rules',
      Type.String({ maxLength: 2, 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'immutable' }] }),
      { type: 'string', maxLength: 2, 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'immutable' }] },
    ],
  ])('%s', (_name, schema, expected) => {
    expect(toStructuralSchema(schema, 'spec.f')).toEqual(expected);
  });

  it('optional properties out of required, TypeBox bookkeeping and $id stripped', () => {
    const schema = Type.Object({ a: Type.String({ maxLength: 1 }), b: Type.Optional(Type.Readonly(Type.Integer())) }, { $id: 'X' });
    const out = toStructuralSchema(schema, 'spec');
    expect(out).toEqual({ type: 'object', properties: { a: { type: 'string', maxLength: 1 }, b: { type: 'integer' } }, required: ['a'] });
    expect(JSON.stringify(out)).not.toMatch(/~|\$id/);
  });

  it('map key syntax (propertyNames) into a CEL rule, escaping the pattern for a CEL string', () => {
    const keys = Type.String({ minLength: 1, maxLength: 8, pattern: "^[a-z']+\\.x$" });
    const schema = MapOf(Type.Boolean(), { description: 'm', maxProperties: 4, keys });
    expect(toStructuralSchema(schema, 'spec.m')['x-kubernetes-validations']).toEqual([
      { rule: "self.all(k, size(k) >= 1 && size(k) <= 8 && k.matches('^[a-z\\']+\\\\.x$'))", message: "keys must match ^[a-z']+\\.x$ and be at most 8 characters" },
    ]);
  });

  it('list maps with required scalar keys', () => {
    const schema = Type.Array(Type.Object({ k: Type.String({ maxLength: 1 }), v: Type.Integer() }), {
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['k'],
    });
    expect(toStructuralSchema(schema, 'spec.l')).toMatchObject({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'] });
  });

  it('does not modify its input', () => {
    const schema = { enum: ['a', null] };
    const before = JSON.stringify(schema);
    expect(toStructuralSchema(schema, 'spec.e')).toEqual({ type: 'string', enum: ['a'], nullable: true });
    expect(JSON.stringify(schema)).toBe(before);
  });
});

describe('toStructuralSchema rejects, naming the path', () => {
  it.each([
    ['$ref', Type.Object({ a: Type.Ref('Other') }), 'spec.a', /\$ref "Other"/],
    ['Type.Cyclic ($defs + $ref)', Type.Object({ n: Type.Cyclic({ N: Type.Object({ next: Type.Optional(Type.Ref('N')) }) }, 'N') }), 'spec.n', /\$ref/],
    ['$defs', { type: 'object', $defs: { A: { type: 'string' } } }, 'spec', /\$defs/],
    ['patternProperties (Type.Record)', Type.Object({ env: Type.Record(Type.String(), Type.String()) }), 'spec.env', /patternProperties.*MapOf/],
    ['uniqueItems on objects', Type.Object({ l: Type.Array(Type.Object({ a: Type.String() }), { uniqueItems: true }) }), 'spec.l', /uniqueItems on an array of objects/],
    ['allOf (Type.Intersect)', Type.Intersect([Type.Object({ a: Type.String() }), Type.Object({ b: Type.String() })]), 'spec', /allOf/],
    ['a union of non-literals', Type.Union([Type.String(), Type.Integer()]), 'spec', /non-literal/],
    ['a union of literals of different types', Type.Union([Type.Literal('a'), Type.Literal(1)]), 'spec', /mixes literal types/],
    ['an untyped schema (Type.Any)', Type.Object({ x: Type.Any() }), 'spec.x', /no type/],
    ['null alone', Type.Null(), 'spec', /not supported/],
    ['a tuple', Type.Tuple([Type.String(), Type.Integer()]), 'spec', /tuples/],
    ['an unknown keyword', Type.String({ examples: ['a'] }), 'spec', /"examples" is not supported/],
    ['an unknown format', Type.String({ format: 'ipv5' }), 'spec', /format "ipv5"/],
    ['a format on the wrong type', Type.Integer({ format: 'date-time' }), 'spec', /format "date-time"/],
    ['additionalProperties: true', { type: 'object', additionalProperties: true }, 'spec', /additionalProperties: true/],
    ['properties and a map together', { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } }, 'spec', /together/],
    ['required naming an undeclared property', { type: 'object', required: ['ghost'] }, 'spec', /"ghost" is not declared/],
    ['an array without items', { type: 'array' }, 'spec', /needs items/],
    [
      'a list map whose key is optional',
      Type.Array(Type.Object({ k: Type.Optional(Type.String()) }), { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'] }),
      'spec',
      /must be required/,
    ],
    ['a list map without keys', Type.Array(Type.Object({ k: Type.String() }), { 'x-kubernetes-list-type': 'map' }), 'spec', /list-map-keys/],
    ['a look-around pattern (not RE2)', Type.String({ pattern: '^(?!x)' }), 'spec', /look-around/],
    ['a default that does not validate', Type.Integer({ minimum: 1, default: 0 }), 'spec', /default 0/],
    ['exclusiveMinimum with minimum', { type: 'number', minimum: 1, exclusiveMinimum: 0 }, 'spec', /together/],
    ['preserve-unknown-fields', { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, 'spec', /preserve-unknown-fields/],
    ['map keys without maxLength', MapOf(Type.Boolean(), { description: 'm', maxProperties: 1, keys: Type.String() }), 'spec', /propertyNames needs maxLength/],
    ['map keys with a format', MapOf(Type.Boolean(), { description: 'm', maxProperties: 1, keys: Type.String({ maxLength: 3, format: 'email' }) }), 'spec', /only minLength, maxLength and pattern/],
    ['propertyNames on a struct', { type: 'object', properties: { a: { type: 'string' } }, propertyNames: { type: 'string', maxLength: 1 } }, 'spec', /only supported on maps/],
    ['a malformed CEL rule', Type.String({ 'x-kubernetes-validations': [{ expr: 'x' }] }), 'spec', /\{rule, message\?\}/],
  ])('%s', (_name, schema, path, message) => {
    const error = catchError(() => toStructuralSchema(schema, 'spec'));
    expect(error).toBeInstanceOf(CrdSchemaError);
    expect(error.path).toBe(path);
    expect(error.message).toMatch(message);
    expect(error.message.startsWith(`${path}: `)).toBe(true);
  });

  it('names nested paths through items and map values', () => {
    const schema = Type.Object({
      members: Type.Array(Type.Object({ role: Type.Any() })),
      env: MapOf(Type.Any(), { description: 'm', maxProperties: 1 }),
    });
    expect(catchError(() => toStructuralSchema({ ...schema, properties: { members: schema.properties.members } }, 'spec')).path).toBe('spec.members[*].role');
    expect(catchError(() => toStructuralSchema({ ...schema, properties: { env: schema.properties.env } }, 'spec')).path).toBe('spec.env.*');
  });
});

function catchError(fn: () => unknown): CrdSchemaError {
  try {
    fn();
  } catch (error) {
    if (error instanceof CrdSchemaError) return error;
    throw error;
  }
  throw new Error('expected a CrdSchemaError');
}
