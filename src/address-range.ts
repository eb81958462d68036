import { isIP } from 'node:net';

/**
 * Whether `value` is an IP address or a CIDR range (`10.0.0.1`, `10.0.0.0/8`, `fd00::/8`): a real address
 * (`isIP`) and a prefix length within its family's bits. For lists of trusted proxies (cw-api's
 * `CW_API_TRUST_PROXY`, cw-git's `auth.trusted_proxies`).
 */
export function isAddressOrRange(value: string): boolean {
  const [address = '', bits, ...rest] = value.split('/');
  const family = isIP(address);
  const max = family === 4 ? 32 : 128;
  const prefixOk = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= max);
  return family !== 0 && rest.length === 0 && prefixOk;
}

/** The entries of a comma-separated list of addresses and CIDR ranges (blanks around each ignored), or undefined when one is neither. */
export function addressList(text: string): readonly string[] | undefined {
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  return entries.every(isAddressOrRange) ? Object.freeze(entries) : undefined;
}
