// Which TCP peers may speak for someone else: the addresses and CIDR ranges of trusted proxies (cw-git's
// `auth.trusted_proxies`, cw-runtime's `CW_RUNTIME_TRUST_FORWARDED_HEADERS`).
import { BlockList, isIPv4 } from 'node:net';

/** Answers whether a peer address is one of the trusted proxies. */
export type PeerCheck = (address: string | undefined) => boolean;

/** Builds the check from IPs and CIDR ranges (validated by the configuration). An empty list trusts no one. */
export function trustedPeers(entries: readonly string[]): PeerCheck {
  if (entries.length === 0) return () => false;
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', bits] = entry.split('/');
    const family = isIPv4(address) ? 'ipv4' : 'ipv6';
    if (bits === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(bits), family);
  }
  return (peer) => {
    if (!peer) return false;
    // A dual-stack socket reports IPv4 peers as IPv4-mapped IPv6 (`::ffff:10.0.0.1`): match them as IPv4.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(peer)?.[1];
    const address = mapped ?? peer;
    return list.check(address, isIPv4(address) ? 'ipv4' : 'ipv6');
  };
}
