// What names a pack's objects in the bucket (`packs/<sha256>[.<copy>].pack|idx`): its type, its check, its name and
// its JSON, in one place for the log, the manifest, maintenance and the readers.
import type { Fields } from './json-fields.ts';

/**
 * The SHA-256 of a pack's bytes and, for a pack a publish found there already and wrote again under a fresh key (so
 * as never to name an object gc may be deleting), that key's copy token.
 */
export interface PackObject {
  readonly sha256: string;
  readonly copy?: string;
}

const SHA256_HEX = '[0-9a-f]{64}';
const COPY_HEX = '[0-9a-f]{16}';

/** A pack's SHA-256: 64 lowercase hex digits. */
export const PACK_SHA256 = new RegExp(`^${SHA256_HEX}$`);

/** A copy token: random, so a copy's key is one no other writer uses; gc collects it after the grace period, as any object. */
export const PACK_COPY = new RegExp(`^${COPY_HEX}$`);

const PACK_FILE = new RegExp(`^(${SHA256_HEX})(?:\\.(${COPY_HEX}))?\\.(?:pack|idx)$`);

/** Whether `pack` is well-formed, so that its keys stay inside `packs/`. */
export function isPackObject(pack: PackObject): boolean {
  return PACK_SHA256.test(pack.sha256) && (pack.copy === undefined || PACK_COPY.test(pack.copy));
}

/** `<sha256>` or `<sha256>.<copy>`: what a pack's `.pack` and `.idx` keys share. */
export function packObjectName(pack: PackObject): string {
  return pack.copy === undefined ? pack.sha256 : `${pack.sha256}.${pack.copy}`;
}

/** The pack whose `.pack` or `.idx` is `packs/<file>`, or `undefined` for a file of another kind. */
export function packOfFile(file: string): PackObject | undefined {
  const match = PACK_FILE.exec(file);
  if (!match) return undefined;
  return match[2] === undefined ? { sha256: match[1] as string } : { sha256: match[1] as string, copy: match[2] };
}

/** Just what names the pack's objects (in a log entry, the manifest, the maintenance status's retired packs). */
export function packObjectJson(pack: PackObject): PackObject {
  return pack.copy === undefined ? { sha256: pack.sha256 } : { sha256: pack.sha256, copy: pack.copy };
}

export function readPackObject(p: Fields): PackObject {
  const sha256 = p.string('sha256', (s) => PACK_SHA256.test(s));
  return p.raw('copy') === undefined ? { sha256 } : { sha256, copy: p.string('copy', (s) => PACK_COPY.test(s)) };
}
