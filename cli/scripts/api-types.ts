// Writes cli/src/api/schema.ts, the request and response types of the platform API, from docs/openapi.json
// with openapi-typescript (`make openapi` runs it after regenerating the document). api-types.test.ts fails
// when the committed file differs from what this would write, so the CLI cannot drift from the API.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';

export const OPENAPI_PATH = fileURLToPath(new URL('../../docs/openapi.json', import.meta.url));
export const TYPES_PATH = fileURLToPath(new URL('../src/api/schema.ts', import.meta.url));

const BANNER = `// Generated from docs/openapi.json by openapi-typescript (cli/scripts/api-types.ts, run by \`make openapi\`).
// Do not edit: regenerate.
`;

export async function renderApiTypes(): Promise<string> {
  const document = JSON.parse(readFileSync(OPENAPI_PATH, 'utf8')) as Parameters<typeof openapiTS>[0];
  return `${BANNER}\n${astToString(await openapiTS(document))}`;
}

if (import.meta.main) {
  const next = await renderApiTypes();
  let current: string | undefined;
  try {
    current = readFileSync(TYPES_PATH, 'utf8');
  } catch {
    current = undefined;
  }
  if (current === next) console.log('cli/src/api/schema.ts is up to date');
  else {
    writeFileSync(TYPES_PATH, next);
    console.log('wrote cli/src/api/schema.ts');
  }
}
