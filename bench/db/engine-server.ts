// The server under test of `make bench-db`, as a process of its own (never in the load generator's): Cloudwright's
// database engine (Hrana v2 over HTTP on the `libsql` package) serving every request as the tenant `bench` (or the
// path's tenant), on SQLite files in `--directory`. No tokens and no bucket shipping yet: this stands in for
// `bin/cw-db.ts` until that binary exists (bench/db/servers.ts starts one or the other).
//
// Prints `listening on 127.0.0.1:<port>`; on SIGTERM it closes the server and exits 0, so a `--cpu-prof` run writes
// its profile.
import { parseArgs } from 'node:util';
import { startHranaServer } from '../../src/database-engine/http-server.ts';
import { LibsqlEngine } from '../../src/database-engine/libsql-engine.ts';

const { values: flags } = parseArgs({ options: { port: { type: 'string', default: '0' }, directory: { type: 'string' } } });
if (!flags.directory) {
  process.stderr.write('engine-server: --directory is required\n');
  process.exit(2);
}

const server = await startHranaServer({
  port: Number(flags.port),
  engine: new LibsqlEngine({ directory: flags.directory }),
  resolveTenant: (_request, pathTenant) => pathTenant ?? 'bench',
});
process.stdout.write(`listening on 127.0.0.1:${server.port}\n`);

process.once('SIGTERM', () => {
  void server.close().finally(() => process.exit(0));
});
