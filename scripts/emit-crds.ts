// Writes crds/<plural>.cloudwright.dev.yaml for every kind in src/apis/v1alpha1 (`make crds`).
// scripts/crd/drift.test.ts fails when the committed files differ from what this would write.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderCrdFiles } from './crd/render.ts';

export { renderCrdFiles };

/** The directory the generated CRDs are committed in. */
export const CRDS_DIR = fileURLToPath(new URL('../crds/', import.meta.url));

/**
 * Make `dir` hold exactly the rendered CRDs: write changed files, delete YAML files no kind produces
 * (a renamed or removed kind). Files whose content is unchanged are not touched.
 */
export function writeCrdFiles(dir: string = CRDS_DIR): { written: string[]; removed: string[] } {
  const files = renderCrdFiles();
  mkdirSync(dir, { recursive: true });
  const written: string[] = [];
  for (const [name, content] of Object.entries(files)) {
    const path = join(dir, name);
    let current: string | undefined;
    try {
      current = readFileSync(path, 'utf8');
    } catch {
      current = undefined;
    }
    if (current === content) continue;
    writeFileSync(path, content);
    written.push(name);
  }
  const removed = readdirSync(dir).filter((name) => name.endsWith('.yaml') && !(name in files));
  for (const name of removed) rmSync(join(dir, name));
  return { written, removed };
}

if (import.meta.main) {
  const { written, removed } = writeCrdFiles();
  for (const name of written) console.log(`wrote crds/${name}`);
  for (const name of removed) console.log(`removed crds/${name}`);
  if (written.length === 0 && removed.length === 0) console.log('crds/ is up to date');
}
