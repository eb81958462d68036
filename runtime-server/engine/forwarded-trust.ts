import { trustedPeers } from '../../src/trusted-peers.ts';

/**
 * Whose `X-Forwarded-*` the entry point keeps: every peer's (`true`: only where nothing but the ingress reaches its
 * HTTP listener), nobody's (`false`), or those of the peers in these addresses and CIDR ranges (the ingress's).
 */
export type ForwardedTrust = boolean | readonly string[];

/** Whether a connection from `address` may speak for its client with `X-Forwarded-*`, as `trust` says. */
export function trustsPeer(trust: ForwardedTrust): (address: string | undefined) => boolean {
  return typeof trust === 'boolean' ? () => trust : trustedPeers(trust);
}
