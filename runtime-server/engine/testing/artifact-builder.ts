// Builds `.tar.zst` artifacts in tests, including malformed ones no well-behaved `tar` would write
// (traversal, links, devices, bad checksums).
import { zstdCompressSync } from 'node:zlib';

export interface TarEntrySpec {
  /** Written as is: no normalisation, so `../x` and `/etc/x` can be tested. */
  name: string;
  content?: string | Uint8Array;
  /** ustar type flag: `0` file (default), `5` directory, `2` symlink, `1` hard link, `3` device, … */
  type?: string;
  linkname?: string;
  /** Write the name in a pax extended header (as `tar --format=posix` does for long names). */
  pax?: boolean;
  /** More records for the entry's pax extended header (`mtime`, `GNU.sparse.size`, …). */
  paxRecords?: Record<string, string>;
  /** The entry's pax extended header as these bytes, well formed or not (wins over `pax` and `paxRecords`). */
  paxRaw?: Uint8Array;
}

const BLOCK = 512;
const encoder = new TextEncoder();

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

function header(name: string, size: number, type: string, linkname = ''): Uint8Array {
  const block = new Uint8Array(BLOCK);
  const put = (text: string, at: number, width: number) => block.set(encoder.encode(text).subarray(0, width), at);
  put(name, 0, 100);
  put(octal(0o644, 8), 100, 8);
  put(octal(0, 8), 108, 8);
  put(octal(0, 8), 116, 8);
  put(octal(size, 12), 124, 12);
  put(octal(0, 12), 136, 12);
  put('        ', 148, 8);
  put(type, 156, 1);
  put(linkname, 157, 100);
  put('ustar\0', 257, 6);
  put('00', 263, 2);
  let sum = 0;
  for (const b of block) sum += b;
  put(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8);
  return block;
}

function padded(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(Math.ceil(data.length / BLOCK) * BLOCK);
  out.set(data);
  return out;
}

/** A pax record: its length in bytes (UTF-8), the length's own digits included, then ` key=value\n`. */
function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  const bytes = Buffer.byteLength(body);
  let length = bytes + 1;
  while (`${length}`.length + bytes !== length) length += 1;
  return `${length}${body}`;
}

/** An uncompressed tar stream of `entries`, with the two-block end marker. */
export function tarOf(entries: TarEntrySpec[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const entry of entries) {
    const data = typeof entry.content === 'string' ? encoder.encode(entry.content) : (entry.content ?? new Uint8Array());
    const records = Object.entries({ ...(entry.pax ? { path: entry.name } : {}), ...entry.paxRecords }).map(([key, value]) => paxRecord(key, value));
    const pax = entry.paxRaw ?? (records.length > 0 ? encoder.encode(records.join('')) : undefined);
    if (pax) parts.push(header('PaxHeaders/x', pax.length, 'x'), padded(pax));
    parts.push(header(entry.pax ? 'placeholder' : entry.name, data.length, entry.type ?? '0', entry.linkname), padded(data));
  }
  parts.push(new Uint8Array(BLOCK * 2));
  return Buffer.concat(parts);
}

/** `tarOf(entries)`, zstd-compressed. */
export function artifactOf(entries: TarEntrySpec[]): Uint8Array {
  return zstdCompressSync(tarOf(entries));
}

/** An artifact from a map of path → content (regular files only). */
export function artifactFromFiles(files: Record<string, string | Uint8Array>): Uint8Array {
  return artifactOf(Object.entries(files).map(([name, content]) => ({ name, content })));
}
