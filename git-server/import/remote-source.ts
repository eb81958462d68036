// Reading an import source over https with the stock git client, bounded: every connection goes through an egress
// proxy (egress-proxy.ts: checked and pinned addresses, the source's host only, a byte budget), the whole command
// is killed past the time bound, and git sees no configuration but ours (no system or user config, no proxy from
// the environment, no prompts, https only). Credentials travel as an `http.extraHeader` in git's environment,
// never in its arguments, the URL, a file or a message; the proxy keeps them from any other host.
import { GitCommandError, runGit, stderrSummary } from '../../src/git/run-git.ts';
import { TargetPolicy, TargetRefusedError } from '../../src/target-policy.ts';
import type { SpoolMeter } from '../plumbing/spool-budget.ts';
import { EgressProxy } from './egress-proxy.ts';
import {
  SourceAuthError,
  SourceFailedError,
  SourceNotFoundError,
  SourceRefusedError,
  SourceTimeoutError,
  SourceTooLargeError,
  SourceTooManyRefsError,
  SourceUnreachableError,
} from './source-errors.ts';

/** Credentials for the source, from the request: sent to the source's host only, kept nowhere. */
export type SourceCredentials = { readonly token: string } | { readonly username?: string; readonly password: string };

export interface RemoteOptions {
  /** The whole command, from the first connection to git's exit (`api.import_timeout`). */
  readonly timeoutMs: number;
  /** Bytes the source may send (`api.import_max_size`). */
  readonly maxBytes: number;
  readonly policy: TargetPolicy;
  /** git's `http.sslCAInfo` (`api.import_ca_file`). */
  readonly caFile?: string;
  readonly credentials?: SourceCredentials;
  /** Counts what is fetched onto the disk against the owner's share of the spool (a push's, an LFS upload's). */
  readonly spool?: SpoolMeter;
}

/** The import-related configuration, as the target policy refusal names it. */
export const IMPORT_POLICY_SETTINGS = { allowHint: 'set api.import_allow_private_targets: true to import from internal addresses', denied: 'events.denied_target_ranges' };

export interface RemoteRefs {
  /** Branches and tags (full names) and their objects; peeled tag lines are left out. */
  readonly refs: Map<string, string>;
  /** The ref HEAD names, when the source says. */
  readonly head: string | undefined;
  readonly objectFormat: 'sha1' | 'sha256';
}

function authorization(credentials: SourceCredentials): string {
  if ('token' in credentials) return `Bearer ${credentials.token}`;
  return `Basic ${Buffer.from(`${credentials.username ?? 'git'}:${credentials.password}`).toString('base64')}`;
}

// Environment variables git (or curl) would act on that must not reach it: removed, not emptied, since git reads
// some as set whatever their value (GIT_SSL_NO_VERIFY). No proxy but ours and no exceptions to it, certificates
// verified, no prompts, and no traces of the exchange (they would hold the header).
const REMOVED_ENV =
  'http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy NO_PROXY no_proxy GIT_SSL_NO_VERIFY GIT_SSL_CERT GIT_SSL_KEY GIT_HTTP_PROXY_AUTHMETHOD GIT_ASKPASS SSH_ASKPASS GIT_TRACE GIT_TRACE_CURL GIT_TRACE_PACKET GIT_CURL_VERBOSE GIT_TRACE2 GIT_TRACE2_EVENT GIT_TRACE2_PERF GIT_CONFIG_PARAMETERS'.split(
    ' ',
  );

/** Runs `git args` (whose remote is `url`) through a proxy of its own, mapping every failure to a client error. */
async function runRemote(url: URL, args: (string | URL)[], options: RemoteOptions, cwd?: string, maxStdoutBytes = 64 << 20): Promise<string> {
  let proxy: EgressProxy;
  try {
    const spool = options.spool;
    proxy = await EgressProxy.start({
      host: url.hostname,
      port: Number(url.port || 443),
      policy: options.policy,
      maxBytes: options.maxBytes,
      ...(spool ? { onReceived: (bytes: number) => spool.reach(bytes) } : {}),
    });
  } catch (error) {
    if (error instanceof TargetRefusedError) throw new SourceRefusedError(url, error.message.replace('the webhook host', 'the source host'));
    throw new SourceUnreachableError(url, `cannot resolve ${url.hostname}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  const config: [string, string][] = [
    ['http.proxy', proxy.url],
    ['credential.helper', ''],
    ['protocol.allow', 'never'],
    ['protocol.https.allow', 'always'],
    ['fetch.fsckObjects', 'true'],
    ['transfer.fsckObjects', 'true'],
    ...(options.caFile ? ([['http.sslCAInfo', options.caFile]] as [string, string][]) : []),
    ...(options.credentials ? ([['http.extraHeader', `Authorization: ${authorization(options.credentials)}`]] as [string, string][]) : []),
  ];
  const env: Record<string, string | undefined> = {
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ALLOW_PROTOCOL: 'https',
    GIT_PROTOCOL_FROM_USER: '0',
    ...Object.fromEntries(REMOVED_ENV.map((name) => [name, undefined])),
    // The environment's CA bundle wins over http.sslCAInfo in git: the configured one must be set here too.
    ...(options.caFile ? { GIT_SSL_CAINFO: options.caFile } : {}),
    GIT_CONFIG_COUNT: String(config.length),
    ...Object.fromEntries(
      config.flatMap(([key, value], i) => [
        [`GIT_CONFIG_KEY_${i}`, key],
        [`GIT_CONFIG_VALUE_${i}`, value],
      ]),
    ),
  };
  const signal = AbortSignal.timeout(options.timeoutMs);
  // Killing git leaves its transport helper (git-remote-https) waiting on the source; cutting the connections
  // under it ends it too.
  const onTimeout = () => void proxy.close();
  signal.addEventListener('abort', onTimeout, { once: true });
  try {
    const { stdout } = await runGit(
      args.map((a) => (a instanceof URL ? a.href : a)),
      { env, signal, ...(cwd ? { cwd } : {}), maxStdoutBytes },
    );
    return stdout.toString('utf8');
  } catch (error) {
    const failure = proxy.failure;
    if (failure?.kind === 'too_large') throw new SourceTooLargeError(url, options.maxBytes);
    if (failure?.kind === 'refused') throw failure.error;
    if (signal.aborted) throw new SourceTimeoutError(url, options.timeoutMs);
    if (failure?.kind === 'other_host') throw new SourceRefusedError(url, `it sent git to another host (${failure.target}); only ${url.host} is fetched from`);
    if (failure?.kind === 'unreachable') throw new SourceUnreachableError(url, failure.reason);
    throw fromGitError(url, error, options.credentials !== undefined);
  } finally {
    signal.removeEventListener('abort', onTimeout);
    await proxy.close();
  }
}

/** What git's complaint means for the client. */
function fromGitError(url: URL, error: unknown, withCredentials: boolean): Error {
  if (!(error instanceof GitCommandError)) return error instanceof Error ? error : new Error(String(error));
  const stderr = error.stderr;
  if (/Authentication failed|could not read Username|could not read Password|terminal prompts disabled|The requested URL returned error: 40[13]/i.test(stderr))
    return new SourceAuthError(url, withCredentials);
  if (/repository '[^'\n]*' not found|The requested URL returned error: 404/i.test(stderr)) return new SourceNotFoundError(url);
  if (/SSL certificate problem|server certificate verification failed|SSL: |certificate/i.test(stderr))
    return new SourceUnreachableError(url, `its TLS certificate could not be verified (${stderrSummary(stderr)})`);
  return new SourceFailedError(url, stderrSummary(stderr) || error.message);
}

/** The most branches and tags an import takes (a snapshot of them is about 1 MiB of JSON, `import-write.ts`). */
export const MAX_SOURCE_REFS = 10_000;
/** What `ls-remote` of that many refs writes, with room: more is refused as it arrives, not listed and refused after. */
const MAX_LISTING_BYTES = 4 << 20;

/** The source's branches, tags and HEAD (`git ls-remote --symref`); 422 past {@link MAX_SOURCE_REFS}. */
export async function listRemote(url: URL, options: RemoteOptions): Promise<RemoteRefs> {
  const out = await runRemote(url, ['ls-remote', '--symref', url, 'HEAD', 'refs/heads/*', 'refs/tags/*'], options, undefined, MAX_LISTING_BYTES).catch((error: unknown) => {
    throw error instanceof SourceFailedError && /wrote more than/.test(error.message) ? new SourceTooManyRefsError(url, MAX_SOURCE_REFS) : error;
  });
  const refs = new Map<string, string>();
  let head: string | undefined;
  let objectFormat: RemoteRefs['objectFormat'] = 'sha1';
  for (const line of out.split('\n')) {
    const symref = /^ref: (refs\/heads\/\S+)\tHEAD$/.exec(line);
    if (symref) {
      head = symref[1];
      continue;
    }
    const match = /^([0-9a-f]{40}|[0-9a-f]{64})\t(refs\/(?:heads|tags)\/\S+)$/.exec(line);
    if (!match || match[2]!.endsWith('^{}')) continue;
    if (match[1]!.length === 64) objectFormat = 'sha256';
    refs.set(match[2]!, match[1]!);
    if (refs.size > MAX_SOURCE_REFS) throw new SourceTooManyRefsError(url, MAX_SOURCE_REFS);
  }
  return { refs, head, objectFormat };
}

/**
 * Fetches every branch and tag of the source into the bare repository `dir` (created here, empty, with the
 * object format given), and answers the refs it now has.
 */
export async function fetchRemote(url: URL, dir: string, objectFormat: 'sha1' | 'sha256', options: RemoteOptions): Promise<Map<string, string>> {
  await runGit(['init', '-q', '--bare', `--object-format=${objectFormat}`, dir]);
  await runRemote(url, ['-C', dir, 'fetch', '-q', '--no-tags', '--no-write-fetch-head', url, '+refs/heads/*:refs/heads/*', '+refs/tags/*:refs/tags/*'], options);
  const { stdout } = await runGit(['-C', dir, 'for-each-ref', '--format=%(objectname) %(refname)', 'refs/heads', 'refs/tags']);
  const refs = new Map<string, string>();
  for (const line of stdout.toString('utf8').split('\n')) {
    const [oid, name] = line.split(' ');
    if (oid && name) refs.set(name, oid);
  }
  return refs;
}
