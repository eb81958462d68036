import type { RuntimeTarget } from '../../dns/app-records.ts';

const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);

/**
 * Where the runtime takes traffic, what app hostname records point at: CW_RUNTIME_DNS_TARGET (the host name
 * app CNAMEs point at; default `runtime.<base domain>`), CW_RUNTIME_DNS_IPV4 and CW_RUNTIME_DNS_IPV6
 * (comma-separated addresses for apex hostnames, which cannot be CNAMEs). All cw-api needs of the DNS
 * settings: it checks that an attach can be routed, and leaves every DNS provider to the controllers.
 */
export function runtimeTargetFromEnv(env: Readonly<Record<string, string | undefined>>, baseDomain: string): RuntimeTarget {
  return {
    hostname: env.CW_RUNTIME_DNS_TARGET || `runtime.${baseDomain}`,
    ipv4: list(env.CW_RUNTIME_DNS_IPV4),
    ipv6: list(env.CW_RUNTIME_DNS_IPV6),
  };
}
