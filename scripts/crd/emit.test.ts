import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import type { KindDescriptor } from '../../src/apis/kind-descriptor.ts';
import { Conditions, ObservedGeneration } from '../../src/apis/v1alpha1/conditions.ts';
import { allKinds, CATEGORY } from '../../src/apis/v1alpha1/index.ts';
import { MapOf } from '../../src/apis/v1alpha1/map-of.ts';
import { emitCrd } from './emit.ts';
import { CrdSchemaError } from './schema-error.ts';

const widget: KindDescriptor = {
  kind: 'Widget',
  plural: 'widgets',
  singular: 'widget',
  shortNames: ['wd'],
  scope: 'Namespaced',
  categories: ['cloudwright'],
  description: 'A test kind.',
  name: Type.String({ maxLength: 10, pattern: '^[a-z]+$', description: 'Widget id.' }),
  spec: Type.Object({ size: Type.Integer({ minimum: 1 }) }),
  status: Type.Object({
    conditions: Type.Optional(Conditions),
    observedGeneration: Type.Optional(ObservedGeneration),
    size: Type.Optional(Type.Integer()),
  }),
  printerColumns: [{ name: 'Size', type: 'integer', jsonPath: '.status.size', description: 'Observed size.' }],
};

describe('emitCrd', () => {
  it('emits names, scope, schema, status subresource and columns', () => {
    const crd = emitCrd(widget);
    expect(crd.metadata.name).toBe('widgets.cloudwright.dev');
    expect(crd.spec.names).toEqual({
      kind: 'Widget',
      listKind: 'WidgetList',
      plural: 'widgets',
      singular: 'widget',
      shortNames: ['wd'],
      categories: ['cloudwright'],
    });
    expect(crd.spec.scope).toBe('Namespaced');
    const [version] = crd.spec.versions;
    expect(version?.name).toBe('v1alpha1');
    expect(version?.subresources).toEqual({ status: {} });
    const root = version?.schema.openAPIV3Schema;
    expect(root?.required).toEqual(['spec']);
    expect(root?.properties?.['metadata']).toEqual({
      type: 'object',
      properties: { name: { type: 'string', maxLength: 10, pattern: '^[a-z]+$', description: 'Widget id.' } },
    });
    expect(root?.properties?.['spec']).toEqual({ type: 'object', properties: { size: { type: 'integer', minimum: 1 } }, required: ['size'] });
    expect(version?.additionalPrinterColumns.map((c) => [c.name, c.jsonPath])).toEqual([
      ['Ready', '.status.conditions[?(@.type=="Ready")].status'],
      ['Reason', '.status.conditions[?(@.type=="Ready")].reason'],
      ['Size', '.status.size'],
      ['Age', '.metadata.creationTimestamp'],
    ]);
  });

  it('is deterministic', () => {
    expect(JSON.stringify(emitCrd(widget))).toBe(JSON.stringify(emitCrd(widget)));
  });

  it('gives a kind without status no status subresource and no condition columns', () => {
    const crd = emitCrd({ ...widget, status: undefined, printerColumns: [] });
    const [version] = crd.spec.versions;
    expect(version?.subresources).toBeUndefined();
    expect(version?.schema.openAPIV3Schema.properties?.['status']).toBeUndefined();
    expect(version?.additionalPrinterColumns.map((c) => c.name)).toEqual(['Age']);
  });

  it.each<[string, Partial<KindDescriptor>, string, RegExp]>([
    ['a spec that is a map', { spec: MapOf(Type.String({ maxLength: 1 }), { description: 'm', maxProperties: 1 }) }, 'spec', /Type.Object/],
    ['an unbounded string', { spec: Type.Object({ s: Type.String() }) }, 'spec.s', /maxLength/],
    ['an unbounded list', { spec: Type.Object({ l: Type.Array(Type.Boolean()) }) }, 'spec.l', /maxItems/],
    ['an unbounded map', { spec: Type.Object({ m: Type.Unsafe({ type: 'object', additionalProperties: { type: 'boolean' } }) }) }, 'spec.m', /maxProperties/],
    ['an unbounded list item', { spec: Type.Object({ l: Type.Array(Type.String(), { maxItems: 1 }) }) }, 'spec.l[*]', /maxLength/],
    ['a name schema with other constraints', { name: Type.String({ maxLength: 5, format: 'email' }) }, 'metadata.name', /length and pattern/],
    ['a column naming a missing field', { printerColumns: [{ name: 'X', type: 'string', jsonPath: '.status.nope', description: '' }] }, 'printerColumns.X', /names no field/],
    ['a column of the wrong type', { printerColumns: [{ name: 'X', type: 'date', jsonPath: '.status.size', description: '' }] }, 'printerColumns.X', /does not fit/],
    ['a column with a filter path', { printerColumns: [{ name: 'X', type: 'string', jsonPath: '.status.conditions[0].type', description: '' }] }, 'printerColumns.X', /plain dotted path/],
    ['a column name taken', { printerColumns: [{ name: 'ready', type: 'integer', jsonPath: '.status.size', description: '' }] }, 'printerColumns.ready', /taken/],
    ['an uppercase plural', { plural: 'Widgets' }, 'kind Widget', /plural/],
    ['a singular that is not the kind', { singular: 'gadget' }, 'kind Widget', /singular/],
  ])('rejects %s', (_name, override, path, message) => {
    let error: unknown;
    try {
      emitCrd({ ...widget, ...override });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CrdSchemaError);
    expect((error as CrdSchemaError).path).toBe(path);
    expect((error as CrdSchemaError).message).toMatch(message);
  });
});

describe('allKinds', () => {
  it('all emit, with unique plurals and short names, in the cloudwright category', () => {
    const crds = allKinds.map((k) => emitCrd(k));
    const plurals = crds.map((c) => c.spec.names.plural);
    const shortNames = crds.flatMap((c) => c.spec.names.shortNames ?? []);
    expect(new Set(plurals).size).toBe(plurals.length);
    expect(new Set(shortNames).size).toBe(shortNames.length);
    for (const crd of crds) expect(crd.spec.names.categories).toEqual([CATEGORY]);
  });

  it('report conditions and observedGeneration wherever they have a status', () => {
    for (const kind of allKinds) {
      if (kind.status === undefined) continue;
      const status = emitCrd(kind).spec.versions[0]?.schema.openAPIV3Schema.properties?.['status'];
      expect(Object.keys(status?.properties ?? {}), kind.kind).toEqual(expect.arrayContaining(['conditions', 'observedGeneration']));
    }
  });
});
