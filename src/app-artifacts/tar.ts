// A small, strict, streaming reader for the tar archives inside build artifacts: POSIX ustar, pax extended
// headers (what `tar --format=posix` and bsdtar write for long names) and GNU long names (GNU tar's default
// format). Only regular files and directories are accepted: links, devices and FIFOs are refused, as are
// absolute paths, `..` segments and names that differ only by a leading `./`. Anything it does not
// understand is an error, never skipped, so what is validated is exactly what gets served.
//
// It reads the archive as it arrives (a decompressor's output) and hands each file's content on as a stream:
// it holds a header, a pax record or a long name at a time, never a file. Why not `tar-stream`: it decodes
// names lossily (invalid UTF-8 becomes U+FFFD), ignores malformed pax records instead of refusing them, and
// accepts pre-POSIX headers and base-256 sizes; each is a way for two readers to see two different archives.

const BLOCK = 512;
/** pax headers and GNU long names are held whole: a path is at most `maxPathBytes`, so these stay small. */
const MAX_META_BYTES = 64 * 1024;
const decoder = new TextDecoder('utf-8', { fatal: true });

/** A regular file of the archive, its path normalised (no leading `./`, `/`-separated). */
export interface TarFile {
  readonly path: string;
  readonly content: Uint8Array;
}

/**
 * A regular file as the archive streams it. `content` must be read to its end (or abandoned by throwing)
 * before the next entry is asked for; what is not read is skipped.
 */
export interface TarEntry {
  readonly path: string;
  readonly size: number;
  readonly content: AsyncIterable<Uint8Array>;
}

/** Bytes as they arrive: a stream, or chunks already in memory. */
export type ByteSource = AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

export interface TarLimits {
  /**
   * Most entries accepted: the headers read, and the files with every directory they are in, those the archive
   * names and those its paths only imply (`a/b/c.js` implies `a` and `a/b`).
   */
  readonly maxEntries: number;
  /** Longest path accepted, in bytes. */
  readonly maxPathBytes: number;
}

/** The archive is not a tar stream this reader accepts; `message` says why, naming the entry. */
export class TarFormatError extends Error {
  override readonly name = 'TarFormatError';
}

/** Parses a whole `archive` held in memory into its regular files (tests and small archives). */
export async function readTar(archive: Uint8Array, limits: TarLimits): Promise<TarFile[]> {
  const files: TarFile[] = [];
  for await (const entry of readTarStream([archive], limits)) {
    const chunks: Uint8Array[] = [];
    for await (const chunk of entry.content) chunks.push(chunk);
    files.push({ path: entry.path, content: Buffer.concat(chunks) });
  }
  return files;
}

/**
 * Reads the tar stream `source`, yielding its regular files in archive order (directories are checked and
 * dropped). Throws `TarFormatError` as soon as something is wrong, before the offending file's content is
 * handed on: a file that is also a directory of another one is found as the second of them arrives. What
 * follows the end-of-archive marker is read and discarded, so the whole of `source` is consumed; one left part way
 * (an error, or a caller that stops) has its `source` ended (`return`), so a stream from a server is closed.
 */
export async function* readTarStream(source: ByteSource, limits: TarLimits): AsyncGenerator<TarEntry> {
  const input = new ByteReader(source);
  try {
    yield* entriesOf(input, limits);
  } finally {
    // Refused part way, or left by the caller: the rest of `source` is let go, not left unread. Unread, a response
    // from the bucket held its connection for good: fifty refused preparations took every connection of cw-runtime's
    // pool, and no other tenant's build could be fetched (review-165 F10).
    input.close();
  }
}

async function* entriesOf(input: ByteReader, limits: TarLimits): AsyncGenerator<TarEntry> {
  const files = new Set<string>();
  const dirs = new Set<string>();
  let entries = 0;
  let longName: string | undefined;
  let pax: Record<string, string> = {};
  for (;;) {
    const at = input.position;
    const header = await input.exact(BLOCK);
    if (!header) {
      if (input.position === at && entries > 0) return; // no end marker: tolerated after entries
      throw new TarFormatError(input.position === 0 ? 'not a tar archive: it is empty' : 'truncated tar archive');
    }
    if (header.every((b) => b === 0)) {
      if (entries === 0) throw new TarFormatError('the tar archive has no entries');
      await input.drain();
      return;
    }
    checkHeader(header, input.position === BLOCK);
    const type = String.fromCharCode(header[156] ?? 0);
    const meta = type === 'x' || type === 'g' || type === 'L';
    const size = !meta && pax.size !== undefined ? parseDecimal(pax.size, 'pax size') : parseOctal(header.subarray(124, 136), 'size');
    const padding = Math.ceil(size / BLOCK) * BLOCK - size;

    if (meta) {
      if (size > MAX_META_BYTES) throw new TarFormatError(`a ${type === 'L' ? 'GNU long name' : 'pax header'} of ${size} bytes is larger than ${MAX_META_BYTES}`);
      const data = await input.exact(size);
      if (!data) throw new TarFormatError(`truncated tar archive: an entry claims ${size} bytes past the end`);
      await input.skip(padding);
      if (type === 'x') pax = { ...pax, ...parsePax(data) };
      else if (type === 'L') longName = text(trimNul(data), 'GNU long name');
      // 'g', a global pax header: only metadata we do not use (mtime, uname, …)
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
      // The type flag makes it a directory: a pax `path` or some tools name one without the trailing slash.
      if (path !== './') addDirectory(path.endsWith('/') ? path.slice(0, -1) : path, files, dirs, limits.maxEntries);
      continue;
    }
    if (type !== '0' && type !== '\0') throw new TarFormatError(`${JSON.stringify(rawName)} is ${describeType(type)}; only regular files and directories are allowed`);
    if (path.endsWith('/')) throw new TarFormatError(`file ${JSON.stringify(rawName)} has a directory name`);
    if (files.has(path)) throw new TarFormatError(`${JSON.stringify(path)} appears twice in the archive`);
    if (dirs.has(path)) throw new TarFormatError(`${JSON.stringify(path)} is both a file and a directory`);
    addDirectory(parentOf(path), files, dirs, limits.maxEntries);
    if (files.size + dirs.size >= limits.maxEntries) throw tooManyEntries(limits.maxEntries);
    files.add(path);
    const end = input.position + size;
    let current = true;
    const content = input.take(
      size,
      () => new TarFormatError(`truncated tar archive: ${JSON.stringify(path)} claims ${size} bytes past the end`),
      () => current,
    );
    yield { path, size, content };
    current = false;
    await input.skip(end - input.position + padding); // whatever the consumer left unread
  }
}

/**
 * Records `dir` and its ancestors as directories; one that is already a file is an error, as is a directory past
 * `max` files and directories. Implied directories count: a path may be 1,024 bytes, so each file of
 * `0001/a/a/…/x` implies ~500 new ones, and 20,000 such files made 10 million (1.2 GB and 30 s in the reader; as
 * many `mkdir`s on a runtime's disk, counted as no bytes; found in review-165).
 */
function addDirectory(dir: string, files: ReadonlySet<string>, dirs: Set<string>, max: number): void {
  for (let path = dir; path !== '' && !dirs.has(path); path = parentOf(path)) {
    if (files.has(path)) throw new TarFormatError(`${JSON.stringify(path)} is both a file and a directory`);
    if (files.size + dirs.size >= max) throw tooManyEntries(max);
    dirs.add(path);
  }
}

function tooManyEntries(max: number): TarFormatError {
  return new TarFormatError(`the archive has more than ${max} files and directories (counting those its paths imply)`);
}

function parentOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? '' : path.slice(0, slash);
}

/**
 * Reads exact byte counts from an async stream of chunks. `position` counts the bytes handed out or skipped.
 * A chunk is sliced, never copied, except to gather a header that spans two chunks.
 */
class ByteReader {
  readonly #source: AsyncIterator<Uint8Array>;
  #pending: Uint8Array = new Uint8Array(0);
  #done = false;
  position = 0;

  constructor(source: ByteSource) {
    this.#source = (async function* () {
      yield* source;
    })();
  }

  /** The next bytes of the stream, at most `max` of them; `undefined` at its end. */
  async #next(max: number): Promise<Uint8Array | undefined> {
    while (this.#pending.length === 0) {
      if (this.#done) return undefined;
      const { value, done } = await this.#source.next();
      if (done) this.#done = true;
      else this.#pending = value;
    }
    const chunk = this.#pending.subarray(0, max);
    this.#pending = this.#pending.subarray(chunk.length);
    this.position += chunk.length;
    return chunk;
  }

  /** Exactly `n` bytes, or `undefined` when the stream ends first (a truncated archive, or its end). */
  async exact(n: number): Promise<Uint8Array | undefined> {
    const first = await this.#next(n);
    if (!first || first.length === n) return first;
    const parts = [first];
    let got = first.length;
    while (got < n) {
      const chunk = await this.#next(n - got);
      if (!chunk) return undefined;
      parts.push(chunk);
      got += chunk.length;
    }
    return Buffer.concat(parts, n);
  }

  /**
   * The next `n` bytes as they arrive; `truncated()` is thrown if the stream ends first. While `current()`
   * holds: once the reader has moved on, a late read would hand out another entry's bytes.
   */
  async *take(n: number, truncated: () => Error, current: () => boolean = () => true): AsyncGenerator<Uint8Array> {
    let left = n;
    while (left > 0) {
      if (!current()) throw new Error('a tar entry was read after the next one was asked for');
      const chunk = await this.#next(left);
      if (!chunk) throw truncated();
      left -= chunk.length;
      yield chunk;
    }
  }

  async skip(n: number): Promise<void> {
    let left = n;
    while (left > 0) {
      const chunk = await this.#next(left);
      if (!chunk) throw new TarFormatError('truncated tar archive');
      left -= chunk.length;
    }
  }

  /** Ends the source (its `return`: a stream is destroyed) unless it has ended; nothing is read after. Not awaited: a read in flight holds it back. */
  close(): void {
    if (this.#done) return;
    this.#done = true;
    this.#pending = new Uint8Array(0);
    this.#source.return?.(undefined).catch(() => {});
  }

  /** Reads the rest of the stream and discards it. */
  async drain(): Promise<void> {
    while (await this.#next(Number.MAX_SAFE_INTEGER));
  }
}

function checkHeader(header: Uint8Array, first: boolean): void {
  const magic = String.fromCharCode(...header.subarray(257, 262));
  if (magic !== 'ustar') throw new TarFormatError(first ? 'not a tar archive (no ustar header)' : 'corrupt tar archive: bad header magic');
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

/**
 * pax keys that only describe an entry (times, owners, extended attributes): read past. Any other key may change
 * what the entry holds (GNU's sparse files keep their map and data in the content, under another name), so it is
 * refused rather than served as something else.
 */
const METADATA_PAX_KEYS = new Set(['atime', 'ctime', 'mtime', 'uid', 'gid', 'uname', 'gname', 'comment', 'charset', 'hdrcharset', 'dev', 'ino', 'nlink', 'mode']);
const METADATA_PAX_PREFIXES = ['RHT.security.', 'SCHILY.xattr.', 'SCHILY.acl.', 'SCHILY.fflags', 'SCHILY.dev', 'SCHILY.ino', 'SCHILY.nlink', 'LIBARCHIVE.'];
/** A pax record's length has at most 15 digits (`parseDecimal`): a longer field is refused before it is read. */
const MAX_LENGTH_DIGITS = 15;

/** pax records: `<length> <key>=<value>\n`, the length counting the whole record. */
function parsePax(data: Uint8Array): Record<string, string> {
  const records: Record<string, string> = {};
  let at = 0;
  while (at < data.length) {
    let space = at;
    while (space < data.length && space - at <= MAX_LENGTH_DIGITS && data[space] !== 0x20) space++;
    if (data[space] !== 0x20) throw new TarFormatError('corrupt tar archive: bad pax record length');
    const length = parseDecimal(Buffer.from(data.buffer, data.byteOffset + at, space - at).toString('latin1'), 'pax record length');
    if (length <= space - at || at + length > data.length || data[at + length - 1] !== 0x0a) {
      throw new TarFormatError('corrupt tar archive: bad pax record');
    }
    const record = text(data.subarray(space + 1, at + length - 1), 'pax record');
    const eq = record.indexOf('=');
    if (eq <= 0) throw new TarFormatError('corrupt tar archive: bad pax record');
    const key = record.slice(0, eq);
    if (key === 'path' || key === 'size' || key === 'linkpath') records[key] = record.slice(eq + 1);
    else if (!METADATA_PAX_KEYS.has(key) && !METADATA_PAX_PREFIXES.some((prefix) => key.startsWith(prefix))) {
      throw new TarFormatError(
        `the pax record ${JSON.stringify(key.slice(0, 64))} is not supported${key.startsWith('GNU.sparse.') ? ' (a sparse file: archive it whole, as cw deploy does, not as GNU tar --sparse or bsdtar write one with holes)' : ''}`,
      );
    }
    at += length;
  }
  return records;
}

/**
 * The longest name of one file or directory (NAME_MAX): what every file system the runtime unpacks to allows. A
 * longer one passed the upload and failed each unpack, which took it for a passing error and tried again at the
 * next request, 240 MB written each time (found in review).
 */
const MAX_NAME_BYTES = 255;

/** Strips `./`, refuses absolute paths, `..`, empty segments, names over 255 bytes, backslashes and control characters. */
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
  if (segments.some((s) => Buffer.byteLength(s) > MAX_NAME_BYTES)) throw new TarFormatError(`path ${shown.slice(0, 80)}… has a name longer than ${MAX_NAME_BYTES} bytes`);
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
