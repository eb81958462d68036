import { mkdir, readdir, rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { killLeftovers } from './generation.ts';

/** Unix socket paths are limited to about 100 bytes: the run directory leaves room for a generation's names. */
export const MAX_RUN_DIR = 90;

/** Where the engine keeps what it runs (`run`: workerd configs and sockets) and what it unpacked (`builds`). */
export interface DataDirs {
  readonly run: string;
  readonly builds: string;
}

/**
 * Makes `dataDir` ready for a new engine: a workerd a crashed engine left running is killed, the stale sockets
 * go, the run directory is this process's only (its sockets reach every app), and builds a crash left half
 * unpacked (`.tmp-*`) are deleted. Unpacked builds are kept: they are fetched again only when missing.
 */
export async function prepareDataDir(dataDir: string): Promise<DataDirs> {
  // Absolute: workerd runs in a directory of its own, and its config names sockets under this one.
  const run = resolve(dataDir, 'run');
  const builds = resolve(dataDir, 'builds');
  if (run.length > MAX_RUN_DIR) throw new Error(`runtime dataDir is too long for Unix socket paths: ${dataDir}`);
  await killLeftovers(run);
  await rm(run, { recursive: true, force: true });
  await mkdir(run, { recursive: true, mode: 0o700 });
  await mkdir(builds, { recursive: true });
  for (const name of await readdir(builds)) if (name.startsWith('.tmp-')) await rm(resolve(builds, name), { recursive: true, force: true });
  return { run, builds };
}

/** The run directory of `dataDir` (known before it is prepared: a failed start cleans up in it). */
export function runDirOf(dataDir: string): string {
  return resolve(dataDir, 'run');
}
