import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { renderApiTypes, TYPES_PATH } from './api-types.ts';

it('the CLI is typed by the current OpenAPI document (else run `make openapi`)', async () => {
  expect(readFileSync(TYPES_PATH, 'utf8') === (await renderApiTypes()), 'cli/src/api/schema.ts is out of date with docs/openapi.json: run `make openapi`').toBe(true);
});
