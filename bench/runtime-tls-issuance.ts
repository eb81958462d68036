// Issuance time for the TLS section of bench/runtime.ts: Pebble (validation on, 5 % of nonces refused), a
// cw-operator reconciling one namespace, and the section's cw-runtime answering HTTP-01 on its entry port. Each
// sample applies a TlsCertificate for an app's host name (what the AppHostname controller does once a custom
// host name is finalized) and times it to the first HTTPS 200 from that app, the client trusting Pebble's root.
import { writeFileSync } from 'node:fs';
import type { LookupFunction } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { createTestNamespace } from '../e2e/harness/namespace.ts';
import { startPebble } from '../e2e/harness/pebble.ts';
import type { TlsCertificate } from '../src/apis/v1alpha1/tls-certificate.ts';
import { objectClient, type KubeConnection } from '../src/kube/index.ts';
import { TLS_CERTIFICATES } from '../src/platform/resources.ts';
import { firstServed, type Kit } from './runtime-kit.ts';
import { startTlsOperator, type HttpsRuntime, type TlsStackEnv } from './runtime-tls-stack.ts';

/** Every name resolves to this machine (the runtime's), as the CNAME of a custom host name sends it there. */
const lookup: LookupFunction = (_hostname, options, callback) => {
  if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
  else callback(null, '127.0.0.1', 4);
};

export interface IssuanceOptions {
  env: TlsStackEnv;
  kube: KubeConnection;
  kit: Kit;
  runtime: HttpsRuntime;
  samples: number;
  /** Deploys an app `name` in `namespace` serving the hello worker. */
  deploy: (namespace: string, name: string) => Promise<void>;
}

/** Answers each sample's time (ms) from the TlsCertificate created to the first HTTPS 200. */
export async function measureIssuance(options: IssuanceOptions): Promise<number[]> {
  const { env, kube, runtime } = options;
  const pebble = await startPebble(env.stateDir, { http01Port: runtime.port });
  env.stops.push(() => pebble.stop());
  const caFile = join(env.stateDir, 'pebble-listener.pem');
  writeFileSync(caFile, pebble.listenerCa);
  const root = await pebble.issuingRoot();
  const namespace = await createTestNamespace(kube, 'bench-acme');
  const stopOperator = await startTlsOperator(env, namespace, { directoryUrl: pebble.directoryUrl, caFile, selfCheckUrl: `http://127.0.0.1:${runtime.port}` });
  const certificates = objectClient<TlsCertificate>(kube, TLS_CERTIFICATES);
  const dispatcher = new Agent({ connect: { ca: root, lookup }, pipelining: 0 });
  const times: number[] = [];
  try {
    for (let i = 0; i < options.samples; i++) {
      const app = `web${i}`;
      const host = `${app}.${namespace}.${env.baseDomain}`;
      await options.deploy(namespace, app);
      await firstServed(runtime.port, host, 'Hello');
      const t0 = performance.now();
      await certificates.create({ metadata: { name: app, namespace }, spec: { dnsNames: [host], challenge: 'http-01' } });
      times.push((await firstHttps(dispatcher, `https://${host}:${runtime.httpsPort}/`)) - t0);
    }
  } finally {
    await dispatcher.close();
    await stopOperator();
    await pebble.stop();
  }
  return times;
}

/** Polls every 20 ms until `url` answers 200; resolves with the time of that answer. */
async function firstHttps(dispatcher: Agent, url: string, timeoutMs = 120_000): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  let last = '';
  while (performance.now() < deadline) {
    try {
      const res = await request(url, { dispatcher });
      const body = await res.body.text();
      if (res.statusCode === 200 && body.startsWith('Hello')) return performance.now();
      last = `${res.statusCode} ${body.slice(0, 100)}`;
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    await sleep(20);
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms (last: ${last})`);
}
