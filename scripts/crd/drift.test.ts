import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { renderCrdFiles } from './render.ts';

// crds/ is committed (Helm and `kubectl apply -f crds/` read it) but generated from src/apis: fail when
// someone changed a schema without regenerating, or edited a generated file by hand.
const CRDS_DIR = fileURLToPath(new URL('../../crds/', import.meta.url));
const FIX = 'crds/ is out of date with src/apis; run `make crds` (node scripts/emit-crds.ts) and commit the result';

it('crds/ matches what the emitter produces', () => {
  const expected = renderCrdFiles();
  const present = readdirSync(CRDS_DIR).filter((name) => name.endsWith('.yaml'));
  const missing = Object.keys(expected).filter((name) => !present.includes(name));
  const extra = present.filter((name) => !(name in expected));
  const changed = present.filter((name) => name in expected && readFileSync(`${CRDS_DIR}${name}`, 'utf8') !== expected[name]);
  const problems = [...missing.map((n) => `missing: crds/${n}`), ...extra.map((n) => `not generated (remove it): crds/${n}`), ...changed.map((n) => `differs: crds/${n}`)];
  expect(problems, `${FIX}\n  ${problems.join('\n  ')}`).toEqual([]);
});
