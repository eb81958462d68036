// One handshake measurement for bench/runtime-tls.ts, as its own process (it shares no event loop with the
// orchestrator or the servers). Keeps `connections` TLS connections being opened at once: each connects,
// completes the handshake, closes and starts again. Full: no session offered, so every handshake is a full one
// (ECDHE and the server's signature). Resumed: each slot keeps the session (ticket) the server gave it and offers
// the latest one at every connect. The client offers ALPN h2 and http/1.1, as a browser does, and does not verify
// the chain (the server's work is the same; the client's is less, so it saturates the server sooner). Argument:
// JSON {@link HandshakeLoadSpec}; prints one JSON {@link HandshakeLoadResult} line.
import { connect } from 'node:tls';

export interface HandshakeLoadSpec {
  port: number;
  /** Server names, taken in turn (full) or one per slot (resumed). */
  names: string[];
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
  resume: boolean;
  maxVersion: 'TLSv1.3' | 'TLSv1.2';
}

export interface HandshakeLoadResult {
  handshakesPerSecond: number;
  total: number;
  /** Handshakes of the warm-up (for CPU accounting over the whole child run). */
  warmupTotal: number;
  /** Of the measured handshakes, how many resumed a session. */
  resumed: number;
  errors: number;
  firstError?: string;
}

const spec = JSON.parse(process.argv[2] ?? '{}') as HandshakeLoadSpec;

function handshake(servername: string, session: Buffer | undefined): Promise<{ reused: boolean; session: Buffer | undefined }> {
  return new Promise((resolve, reject) => {
    let latest = session;
    let reused = false;
    const socket = connect({
      host: '127.0.0.1',
      port: spec.port,
      servername,
      rejectUnauthorized: false,
      minVersion: 'TLSv1.2',
      maxVersion: spec.maxVersion,
      ALPNProtocols: ['h2', 'http/1.1'],
      ...(session ? { session } : {}),
    });
    socket.on('session', (s: Buffer) => (latest = s));
    socket.once('secureConnect', () => {
      reused = socket.isSessionReused();
      socket.end();
    });
    socket.on('data', () => {});
    socket.once('error', reject);
    socket.once('close', () => resolve({ reused, session: latest }));
  });
}

async function run(seconds: number): Promise<Omit<HandshakeLoadResult, 'warmupTotal' | 'handshakesPerSecond'> & { seconds: number }> {
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  let total = 0;
  let resumed = 0;
  let errors = 0;
  let firstError: string | undefined;
  let next = 0;
  const slot = async (i: number) => {
    let session: Buffer | undefined;
    while (performance.now() < end) {
      const name = spec.resume ? spec.names[i % spec.names.length]! : spec.names[next++ % spec.names.length]!;
      try {
        const r = await handshake(name, spec.resume ? session : undefined);
        total++;
        if (r.reused) resumed++;
        session = r.session;
      } catch (err) {
        errors++;
        firstError ??= err instanceof Error ? err.message : String(err);
      }
    }
  };
  await Promise.all(Array.from({ length: spec.connections }, (_, i) => slot(i)));
  return { total, resumed, errors, ...(firstError ? { firstError } : {}), seconds: (performance.now() - t0) / 1000 };
}

const warmup = spec.warmupSeconds > 0 ? await run(spec.warmupSeconds) : undefined;
const measured = await run(spec.durationSeconds);
const result: HandshakeLoadResult = {
  handshakesPerSecond: measured.total / measured.seconds,
  total: measured.total,
  warmupTotal: warmup?.total ?? 0,
  resumed: measured.resumed,
  errors: measured.errors + (warmup?.errors ?? 0),
  ...((measured.firstError ?? warmup?.firstError) ? { firstError: measured.firstError ?? warmup?.firstError } : {}),
};
process.stdout.write(`${JSON.stringify(result)}\n`);
