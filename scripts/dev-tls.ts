// The HTTPS half of `make dev`: Pebble, Let's Encrypt's test CA, with validation on, checking HTTP-01 answers on
// the runtime's own port (every name resolves to this machine), and the settings the operator and the runtime
// need to order and serve certificates.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startPebble } from '../e2e/harness/pebble.ts';
import type { ProjectDomain } from '../src/apis/v1alpha1/project-domain.ts';
import { startHostedZoneServer } from '../src/dns/hosted-zone-server.ts';
import { Route53Provider } from '../src/dns/route53-provider.ts';
import { createInformer, loadKubeConnection } from '../src/kube/index.ts';
import { PROJECT_DOMAINS } from '../src/platform/resources.ts';

export interface DevTls {
  stop(): Promise<void>;
  /** CW_ACME_* and CW_TLS_SEALING_KEY for cw-operator. */
  readonly operatorEnv: Record<string, string>;
  /** CW_RUNTIME_HTTPS_* and CW_TLS_SEALING_KEY for cw-runtime. */
  readonly runtimeEnv: Record<string, string>;
  /** For .dev/env: CW_RUNTIME_HTTPS_URL, and CW_TLS_CA_FILE, the root a client trusts for the apps' certificates. */
  readonly env: Record<string, string>;
}

/**
 * Starts Pebble. Its roots are new at each start, so CW_TLS_CA_FILE is written again: certificates issued before a
 * restart chain to the old root until they are renewed (or their host names attached again).
 */
export async function startDevTls(options: {
  stateDir: string;
  kubeconfig: string;
  baseDomain: string;
  route53: Record<string, string>;
  runtimePort: number;
  runtimeHttpsPort: number;
  runtimeUrl: string;
}): Promise<DevTls> {
  // Pebble resolves through the hosted zones (DNS-01's TXT records in moto's Route 53) and finds every other
  // name on this machine, where the runtime listens.
  const domains = createInformer<ProjectDomain>(loadKubeConnection(options.kubeconfig), PROJECT_DOMAINS, {});
  domains.start();
  const provider = new Route53Provider({
    ownerId: 'cloudwright',
    endpoint: options.route53['CW_ROUTE53_ENDPOINT'] ?? '',
    region: 'us-east-1',
    credentials: { accessKeyId: options.route53['CW_ROUTE53_ACCESS_KEY_ID'] ?? '', secretAccessKey: options.route53['CW_ROUTE53_SECRET_ACCESS_KEY'] ?? '' },
  });
  // The installation's zone for the base domain: each project's default hosts get a wildcard over DNS-01 there.
  const baseZoneId = (await provider.createZone(options.baseDomain, 'cloudwright-dev-base-domain')).zoneId;
  const zones = await startHostedZoneServer({
    provider,
    zones: () => [{ domain: options.baseDomain, zoneId: baseZoneId }, ...domains.list().flatMap((d) => (d.status?.hostedZoneId ? [{ domain: d.spec.domain, zoneId: d.status.hostedZoneId }] : []))],
    defaultIPv4: '127.0.0.1',
  });
  const pebble = await startPebble(options.stateDir, { http01Port: options.runtimePort, dnsServer: zones.address });
  const listenerCaFile = join(options.stateDir, 'pebble-listener-ca.pem');
  writeFileSync(listenerCaFile, pebble.listenerCa);
  const rootFile = join(options.stateDir, 'tls-ca.pem');
  writeFileSync(rootFile, await pebble.issuingRoot());
  const sealingKey = { CW_TLS_SEALING_KEY: devSealingKey(options.stateDir) };
  return {
    stop: async () => {
      await pebble.stop();
      await zones.stop();
      domains.stop();
      provider.destroy();
    },
    operatorEnv: {
      CW_ACME_DIRECTORY_URL: pebble.directoryUrl,
      CW_ACME_CA_FILE: listenerCaFile,
      CW_ACME_HTTP01_SELF_CHECK_URL: options.runtimeUrl,
      CW_TLS_BASE_ZONE_ID: baseZoneId,
      ...sealingKey,
    },
    // No load balancer in front: an app's redirect to HTTPS names the listener's own port.
    runtimeEnv: {
      CW_RUNTIME_HTTPS_HOST: '127.0.0.1',
      CW_RUNTIME_HTTPS_PORT: String(options.runtimeHttpsPort),
      CW_RUNTIME_PUBLIC_HTTPS_PORT: String(options.runtimeHttpsPort),
      ...sealingKey,
    },
    env: { CW_RUNTIME_HTTPS_URL: `https://127.0.0.1:${options.runtimeHttpsPort}`, CW_TLS_CA_FILE: rootFile },
  };
}

/** The sealing key, kept in the state directory so a restarted `make dev` still opens the keys it sealed. */
function devSealingKey(stateDir: string): string {
  const file = join(stateDir, 'tls-sealing-key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const key = randomBytes(32).toString('base64');
  writeFileSync(file, key, { mode: 0o600 });
  return key;
}
