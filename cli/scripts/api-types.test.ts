import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { renderApiTypes, TYPES_PATHS } from './api-types.ts';

it('the CLI and the console are typed by the current OpenAPI document (else run `make openapi`)', async () => {
  const expected = await renderApiTypes();
  for (const path of TYPES_PATHS) expect(readFileSync(path, 'utf8') === expected, `${path} is out of date with docs/openapi.json: run \`make openapi\``).toBe(true);
});
