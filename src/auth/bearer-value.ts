/**
 * The credential of an `Authorization: Bearer …` header, or undefined: for routes whose own tokens it carries (a
 * database's, a query token), which are not the API's `cwt_` tokens `bearerToken` parses and refuses.
 */
export function bearerValue(authorization: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
}
