#!/usr/bin/env node
import { databaseServerConfig } from '../database-server/config.ts';
import { startDatabaseServer } from '../database-server/main.ts';
import { runBinary } from '../src/config/run-binary.ts';

runBinary('cw-db', async () => {
  const server = await startDatabaseServer(databaseServerConfig(process.env));
  // SIGTERM: stop answering, ship what is pending, close the files; then exit.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      server.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }
});
