// Which workerd runs apps, and the newest compatibility date it supports: cw-runtime starts it, cw-api checks
// a build's `compatibility_date` against it.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';

const PLATFORM_PACKAGES: Record<string, string> = {
  'linux-x64': '@cloudflare/workerd-linux-64',
  'linux-arm64': '@cloudflare/workerd-linux-arm64',
  'darwin-x64': '@cloudflare/workerd-darwin-64',
  'darwin-arm64': '@cloudflare/workerd-darwin-arm64',
};

/**
 * The workerd binary: `configured` (a binary's CW_WORKERD_BIN) when set, else the one in the installed
 * platform package (`@cloudflare/workerd-linux-64` here; the `workerd` wrapper package is not used, see the
 * Makefile).
 */
export function resolveWorkerdBinary(configured?: string): string {
  if (configured) return configured;
  const pkg = PLATFORM_PACKAGES[`${process.platform}-${process.arch}`];
  if (!pkg) throw new Error(`workerd has no build for ${process.platform}-${process.arch}`);
  return createRequire(import.meta.url).resolve(`${pkg}/bin/workerd`);
}

/** The newest compatibility date `binary` supports: `workerd --version` prints `workerd 2026-11-17`. */
export async function workerdCompatibilityDate(binary: string): Promise<string> {
  const { stdout } = await promisify(execFile)(binary, ['--version']);
  const date = /\b(\d{4}-\d{2}-\d{2})\b/.exec(stdout)?.[1];
  if (!date) throw new Error(`cannot read the version of ${binary}: ${stdout.trim()}`);
  return date;
}
