// What the admin commands run against, built from the configuration file: the repository store on the
// configured bucket, and the directory full syncs go into. The only part of the CLI that reads the config.
import { join } from 'node:path';
import { Registry } from 'prom-client';
import type { S3ObjectStore } from '../../src/object-store/s3-object-store.ts';
import { RepoStore } from '../../src/repo-store/index.ts';
import { createObjectStore, loadConfig, type GitServiceConfig } from '../config/index.ts';

/** The configuration, and the bucket it names, connected on first use (`token` never needs it). */
export class CliContext {
  readonly config: GitServiceConfig;
  #store: S3ObjectStore | undefined;
  #repos: RepoStore | undefined;

  constructor(config: GitServiceConfig) {
    this.config = config;
  }

  /** Loads `configPath` with `env`'s overrides; throws `ConfigError`. */
  static load(configPath: string, env: NodeJS.ProcessEnv): CliContext {
    return new CliContext(loadConfig(configPath, env));
  }

  get repos(): RepoStore {
    // Registries of their own: the CLI exposes no metrics, and the default registry is process-global.
    this.#store ??= createObjectStore(this.config, { registry: new Registry() });
    this.#repos ??= new RepoStore({ store: this.#store, registry: new Registry() });
    return this.#repos;
  }

  /**
   * Where `repo info` syncs repositories: `<cache.dir>/admin`, beside (never inside) the copies a `cw-git
   * serve` on the same configuration keeps, so the two processes never sync one directory.
   */
  get syncRoot(): string {
    return join(this.config.cache.dir, 'admin');
  }

  /** Releases the store's connections, so the process can exit on its own. */
  close(): void {
    this.#store?.destroy();
  }
}
