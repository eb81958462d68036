import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../e2e/harness/tools.ts';
import { RUNTIME_NODE_FLAGS } from './node-flags.ts';

describe('RUNTIME_NODE_FLAGS', () => {
  it('are what the image runs cw-runtime with, and the path bench its entry point', () => {
    const image = readFileSync(join(repoRoot, 'scripts/setup/image.sh'), 'utf8');
    expect(image).toContain(`RUNTIME_NODE_FLAGS="${RUNTIME_NODE_FLAGS.join(' ')}"`);
    const makefile = readFileSync(join(repoRoot, 'Makefile'), 'utf8');
    expect(makefile).toContain(`@node ${RUNTIME_NODE_FLAGS.join(' ')} bench/runtime-path.ts`);
  });
});
