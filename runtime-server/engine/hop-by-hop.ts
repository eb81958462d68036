// Headers that describe one connection, not the message: never forwarded (RFC 9110 §7.6.1). `expect` is answered by
// the entry point (Node sends 100-continue itself), so workerd must not answer it again.
export const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-authorization', 'proxy-authenticate', 'expect']);

/** The headers a `Connection` header names as this connection's own (hop-by-hop too), if it names any. */
export function connectionTokens(connection: string | undefined): Set<string> | undefined {
  if (!connection || connection === 'keep-alive' || connection === 'close') return undefined;
  return new Set(connection.split(',').map((t) => t.trim().toLowerCase()));
}
