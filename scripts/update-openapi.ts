// Writes docs/openapi.json, the platform API's OpenAPI 3.1 document, from the route contracts (`make openapi`).
// scripts/update-openapi.test.ts fails when the committed copy differs from what this would write.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildApp, type PlatformDependencies } from '../api/app.ts';
import { createDeviceFlow } from '../src/auth/index.ts';
import { MemoryDeviceGrantStore } from '../src/auth/memory-device-grant-store.ts';
import { MemoryTokenStore } from '../src/auth/memory-token-store.ts';

/** Where the generated document is committed. */
export const OPENAPI_PATH = fileURLToPath(new URL('../docs/openapi.json', import.meta.url));

/**
 * The document `cw-api` serves at `/openapi.json`, built from the route schemas alone. The app is built with
 * the in-memory stores and, for every other platform dependency, a stand-in that throws when touched: route
 * registration must not call a dependency, so the document can never depend on what a cluster holds. A
 * dependency added to `PlatformDependencies` later gets such a stand-in without changes here.
 */
export async function openApiDocument(): Promise<Record<string, unknown>> {
  const tokens = new MemoryTokenStore();
  const known: Partial<PlatformDependencies> = {
    tokens,
    deviceFlow: createDeviceFlow({ grants: new MemoryDeviceGrantStore(), tokens, verificationUri: 'http://127.0.0.1:8080/device' }),
  };
  const platform = new Proxy(known, {
    get: (target, key) => (key in target ? target[key as keyof PlatformDependencies] : untouchable(String(key))),
    has: () => true,
  }) as PlatformDependencies;
  const app = await buildApp({ platform, now: () => new Date(0) });
  try {
    return app.swagger() as unknown as Record<string, unknown>;
  } finally {
    await app.close();
  }
}

/** The document as committed: two-space JSON with a final newline. */
export async function renderOpenApi(): Promise<string> {
  return `${JSON.stringify(await openApiDocument(), null, 2)}\n`;
}

function untouchable(name: string): unknown {
  const fail = (): never => {
    throw new Error(`update-openapi: platform dependency \`${name}\` was used while building the OpenAPI document; route registration must not call dependencies`);
  };
  return new Proxy(fail, { get: fail, apply: fail, construct: fail, has: fail, ownKeys: fail });
}

if (import.meta.main) {
  const next = await renderOpenApi();
  let current: string | undefined;
  try {
    current = readFileSync(OPENAPI_PATH, 'utf8');
  } catch {
    current = undefined;
  }
  if (current === next) console.log('docs/openapi.json is up to date');
  else {
    writeFileSync(OPENAPI_PATH, next);
    console.log('wrote docs/openapi.json');
  }
}
