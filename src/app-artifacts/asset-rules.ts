// The bounds of `assets/_headers`, `assets/_redirects` and `assets/.assetsignore`, Cloudflare's (the files follow its
// format, so a site within Cloudflare's limits deploys here too). Their text goes whole into the assets service of
// every workerd of the app's shard, parsed there: about five times its size in each, outside any isolate's heap.
// Read up to 1 MiB each (a configuration file's bound), 30 apps of one project stopped their shard at every start
// (found in review), every tenant of the shard with it; a shard now holds at most some 2 MB of them an app.
import { ArtifactError } from './errors.ts';

/** Per file: its bytes, its rules and the longest line; `_redirects` also its dynamic rules (wildcards, placeholders). */
export const ASSET_RULE_LIMITS = {
  _headers: { bytes: 64 * 1024, rules: 100, lineChars: 2000 },
  _redirects: { bytes: 256 * 1024, rules: 2100, dynamicRules: 100, lineChars: 1000 },
  '.assetsignore': { bytes: 64 * 1024, rules: 1000, lineChars: 1000 },
} as const;

export type AssetControlFile = keyof typeof ASSET_RULE_LIMITS;

/** Checks a control file's text against its limits; throws an ArtifactError saying which one it passes. */
export function checkAssetRules(file: AssetControlFile, text: string): void {
  const limits = ASSET_RULE_LIMITS[file];
  const where = `assets/${file}`;
  const bytes = Buffer.byteLength(text);
  if (bytes > limits.bytes) throw new ArtifactError(`${where} is ${bytes} bytes; at most ${limits.bytes} are allowed`);
  let rules = 0;
  let dynamic = 0;
  let lineNo = 0;
  for (const line of text.split('\n')) {
    lineNo += 1;
    if (line.length > limits.lineChars) throw new ArtifactError(`${where} line ${lineNo} is ${line.length} characters; at most ${limits.lineChars} are allowed`);
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    // In `_headers` a rule is a path line; its header lines are indented under it.
    if (file === '_headers' && /^\s/.test(line)) continue;
    rules += 1;
    if (file === '_redirects' && isDynamicRedirect(trimmed)) dynamic += 1;
  }
  if (rules > limits.rules) throw new ArtifactError(`${where} has ${rules} rules; at most ${limits.rules} are allowed`);
  if ('dynamicRules' in limits && dynamic > limits.dynamicRules) {
    throw new ArtifactError(`${where} has ${dynamic} rules with a wildcard or placeholder; at most ${limits.dynamicRules} are allowed`);
  }
}

/** A redirect whose source has a splat (`*`) or a placeholder (`:name`). */
function isDynamicRedirect(rule: string): boolean {
  const source = rule.split(/\s+/, 1)[0] ?? '';
  return source.includes('*') || /(^|\/):[A-Za-z]/.test(source);
}
