// A small, strict reader for the tar archives inside build artifacts: POSIX ustar, pax extended headers
// (what `tar --format=posix` and bsdtar write for long names) and GNU long names (GNU tar's default
// format). Only regular files and directories are accepted: links, devices and FIFOs are refused, as are
// absolute paths, `..` segments and names that differ only by a leading `./`. Anything it does not
// understand is an error, never skipped, so what is validated is exactly what gets served.

const BLOCK = 512;
const decoder = new TextDecoder('utf-8', { fatal: true });

/** A regular file of the archive, its path normalised (no leading `./`, `/`-separated). */
export interface TarFile {
  readonly path: string;
  readonly content: Uint8Array;
}

export interface TarLimits {
  /** Most entries (files and directories) accepted. */
  readonly maxEntries: number;
  /** Longest path accepted, in bytes. */
  readonly maxPathBytes: number;
}

/** The archive is not a tar stream this reader accepts; `message` says why, naming the entry. */
export class TarFormatError extends Error {
  override readonly name = 'TarFormatError';
}

/** Parses `archive` into its regular files. Directories are checked and dropped. */
export function readTar(archive: Uint8Array, limits: TarLimits): TarFile[] {
  const files: TarFile[] = [];
  const seen = new Set<string>();
  let offset = 0;
  let entries = 0;
  let longName: string | undefined;
  let pax: Record<string, string> = {};
  for (;;) {
    if (offset + BLOCK > archive.length) {
      if (offset === archive.length && entries > 0) return checkNesting(files); // no end marker: tolerated after entries
      throw new TarFormatError(offset === 0 ? 'not a tar archive: it is empty' : 'truncated tar archive');
    }
    const header = archive.subarray(offset, offset + BLOCK);
    if (header.every((b) => b === 0)) {
      if (entries === 0) throw new TarFormatError('the tar archive has no entries');
      return checkNesting(files);
    }
    checkHeader(header, offset);
    const type = String.fromCharCode(header[156] ?? 0);
    const meta = type === 'x' || type === 'g' || type === 'L';
    const size = !meta && pax.size !== undefined ? parseDecimal(pax.size, 'pax size') : parseOctal(header.subarray(124, 136), 'size');
    const dataStart = offset + BLOCK;
    const dataEnd = dataStart + size;
    if (dataEnd > archive.length) throw new TarFormatError(`truncated tar archive: an entry claims ${size} bytes past the end`);
    const data = archive.subarray(dataStart, dataEnd);
    offset = dataStart + Math.ceil(size / BLOCK) * BLOCK;

    if (type === 'x') {
      pax = { ...pax, ...parsePax(data) };
      continue;
    }
    if (type === 'g') continue; // global pax header: only metadata we do not use (mtime, uname, …)
    if (type === 'L') {
      longName = text(trimNul(data), 'GNU long name');
      continue;
    }
    const rawName = pax.path ?? longName ?? headerName(header);
    pax = {};
    longName = undefined;
    entries += 1;
    if (entries > limits.maxEntries) throw new TarFormatError(`the archive has more than ${limits.maxEntries} entries`);
    const path = normalizePath(rawName, limits.maxPathBytes);
    if (type === '5') {
      if (size !== 0) throw new TarFormatError(`directory ${JSON.stringify(rawName)} has content`);
      continue;
    }
    if (type !== '0' && type !== '\0') throw new TarFormatError(`${JSON.stringify(rawName)} is ${describeType(type)}; only regular files and directories are allowed`);
    if (path.endsWith('/')) throw new TarFormatError(`file ${JSON.stringify(rawName)} has a directory name`);
    if (seen.has(path)) throw new TarFormatError(`${JSON.stringify(path)} appears twice in the archive`);
    seen.add(path);
    files.push({ path, content: data });
  }
}

/** A file cannot also be a directory of another file (`a` and `a/b`): it could not be unpacked. */
function checkNesting(files: TarFile[]): TarFile[] {
  const paths = new Set(files.map((f) => f.path));
  for (const { path } of files) {
    for (let at = path.indexOf('/'); at !== -1; at = path.indexOf('/', at + 1)) {
      if (paths.has(path.slice(0, at))) throw new TarFormatError(`${JSON.stringify(path.slice(0, at))} is both a file and a directory`);
    }
  }
  return files;
}

function checkHeader(header: Uint8Array, offset: number): void {
  const magic = String.fromCharCode(...header.subarray(257, 262));
  if (magic !== 'ustar') throw new TarFormatError(offset === 0 ? 'not a tar archive (no ustar header)' : 'corrupt tar archive: bad header magic');
  const expected = parseOctal(header.subarray(148, 156), 'checksum');
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : (header[i] ?? 0);
  if (sum !== expected) throw new TarFormatError('corrupt tar archive: header checksum mismatch');
}

function headerName(header: Uint8Array): string {
  const name = text(trimNul(header.subarray(0, 100)), 'entry name');
  const prefix = text(trimNul(header.subarray(345, 500)), 'entry name prefix');
  return prefix ? `${prefix}/${name}` : name;
}

/** Numeric header fields: NUL/space-terminated octal. GNU base-256 (only needed past 8 GiB) is refused. */
function parseOctal(field: Uint8Array, what: string): number {
  if (((field[0] ?? 0) & 0x80) !== 0) throw new TarFormatError(`unsupported tar ${what} encoding (base-256)`);
  const digits = String.fromCharCode(...field)
    .replace(/[\0 ]+$/, '')
    .replace(/^ +/, '');
  if (!/^[0-7]*$/.test(digits)) throw new TarFormatError(`corrupt tar archive: bad ${what} field`);
  return digits === '' ? 0 : parseInt(digits, 8);
}

function parseDecimal(value: string, what: string): number {
  if (!/^[0-9]{1,15}$/.test(value)) throw new TarFormatError(`corrupt tar archive: bad ${what}`);
  return Number(value);
}

/** pax records: `<length> <key>=<value>\n`, the length counting the whole record. */
function parsePax(data: Uint8Array): Record<string, string> {
  const records: Record<string, string> = {};
  let at = 0;
  while (at < data.length) {
    let space = at;
    while (space < data.length && data[space] !== 0x20) space++;
    const length = parseDecimal(String.fromCharCode(...data.subarray(at, space)), 'pax record length');
    if (length <= space - at || at + length > data.length || data[at + length - 1] !== 0x0a) {
      throw new TarFormatError('corrupt tar archive: bad pax record');
    }
    const record = text(data.subarray(space + 1, at + length - 1), 'pax record');
    const eq = record.indexOf('=');
    if (eq <= 0) throw new TarFormatError('corrupt tar archive: bad pax record');
    const key = record.slice(0, eq);
    if (key === 'path' || key === 'size' || key === 'linkpath') records[key] = record.slice(eq + 1);
    at += length;
  }
  return records;
}

/** Strips `./`, refuses absolute paths, `..`, empty segments, backslashes and control characters. */
function normalizePath(raw: string, maxBytes: number): string {
  const shown = JSON.stringify(raw);
  if (Buffer.byteLength(raw) > maxBytes) throw new TarFormatError(`path ${shown.slice(0, 80)}… is longer than ${maxBytes} bytes`);
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f\\]/.test(raw)) throw new TarFormatError(`path ${shown} contains a control character or a backslash`);
  if (raw.startsWith('/')) throw new TarFormatError(`path ${shown} is absolute`);
  let path = raw;
  while (path.startsWith('./')) path = path.slice(2);
  if (path === '' || path === '.') return './'; // the archive's root directory, as `tar -cf - .` writes it
  const isDir = path.endsWith('/');
  if (isDir) path = path.slice(0, -1);
  const segments = path.split('/');
  if (segments.includes('..')) throw new TarFormatError(`path ${shown} leaves the archive ("..")`);
  if (segments.some((s) => s === '' || s === '.')) throw new TarFormatError(`path ${shown} has an empty or "." segment`);
  return isDir ? `${path}/` : path;
}

function describeType(type: string): string {
  switch (type) {
    case '1':
      return 'a hard link';
    case '2':
      return 'a symbolic link';
    case '3':
    case '4':
      return 'a device';
    case '6':
      return 'a FIFO';
    default:
      return `an entry of unsupported type ${JSON.stringify(type)}`;
  }
}

function trimNul(bytes: Uint8Array): Uint8Array {
  const end = bytes.indexOf(0);
  return end === -1 ? bytes : bytes.subarray(0, end);
}

function text(bytes: Uint8Array, what: string): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw new TarFormatError(`the ${what} is not valid UTF-8`);
  }
}
