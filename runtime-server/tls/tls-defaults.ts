/**
 * TLS 1.2 and 1.3 only; the cipher suites are Node's defaults (ECDHE with AES-GCM or ChaCha20-Poly1305 first,
 * nothing export-grade, RC4, 3DES or NULL), which follow OpenSSL's updates without a list of ours to go stale.
 */
export const TLS_VERSIONS = { minVersion: 'TLSv1.2', maxVersion: 'TLSv1.3' } as const;
