// Test helper: the real engine in a directory of its own behind the real Hrana server, met through the official
// client as a tenant meets it (the sandbox, the quotas and the storage bounds are tried this way).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient, LibsqlError, type Client } from '@libsql/client';
import { expect } from 'vitest';
import { LocalEngine, type LocalEngineOptions } from '../../shards/local-engine.ts';
import { startHranaServer, type HranaServer, type HranaServerOptions } from '../http-server.ts';

export interface EngineTestbed {
  readonly directory: string;
  readonly engine: LocalEngine;
  readonly server: HranaServer;
  /** A client of `tenant` (the path names it) with `token`; closed with the testbed. */
  connect(tenant: string, token?: string): Client;
  close(): Promise<void>;
}

export interface EngineTestbedOptions {
  /** The temporary directory's name prefix. */
  readonly prefix: string;
  readonly engine?: Omit<LocalEngineOptions, 'directory'>;
  /** The server's options besides its engine and port; default authorisation: the path's tenant, writable. */
  readonly server?: Partial<Omit<HranaServerOptions, 'engine' | 'port'>>;
}

export async function startEngineTestbed(options: EngineTestbedOptions): Promise<EngineTestbed> {
  const directory = mkdtempSync(path.join(tmpdir(), options.prefix));
  const engine = new LocalEngine({ directory, ...options.engine });
  const server = await startHranaServer({ port: 0, engine, authorize: (_request, pathTenant) => ({ tenant: pathTenant ?? 'default' }), ...options.server });
  const clients: Client[] = [];
  return {
    directory,
    engine,
    server,
    connect: (tenant, token = 'token') => {
      const client = createClient({ url: `http://127.0.0.1:${server.port}/v1/${tenant}/`, authToken: token });
      clients.push(client);
      return client;
    },
    close: async () => {
      for (const client of clients) client.close();
      await server.close();
      await engine.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** The error `sql` fails with, as the client exposes it; the test fails when it does not fail. */
export async function failure(client: Client, sql: string): Promise<LibsqlError> {
  const outcome = await client.execute(sql).then(
    (result) => result.rows,
    (error: unknown) => error,
  );
  expect(outcome, `${sql} should have failed`).toBeInstanceOf(LibsqlError);
  return outcome as LibsqlError;
}
