// The baseline: Fastify with one route, on the same Node as cw-api. `PORT` from the environment; prints
// `listening` once it serves. With BENCH_ACCESS_LOG=1 it also writes cw-api's access log, one line per request
// at `info`, through the same plugin and the same log destination: the like-for-like reference for a
// service that must log every request (bench/README.md, "What is compared"). Otherwise no logger, no hooks.
// With BENCH_API_SERVER=1 it listens with cw-api's own server (api/plugins/http-server.ts) instead of
// Fastify's default one: how much of cw-api's ratio that server option buys.
import Fastify, { type FastifyServerOptions } from 'fastify';
import { accessLogController } from '../api/plugins/access-log.ts';
import { apiHttpServer } from '../api/plugins/http-server.ts';
import { withBufferedLogs } from '../api/plugins/log-destination.ts';
import { lazyRequestLoggers } from '../api/plugins/request-logger.ts';

const logged = process.env.BENCH_ACCESS_LOG === '1';
const server: FastifyServerOptions = process.env.BENCH_API_SERVER === '1' ? { serverFactory: apiHttpServer } : {};
const app = Fastify(logged ? withBufferedLogs({ ...server, logger: { level: 'info' }, logController: accessLogController(), ...lazyRequestLoggers }) : { ...server, logger: false });
app.get('/hello', async () => ({ hello: 'world' }));
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
process.stdout.write('listening\n');
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
