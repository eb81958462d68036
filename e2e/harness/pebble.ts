import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Agent, fetch } from 'undici';
import { freePort, startService, waitForHttp, type Service } from './process.ts';
import { toolPath } from './tools.ts';

/** Let's Encrypt's test CA, with validation on, and the DNS server it resolves every name through. */
export interface Pebble {
  /** The ACME directory URL (HTTPS, signed by {@link Pebble.listenerCa}). */
  readonly directoryUrl: string;
  /** The root of Pebble's own HTTPS listener: an ACME client trusts it. */
  readonly listenerCa: string;
  /** The port Pebble validates HTTP-01 challenges on, at whatever address a name resolves to. */
  readonly http01Port: number;
  /** Pebble's management API (roots, renewal info). */
  readonly managementUrl: string;
  /** Answers every A query with 127.0.0.1 unless told otherwise; TXT records as set. */
  readonly dns: { setTxt(name: string, value: string): Promise<void>; clearTxt(name: string): Promise<void>; addA(name: string, address: string): Promise<void> };
  /** The root that signs issued certificates (regenerated at each start). */
  issuingRoot(): Promise<string>;
  /** Has Pebble suggest renewing the certificate (PEM) in the window given (RFC 9773), from now on. */
  setRenewalWindow(certificatePem: string, window: { start: Date; end: Date }): Promise<void>;
  /** What Pebble knows of the certificate with serial `serial` (hex): `Valid` or `Revoked`. */
  certificateStatus(serial: string): Promise<string | undefined>;
  stop(): Promise<void>;
}

export interface PebbleOptions {
  /** Percent of nonces Pebble rejects as bad (its default is 5): clients must retry them. */
  readonly nonceRejectPercent?: number;
  /** The port Pebble validates HTTP-01 on (the runtime's entry point in `make dev`); default a free one. */
  readonly http01Port?: number;
  /** Pebble waits up to this many seconds (at random) before each validation, as a busy CA does; default none. */
  readonly validationDelaySeconds?: number;
  /** The DNS server Pebble resolves through (`host:port`), such as the hosted zones' (DNS-01); default challtestsrv's. */
  readonly dnsServer?: string;
}

/** Starts pebble-challtestsrv (DNS only) and Pebble resolving through it, on free loopback ports. */
export async function startPebble(stateDir: string, options: PebbleOptions = {}): Promise<Pebble> {
  const ports = await Promise.all(Array.from({ length: 6 }, () => freePort()));
  const [dnsPort, challManagementPort, acmePort, managementPort, freeHttp01Port, tlsPort] = ports as [number, number, number, number, number, number];
  const http01Port = options.http01Port ?? freeHttp01Port;
  const services: Service[] = [];
  const stop = async () => {
    for (const service of services.reverse()) await service.stop();
  };
  try {
    services.push(
      startService({
        name: 'pebble-challtestsrv',
        command: toolPath('pebble-challtestsrv'),
        args: [
          '-dnsserver',
          `127.0.0.1:${dnsPort}`,
          '-management',
          `127.0.0.1:${challManagementPort}`,
          '-http01',
          '',
          '-https01',
          '',
          '-tlsalpn01',
          '',
          '-doh',
          '',
          '-defaultIPv4',
          '127.0.0.1',
          '-defaultIPv6',
          '',
        ],
        logPath: join(stateDir, 'pebble-challtestsrv.log'),
      }),
    );
    const files = dirname(realpathSync(toolPath('pebble')));
    const configPath = join(stateDir, 'pebble.json');
    writeFileSync(
      configPath,
      JSON.stringify({
        pebble: {
          listenAddress: `127.0.0.1:${acmePort}`,
          managementListenAddress: `127.0.0.1:${managementPort}`,
          certificate: join(files, 'cert.pem'),
          privateKey: join(files, 'key.pem'),
          httpPort: http01Port,
          tlsPort,
          ocspResponderURL: '',
          externalAccountBindingRequired: false,
        },
      }),
    );
    services.push(
      startService({
        name: 'pebble',
        command: toolPath('pebble'),
        args: ['-config', configPath, '-dnsserver', options.dnsServer ?? `127.0.0.1:${dnsPort}`],
        // Authorizations are never reused, so each order (a renewal too) is validated again, deterministically.
        env: {
          ...process.env,
          ...(options.validationDelaySeconds ? { PEBBLE_VA_SLEEPTIME: String(options.validationDelaySeconds) } : { PEBBLE_VA_NOSLEEP: '1' }),
          PEBBLE_WFE_NONCEREJECT: String(options.nonceRejectPercent ?? 5),
          PEBBLE_AUTHZREUSE: '0',
        },
        logPath: join(stateDir, 'pebble.log'),
      }),
    );
    const listenerCa = readFileSync(join(files, 'minica.pem'), 'utf8');
    const agent = new Agent({ connect: { ca: listenerCa } });
    const directoryUrl = `https://127.0.0.1:${acmePort}/dir`;
    const managementUrl = `https://127.0.0.1:${managementPort}`;
    const challenges = `http://127.0.0.1:${challManagementPort}`;
    await waitForHttp(services[0]!, challenges, 30_000);
    await waitForHttp(services[1]!, directoryUrl, 30_000, agent);
    const post = async (url: string, body: unknown, dispatcher?: Agent) => {
      const res = await fetch(url, { method: 'POST', body: JSON.stringify(body), ...(dispatcher ? { dispatcher } : {}) });
      if (!res.ok) throw new Error(`POST ${url}: ${res.status} ${await res.text()}`);
      await res.body?.cancel();
    };
    return {
      directoryUrl,
      listenerCa,
      http01Port,
      managementUrl,
      dns: {
        setTxt: (name, value) => post(`${challenges}/set-txt`, { host: `${name}.`, value }),
        clearTxt: (name) => post(`${challenges}/clear-txt`, { host: `${name}.` }),
        addA: (name, address) => post(`${challenges}/add-a`, { host: `${name}.`, addresses: [address] }),
      },
      issuingRoot: async () => (await fetch(`${managementUrl}/roots/0`, { dispatcher: agent })).text(),
      setRenewalWindow: (certificatePem, window) =>
        post(
          `${managementUrl}/set-renewal-info/`,
          { certificate: certificatePem, ariResponse: JSON.stringify({ suggestedWindow: { start: window.start.toISOString(), end: window.end.toISOString() } }) },
          agent,
        ),
      certificateStatus: async (serial) => {
        const res = await fetch(`${managementUrl}/cert-status-by-serial/${serial.replace(/^0+/, '')}`, { dispatcher: agent });
        if (res.status === 404) return (await res.body?.cancel(), undefined);
        return ((await res.json()) as { Status?: string }).Status;
      },
      stop: async () => {
        await agent.close();
        await stop();
      },
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
