// DNS settings for the platform processes the tests start: project zones in the run's moto, and DNS lookups
// that give up fast (a resolver on the discard port), so a test that never meant to touch DNS is not slowed
// down and never reaches the internet. Tests of DNS itself override CW_DNS_PARENT_SERVER and friends.
import { inject } from 'vitest';

/** moto accepts any keys: fixed dummies, never real ones. */
export const ROUTE53_TEST_CREDENTIALS = { CW_ROUTE53_ACCESS_KEY_ID: 'AKIDCLOUDWRIGHTTEST', CW_ROUTE53_SECRET_ACCESS_KEY: 'cloudwright-test-secret-key' };

export function dnsTestEnv(endpoint: string = inject('route53Endpoint')): Record<string, string> {
  return {
    CW_ROUTE53_ENDPOINT: endpoint,
    ...ROUTE53_TEST_CREDENTIALS,
    CW_DNS_RESOLVER: '127.0.0.1:9',
    CW_DNS_TIMEOUT_MS: '300',
  };
}
