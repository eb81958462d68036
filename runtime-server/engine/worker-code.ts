import { readFile } from 'node:fs/promises';
import { createHmac, randomBytes } from 'node:crypto';
import type { ModuleType } from '../../src/app-artifacts/artifact.ts';
import type { PreparedBuild } from './build-store.ts';
import type { AppDeployment } from './ports.ts';
import { effectiveFlags } from '../../src/app-artifacts/compatibility.ts';
import { JsonSyntax } from '../../src/app-artifacts/json-syntax.ts';
import { RecentMap } from '../../src/collections/recent-map.ts';
import { appScriptDirectory } from './running-app.ts';

/** An app as the runtime serves it: the deployment asked for and its unpacked build. */
export interface LiveApp {
  readonly app: AppDeployment;
  readonly build: PreparedBuild;
}

/** The module kinds of workerd's Worker Loader, by artifact module type. */
const LOADER_TYPES: Record<ModuleType, string> = { esModule: 'js', commonJsModule: 'cjs', text: 'text', data: 'data', wasm: 'wasm', json: 'json' };

/** What the dispatcher hands the Worker Loader (`dispatcher.js`), as JSON: binary modules in base64. */
export interface WorkerCodeJson {
  readonly compatibilityDate: string;
  readonly compatibilityFlags: readonly string[];
  readonly mainModule: string;
  readonly modules: Record<string, Record<string, unknown>>;
  readonly env: Readonly<Record<string, string>>;
}

/**
 * The fingerprints' key, the process's own: an app's modules are named after its fingerprint, which its code can
 * read (a stack trace), and which names the app a stopped thread was running (`isolate-code.ts`). Keyed, another
 * tenant cannot compute it from what it may know of an app (its build, an empty environment) to claim its name.
 */
const FINGERPRINT_KEY = randomBytes(32);

/**
 * Each deployment's fingerprint with the build it was made for: every convergence pass asks for the fingerprint of
 * every app it plans, and a deployment (readonly) is the same object from pass to pass until its app changes.
 */
const fingerprints = new WeakMap<AppDeployment, { readonly buildId: string; readonly fingerprint: string }>();

/** What must be equal for two deployments to run the same isolate: build and environment. */
export function workerFingerprint(live: LiveApp): string {
  const known = fingerprints.get(live.app);
  if (known?.buildId === live.build.buildId) return known.fingerprint;
  const env = Object.entries(live.app.env).sort(([a], [b]) => (a < b ? -1 : 1));
  const fingerprint = createHmac('sha256', FINGERPRINT_KEY)
    .update(JSON.stringify([live.app.project, live.app.appId, live.build.buildId, env]))
    .digest('hex')
    .slice(0, 24);
  fingerprints.set(live.app, { buildId: live.build.buildId, fingerprint });
  return fingerprint;
}

/**
 * A JSON module's text, handed on as it is: cw-runtime never builds a tenant's JSON value. The checks bound a JSON
 * module as text (25 MiB), and a value can take twenty times its text (`[{},{},…]` of 25 MiB is some 520 MB of
 * objects), past this process's heap: one such build crashed cw-runtime on every replica that prepared it (review-165
 * F2). The value is built inside workerd, which the shards' memory bounds hold.
 */
export class JsonText {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/**
 * `text` checked again as one JSON value before it is spliced in: the preparation checked it as it unpacked, and the
 * splice relies on it (anything more, `1, "mainModule": …`, would add to the code), so the file as read now is checked
 * too, without building its value.
 */
async function jsonText(file: string, text: string): Promise<JsonText> {
  // Once per file and size in this process: its code is asked for at every load of its isolate. A prepared build's
  // files do not change (its directory is made whole, from an artifact whose digest was checked, and replaced whole).
  const seen = `${file}\n${text.length}`;
  if (!checkedJsonFiles.get(seen)) {
    // A slice at a time, the event loop turning between: a 25 MiB module takes half a second or more of the thread
    // every tenant's requests go through, which in one piece stalled them all for as long (review-167 F11).
    const syntax = new JsonSyntax();
    for (let at = 0; at < text.length; at += JSON_CHECK_SLICE) {
      if (at > 0) await new Promise((resolve) => setImmediate(resolve));
      syntax.write(text.slice(at, at + JSON_CHECK_SLICE));
    }
    syntax.end();
    checkedJsonFiles.set(seen, true);
  }
  return new JsonText(text);
}

/** Characters of a JSON module checked between two turns of the event loop: some milliseconds' work. */
const JSON_CHECK_SLICE = 256 * 1024;

/** The JSON module files checked already (`jsonText`). */
const checkedJsonFiles = new RecentMap<boolean>(4096);

/** Stands in for a JSON module's text in the serialized code; random per process, so no tenant's string can be one. */
const JSON_TEXT_MARK = `\u0000cw-json-${randomBytes(8).toString('hex')}:`;
/** A mark as `JSON.stringify` writes it (a whole string value), with the module's index. */
const SERIALIZED_MARK = new RegExp(
  `${JSON.stringify(JSON_TEXT_MARK)
    .slice(0, -1)
    .replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')}(\\d+)"`,
  'g',
);

/** The code as the dispatcher reads it (`GET /code/{id}`): JSON, each JSON module's text in place as it is. */
export function workerCodeText(code: WorkerCodeJson): string {
  const texts: string[] = [];
  const body = JSON.stringify(code, (_key, value: unknown) => (value instanceof JsonText ? `${JSON_TEXT_MARK}${texts.push(value.text) - 1}` : value));
  return texts.length === 0 ? body : body.replace(SERIALIZED_MARK, (_mark, index: string) => texts[Number(index)] ?? 'null');
}

/** The worker's code and environment, read from the unpacked build. */
export async function workerCode(live: LiveApp): Promise<WorkerCodeJson> {
  // Every module under a directory named for this code, which its scripts are named after: a stuck thread's code
  // names its app (`running-app.ts`). The build's relative imports resolve inside the directory as before.
  const prefix = appScriptDirectory(workerFingerprint(live));
  const modules: Record<string, Record<string, unknown>> = {};
  for (const m of live.build.modules) {
    const bytes = await readFile(m.file);
    const type = LOADER_TYPES[m.type];
    modules[prefix + m.name] = {
      [type]: m.type === 'wasm' || m.type === 'data' ? bytes.toString('base64') : m.type === 'json' ? await jsonText(m.file, bytes.toString('utf8')) : bytes.toString('utf8'),
    };
  }
  return {
    compatibilityDate: live.build.compatibilityDate,
    compatibilityFlags: effectiveFlags(live.build.compatibilityFlags),
    mainModule: prefix + (live.build.modules[0]?.name ?? 'worker.js'),
    modules,
    env: live.app.env,
  };
}
