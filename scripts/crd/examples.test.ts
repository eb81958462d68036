import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Value from 'typebox/value';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { allKinds, API_VERSION } from '../../src/apis/v1alpha1/index.ts';

// The samples in docs/examples are what users copy; they must stay valid as the schemas change.
const EXAMPLES_DIR = fileURLToPath(new URL('../../docs/examples/', import.meta.url));
const files = readdirSync(EXAMPLES_DIR).filter((name) => name.endsWith('.yaml'));

describe.each(files)('docs/examples/%s', (file) => {
  const documents = parseAllDocuments(readFileSync(`${EXAMPLES_DIR}${file}`, 'utf8')).map((d) => d.toJS() as Record<string, any>);

  it.each(documents.map((d, i) => [i, d] as const))('document %i validates against its kind', (_i, object) => {
    expect(object['apiVersion']).toBe(API_VERSION);
    const kind = allKinds.find((k) => k.kind === object['kind']);
    expect(kind, `unknown kind ${object['kind']}`).toBeDefined();
    if (kind === undefined) return;
    const errors = [...Value.Errors(kind.spec, object['spec'])].map((e) => `spec${e.instancePath}: ${e.message}`);
    expect(errors).toEqual([]);
    if (kind.name !== undefined) expect(Value.Check(kind.name, object['metadata']?.name)).toBe(true);
    expect(object['metadata']?.namespace !== undefined).toBe(kind.scope === 'Namespaced');
  });
});
