// Ports for the services the harness starts. A port is picked before the service listens on it (seconds later,
// under load), so it must not be one the kernel may hand to anyone else meanwhile: every `listen(0)` of a test's
// own server and every outgoing connection draws from the ephemeral range (ip_local_port_range), where ci-clone
// runs saw another test's server take a port picked for cw-operator. The harness therefore picks below that range,
// each vitest worker from a slice of its own, walking its slice from a random start so that files run one after
// the other in the same worker do not retry the same ports first.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const SPAN = 12_000;
const SLICES = 8;

/** The ports below the kernel's ephemeral range this process picks from, or `undefined` if the range leaves no room. */
function slice(): { first: number; size: number } | undefined {
  let low = 32_768;
  try {
    low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  } catch {
    // not Linux: the usual default
  }
  if (!(low - SPAN >= 1_024)) return undefined;
  const size = SPAN / SLICES;
  const worker = Number(process.env.VITEST_POOL_ID ?? 0) % SLICES;
  return { first: low - SPAN + worker * size, size };
}

const ports = slice();
let next = Math.floor(Math.random() * (ports?.size ?? 1));

/** Whether nothing listens on `port` on any address (binding the wildcard address fails if one does). */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '0.0.0.0', () => server.close(() => resolve(true)));
  });
}

/** A port the kernel picked: only where the ephemeral range leaves no room below it. */
function kernelPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** A TCP port on 127.0.0.1 that was free a moment ago and that no other worker of this run hands out. */
export async function freePort(): Promise<number> {
  if (!ports) return kernelPort();
  for (let tried = 0; tried < ports.size; tried++) {
    const port = ports.first + (next++ % ports.size);
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port in ${ports.first}-${ports.first + ports.size - 1}`);
}
