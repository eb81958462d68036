import { join } from 'node:path';
import { freePort, startService, waitForHttp, type Service } from './process.ts';
import { toolPath } from './tools.ts';

export interface MotoServer {
  service: Service;
  /** Endpoint for the AWS SDK (Route 53 and friends). */
  endpoint: string;
}

/** Starts moto's server (the AWS API emulator, pinned from PyPI) on a free port of `host` (loopback by default). */
export async function startMoto(stateDir: string, host = '127.0.0.1'): Promise<MotoServer> {
  const port = await freePort();
  const service = startService({
    name: 'moto',
    command: toolPath('moto_server'),
    args: ['-H', host, '-p', String(port)],
    logPath: join(stateDir, 'moto.log'),
  });
  const endpoint = `http://${host}:${port}`;
  await waitForHttp(service, `${endpoint}/moto-api/`, 60_000);
  return { service, endpoint };
}
