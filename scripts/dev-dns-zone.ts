// The DNS half of `make dev`: a development parent zone for `test.` on loopback (the delegation check asks
// it; `make delegate` changes it through its control endpoint) and the settings cw-api and cw-operator need
// to host project zones in moto's Route 53.
import { startParentZoneControl } from '../src/dns/parent-zone-control.ts';
import { startParentZoneServer } from '../src/dns/parent-zone-server.ts';

export interface DevDns {
  /** CW_* settings for cw-api and cw-operator. */
  readonly env: Record<string, string> & { CW_DNS_PARENT_SERVER: string };
  /** Where `make delegate` sends its changes. */
  readonly controlUrl: string;
  stop(): Promise<void>;
}

/** Starts the `test.` parent zone and its control endpoint. */
export async function startDevDns(route53Endpoint: string): Promise<DevDns> {
  const zone = await startParentZoneServer({ suffix: 'test', ...(process.env.CW_DEV_DNS_PORT ? { port: Number(process.env.CW_DEV_DNS_PORT) } : {}) });
  const control = await startParentZoneControl(zone);
  return {
    env: {
      CW_ROUTE53_ENDPOINT: route53Endpoint,
      // moto takes any keys; fixed dummies so the SDK does not go looking for real ones.
      CW_ROUTE53_ACCESS_KEY_ID: 'AKIDCLOUDWRIGHTDEV',
      CW_ROUTE53_SECRET_ACCESS_KEY: 'cloudwright-dev-secret-key',
      CW_DNS_PARENT_SERVER: zone.address,
      // Managed apex hostnames get A records: the runtime listens on this machine.
      CW_RUNTIME_DNS_IPV4: '127.0.0.1',
      // Managed domains are re-checked every minute, so `make undelegate` shows within one.
      CW_DNS_RECHECK_INTERVAL_SECONDS: process.env.CW_DNS_RECHECK_INTERVAL_SECONDS ?? '60',
    },
    controlUrl: control.url,
    stop: async () => {
      await control.stop();
      await zone.stop();
    },
  };
}
