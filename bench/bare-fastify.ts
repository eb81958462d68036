// The baseline: Fastify with one route and nothing else (no logger, no hooks), on the same Node as cw-api.
// `PORT` from the environment; prints `listening` once it serves.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/hello', async () => ({ hello: 'world' }));
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
process.stdout.write('listening\n');
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
