// Writes the request and response types of the platform API for its two clients, cw (cli/src/api/schema.ts)
// and the web console (console/src/api/schema.ts), from docs/openapi.json with openapi-typescript (`make
// openapi` runs it after regenerating the document). api-types.test.ts fails when a committed copy differs
// from what this would write, so neither client can drift from the API. Each package keeps its own copy: the
// CLI is published alone.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';

export const OPENAPI_PATH = fileURLToPath(new URL('../../docs/openapi.json', import.meta.url));
export const TYPES_PATHS = [fileURLToPath(new URL('../src/api/schema.ts', import.meta.url)), fileURLToPath(new URL('../../console/src/api/schema.ts', import.meta.url))];

const BANNER = `// Generated from docs/openapi.json by openapi-typescript (cli/scripts/api-types.ts, run by \`make openapi\`).
// Do not edit: regenerate.
`;

export async function renderApiTypes(): Promise<string> {
  const document = JSON.parse(readFileSync(OPENAPI_PATH, 'utf8')) as Parameters<typeof openapiTS>[0];
  return `${BANNER}\n${astToString(await openapiTS(document))}`;
}

if (import.meta.main) {
  const next = await renderApiTypes();
  for (const path of TYPES_PATHS) {
    let current: string | undefined;
    try {
      current = readFileSync(path, 'utf8');
    } catch {
      current = undefined;
    }
    if (current === next) console.log(`${path} is up to date`);
    else {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, next);
      console.log(`wrote ${path}`);
    }
  }
}
