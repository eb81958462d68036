// Fetch and clone are git's own `upload-pack --stateless-rpc` over the cached copy: protocol v0 and v2,
// ls-refs prefixes, filters, shallow and deepen, side-band-all come from git itself, exactly as stock
// clients expect them.
import type { Readable, Writable } from 'node:stream';
import { FLUSH, pktLine } from './pkt-line.ts';
import { runGit } from '../../src/git/run-git.ts';

/**
 * What our upload-pack allows beyond git's defaults: partial clone, fetch by oid (lazy blob fetches),
 * sideband-all. Not `allowRefInWant`: git 2.39 clients then fail shallow clones ("expected 'packfile',
 * received 'shallow-info'"), as they do against git http-backend with it.
 */
const UPLOAD_PACK_CONFIG = [
  '-c',
  'uploadpack.allowFilter=true',
  // Not `sparse:oid`: git would match every path of the fetch against patterns read from a blob the tenant pushed (up
  // to the pack bound), as most hosts refuse it (review-177 L2); `blob:none`, `blob:limit` and `tree:` stay.
  '-c',
  'uploadpackfilter.sparse:oid.allow=false',
  '-c',
  'uploadpack.allowAnySHA1InWant=true',
  '-c',
  'uploadpack.allowSidebandAll=true',
];

/**
 * The `GIT_PROTOCOL` for git from the client's `Git-Protocol` header (how a client asks for v2), or
 * undefined. Only git's own `key=value:key=value` shape passes, so a header cannot smuggle anything else.
 */
export function gitProtocol(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value || value.length > 256 || !/^[A-Za-z0-9._=-]+(:[A-Za-z0-9._=-]+)*$/.test(value)) return undefined;
  return value;
}

function env(dir: string, protocol: string | undefined): Record<string, string> {
  return protocol ? { GIT_DIR: dir, GIT_PROTOCOL: protocol } : { GIT_DIR: dir };
}

/** The `GET /info/refs?service=git-upload-pack` body: v0 gets the `# service=` header, v2 its capabilities. */
export async function uploadPackAdvertisement(dir: string, protocol: string | undefined): Promise<Buffer> {
  const { stdout } = await runGit([...UPLOAD_PACK_CONFIG, 'upload-pack', '--stateless-rpc', '--advertise-refs', dir], {
    env: env(dir, protocol),
  });
  if (protocol?.split(':').includes('version=2')) return stdout;
  return Buffer.concat([pktLine('# service=git-upload-pack\n'), FLUSH, stdout]);
}

/** Runs one upload-pack exchange: the request from `body`, the answer streamed to `out` (not ended). */
export async function uploadPack(dir: string, protocol: string | undefined, body: Readable, out: Writable, signal?: AbortSignal): Promise<void> {
  await runGit([...UPLOAD_PACK_CONFIG, 'upload-pack', '--stateless-rpc', dir], { env: env(dir, protocol), stdin: body, stdout: out, signal });
}
