// The Next.js example (docs/examples/nextjs) as a repository's source for push to deploy: its files, and the
// AppSource build command that turns them into the OpenNext layout the packer takes.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from './tools.ts';

const EXAMPLE = join(repoRoot, 'docs/examples/nextjs');

/**
 * OpenNext's build as the AppSource's command: the layout pack-output.ts packs (.open-next/assets and the
 * bundled dist/), copied into out/ so the builder's output leaves node_modules and .next behind. `npm install`,
 * not `npm ci`: the example ships no lockfile (scripts/setup/nextjs-example.sh says why).
 */
export const NEXTJS_BUILD_COMMAND = [
  'npm install --no-audit --no-fund --prefer-offline --loglevel=error',
  'npx opennextjs-cloudflare build',
  'npx wrangler deploy --dry-run --outdir dist',
  'mkdir -p out/.open-next',
  'cp -r .open-next/assets out/.open-next/',
  'cp -r dist out/',
].join(' && ');

/** What the example's page says, to know it is served. */
export const NEXTJS_SERVED_TEXT = 'from Next.js on Cloudwright';

/** Telemetry off: builds have no business calling home (and build pods cannot). */
export const NEXTJS_BUILD_ENV = { NEXT_TELEMETRY_DISABLED: '1', WRANGLER_SEND_METRICS: 'false' };

/** The example's own files (tracked, or new and not ignored), as scripts/setup/nextjs-example.sh takes them. */
function nextjsFiles(): string[] {
  return execFileSync('git', ['ls-files', '-co', '--exclude-standard', '.'], { cwd: EXAMPLE, encoding: 'utf8' }).split('\n').filter(Boolean);
}

/** Copies the example's files into `dir` (a git work tree). */
export function copyNextjsExample(dir: string): void {
  const files = nextjsFiles()
    .map((f) => `'${f}'`)
    .join(' ');
  execFileSync('sh', ['-c', `tar -C "${EXAMPLE}" -cf - ${files} | tar -C "${dir}" -xf -`]);
}
