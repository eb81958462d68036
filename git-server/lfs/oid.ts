// LFS object ids: the SHA-256 of the content, lowercase hex (the only hash_algo this server speaks).
const OID = /^[0-9a-f]{64}$/;

export function isOid(value: string): boolean {
  return OID.test(value);
}
