import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, inject, it } from 'vitest';
import { loadKubeConnection } from './index.ts';
import { pingApiServer } from './ping.ts';

it('resolves for a ready apiserver (whose /readyz answers plain text)', async () => {
  await expect(pingApiServer(loadKubeConnection(inject('kubeconfig')), AbortSignal.timeout(5_000))).resolves.toBeUndefined();
});

it('rejects when the apiserver cannot be reached', async () => {
  const path = join(mkdtempSync(join(tmpdir(), 'cw-ping-')), 'kubeconfig');
  writeFileSync(path, readFileSync(inject('kubeconfig'), 'utf8').replace(/server: https:\/\/127\.0\.0\.1:\d+/, 'server: https://127.0.0.1:1'));
  await expect(pingApiServer(loadKubeConnection(path), AbortSignal.timeout(5_000))).rejects.toThrow();
});
