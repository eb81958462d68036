import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './tools.ts';

/** The Python tools pinned in e2e/requirements.txt that tests run directly (moto has `toolPath`). */
export type PythonTool = 'schemathesis' | 'openapi-spec-validator';

/** Path of a pinned Python tool linked into .tools/bin by `make setup` (scripts/setup/python.sh). */
export function pythonToolPath(name: PythonTool): string {
  const path = join(repoRoot, '.tools', 'bin', name);
  if (!existsSync(path)) throw new Error(`${name} is not installed at ${path}: run \`make setup\` (pinned in e2e/requirements.txt)`);
  return path;
}
