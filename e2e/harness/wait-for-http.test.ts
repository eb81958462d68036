// The harness's readiness poll against a port taken by someone else: freePort() hands out a port that was free a
// moment ago, and a server of another test file may listen on it before the service does. Its answers (a bare
// 401, say) must not pass for the service's: the cli-builds setup of ci-clone-23 got "401 Unauthorized" one
// second into its file, before its cw-api could have listened.
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { portOwner } from './port-owner.ts';
import { freePort, PortTakenError, startService, waitForHttp } from './process.ts';

/** A node process that listens on `port` half a second after it starts, as a service does once it has started. */
function lateListener(port: number) {
  const script = `setTimeout(() => require('node:http').createServer((_q, s) => s.end('ok')).listen(${port}, '127.0.0.1'), 500);`;
  return startService({ name: 'late-listener', command: process.execPath, args: ['-e', script], logPath: join(inject('stateDir'), `late-listener-${port}.log`) });
}

async function listen(server: Server, port: number): Promise<void> {
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
}

describe('waitForHttp', () => {
  it('takes no answer from another process on the port for the service’s: the service fails to listen, and says why', async () => {
    const port = await freePort();
    const intruder = createServer((_req, res) => res.writeHead(401).end());
    await listen(intruder, port);
    const service = lateListener(port);
    try {
      const waited = waitForHttp(service, `http://127.0.0.1:${port}/healthz`, 20_000);
      await expect(waited).rejects.toBeInstanceOf(PortTakenError);
      await expect(waited).rejects.toThrow(`another process listens on port ${port}`);
    } finally {
      await service.stop(1_000);
      intruder.close();
    }
  });

  it('resolves once the service itself answers, and tells its listener from another process’s', async () => {
    const [port, otherPort] = [await freePort(), await freePort()];
    const service = lateListener(port);
    const other = lateListener(otherPort);
    try {
      await waitForHttp(service, `http://127.0.0.1:${port}/healthz`, 20_000);
      await waitForHttp(other, `http://127.0.0.1:${otherPort}/healthz`, 20_000);
      expect(portOwner(service.child.pid!, port)).toBe('ours');
      expect(portOwner(other.child.pid!, port)).toBe('another');
    } finally {
      await Promise.all([service.stop(1_000), other.stop(1_000)]);
    }
  });
});
