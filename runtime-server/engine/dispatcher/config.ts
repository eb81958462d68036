import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIPv4 } from 'node:net';
import type { AssetServiceConfig } from '../../../src/app-artifacts/build-config.ts';
import { capnpString, capnpStringList } from '../capnp-text.ts';
import type { RoutingTable } from './routing-table.ts';
import { BUILDS_KEPT } from '../request-stats.ts';

/** An app's static assets in a generation: workerd's assets service reads the directory; its config is fixed at start. */
export interface GenerationAssets {
  /** Binding prefix in the dispatcher (`A0`, `A1`, …), named in the routing table. */
  readonly binding: string;
  /** The app's key; a rollout's new release has its own assets service, under `<key>#canary`. */
  readonly key: string;
  /** The assets of a rollout's new release: requests they do not answer go to its isolate. */
  readonly canary?: boolean;
  readonly directory: string;
  readonly config: AssetServiceConfig;
}

export interface DispatcherConfigInput {
  readonly assets: readonly GenerationAssets[];
  /** The routing table the dispatcher starts with (later ones are pushed over the control socket). */
  readonly table: RoutingTable;
  /** `unix:` address the entry point (`entry-proxy.ts`) sends requests to. */
  readonly entrySocket: string;
  /** `unix:` address of the control socket (entrypoint `Control`). */
  readonly controlSocket: string;
  /** `unix:` address of the runtime process's service (`node-service.ts`). */
  readonly runtimeService: string;
  /** The workerd's id, sent to the runtime's service with each request (`cw-generation`): whose thread loads the code it asks for. */
  readonly generation?: number;
  /** The key rollout affinity cookies are signed with, hex (the dispatcher's `AFFINITY_KEY`). */
  readonly affinityKey: string;
  /** V8 flags, for every isolate of the process (such as `--max-old-space-size`, the heap bound). */
  readonly v8Flags?: readonly string[];
  /**
   * Addresses apps' `fetch()` and `connect()` may reach besides public ones, as CIDRs (`10.96.4.7/32`): the
   * platform's SQL endpoint (`database-egress.ts`). Nothing else private is reachable.
   */
  readonly outboundAllow?: readonly string[];
  /**
   * Addresses apps may never reach, public ones included, as CIDRs, besides {@link TRANSLATED_PRIVATE_DENY}: a
   * cluster's network-specific NAT64 prefix (a global one of its own), whose addresses workerd counts public though
   * they reach private IPv4 hosts. Denied wins over allowed.
   */
  readonly outboundDeny?: readonly string[];
}

/** What a rollout's new release adds to its app's key as the key of its assets service. */
export const CANARY_SUFFIX = '#canary';

/** The socket the entry point forwards requests to, private to the runtime process. */
export const ENTRY_SOCKET = 'entry';
export const CONTROL_SOCKET = 'control';
/** The control socket's requests carry `cf` in this header, which marks them as control. */
export const CONTROL_CF_HEADER = 'x-cloudwright-cf';
/**
 * The entry socket's requests carry `cf` in this header, which the entry point always sets (to {@link ENTRY_CF}),
 * whatever the client sent: otherwise workerd fills `request.cf` with the Unix socket's peer, the runtime
 * process's pid and uid, which told every app which replica process it was on and when it restarted (found in
 * review).
 */
export const ENTRY_CF_HEADER = 'cw-entry-cf';
export const ENTRY_CF = '{}';
/**
 * What marks a control request, the process's own secret (the dispatcher's `CONTROL_TOKEN`): were the entry point
 * ever to pass a client's `cw-entry-cf` on, a client still could not pass for the runtime (defence in depth).
 */
const CONTROL_TOKEN = randomBytes(32).toString('hex');
export const CONTROL_CF = JSON.stringify({ cloudwrightControl: CONTROL_TOKEN });
/** Names the workerd a request to the runtime's service came from (`node-service.ts`). */
export const GENERATION_HEADER = 'cw-generation';

const DISPATCHER_SOURCE = readFileSync(new URL('./dispatcher.js', import.meta.url), 'utf8');
const KEY_HASH_SOURCE = readFileSync(new URL('./key-hash.js', import.meta.url), 'utf8');

/** The IPv4 ranges that are not public (the chart's `networkPolicy.runtime.privateRanges` has the same ones). */
const NON_PUBLIC_IPV4 = ['0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12', '192.0.0.0/24', '192.168.0.0/16', '198.18.0.0/15', '224.0.0.0/3'];

/**
 * An IPv4 range as the IPv6 range that embeds it in its last 32 bits after `prefix` (a /96: `64:ff9b::`), written
 * canonically (RFC 5952), as the chart's list has it.
 */
function embeddedIn(prefix: string, range: string): string {
  const [address = '', bits = '32'] = range.split('/');
  const [a = 0, b = 0, c = 0, d = 0] = address.split('.').map(Number);
  const [high, low] = [(a << 8) | b, (c << 8) | d];
  const groups = high === 0 && low === 0 ? '' : `${high.toString(16)}:${low.toString(16)}`;
  return `${prefix}${groups}/${96 + Number(bits)}`;
}

/**
 * What every `internet` service denies, whatever it is told: the IPv6 forms of a private IPv4 address, which
 * workerd's `public` filter counts public (it knows only the IPv4-mapped form, `::ffff:a.b.c.d`) though they reach
 * the private address wherever a gateway or route translates them (found in review: with those addresses routed to a
 * private listener, an app reached it at `[64:ff9b::7f00:1]` and `[2002:7f00:1::1]`). The well-known NAT64 prefix (`64:ff9b::/96`, RFC 6052) only
 * where it embeds a non-public IPv4 address, which RFC 6052 forbids it to stand for anyway: with DNS64 in an
 * IPv6-only cluster, the rest of it is how apps reach public IPv4-only hosts. The local-use NAT64 prefix
 * (`64:ff9b:1::/48`, RFC 8215, which a network may cut at any length, so no one place holds the IPv4 address),
 * 6to4 (`2002::/16`, deprecated by RFC 7526), IPv4-compatible (`::/96`, deprecated by RFC 4291) and
 * IPv4-translated (`::ffff:0:0:0/96`, RFC 2765) addresses wholly.
 */
export const TRANSLATED_PRIVATE_DENY: readonly string[] = [...NON_PUBLIC_IPV4.map((range) => embeddedIn('64:ff9b::', range)), '64:ff9b:1::/48', '2002::/16', '::/96', '::ffff:0:0:0/96'];

/**
 * The `internet` service, which backs every worker's global `fetch()` and `connect()` (none sets another
 * `globalOutbound`): workerd's default (`public` addresses only, browsers' CAs trusted) plus `allow`, less
 * {@link TRANSLATED_PRIVATE_DENY} and `deny`. An address counts when it matches an allow entry and no deny entry,
 * after name resolution.
 */
export function internetService(allow: readonly string[] = [], deny: readonly string[] = []): string {
  const denied = `, deny = ${capnpStringList([...TRANSLATED_PRIVATE_DENY, ...deny.map(asCidr)])}`;
  return `    (name = "internet", network = (allow = ${capnpStringList(['public', ...allow.map(asCidr)])}${denied}, tlsOptions = (trustBrowserCas = true)))`;
}

/** An address as the one-address CIDR workerd's network filter takes (it refuses a bare address: "invalid CIDR"). */
function asCidr(entry: string): string {
  if (entry.includes('/')) return entry;
  return isIPv4(entry) ? `${entry}/32` : `${entry}/128`;
}

/**
 * The workerd config of one generation: the dispatcher (the entry socket's service, with the Worker Loader),
 * the runtime process as an external service, and one assets service per app with static assets (workerd
 * fixes those at start, so a change of an app's assets is a new generation; code and environment are not).
 * Pure apart from reading the dispatcher's source once.
 */
/** workerd names itself on every request to the runtime's service (a header it adds, not the dispatcher's code). */
function runtimeHeaders(generation: number | undefined): string {
  return generation === undefined ? '' : `injectRequestHeaders = [(name = "${GENERATION_HEADER}", value = "${generation}")]`;
}

export function renderDispatcherConfig(input: DispatcherConfigInput): { text: string; experimental: boolean } {
  const bindings = [
    '(name = "LOADER", workerLoader = ())',
    '(name = "RUNTIME", service = "cw-runtime")',
    `(name = "ROUTES", json = ${capnpString(JSON.stringify(input.table))})`,
    `(name = "AFFINITY_KEY", text = ${capnpString(input.affinityKey)})`,
    `(name = "CONTROL_TOKEN", text = ${capnpString(CONTROL_TOKEN)})`,
    `(name = "BUILDS_KEPT", json = "${BUILDS_KEPT}")`,
  ];
  const services: string[] = [];
  for (const a of input.assets) {
    const name = `assets:${a.key}`;
    bindings.push(`(name = "${a.binding}_ROUTER", service = ${capnpString(name)})`, `(name = "${a.binding}_ASSETS", service = (name = ${capnpString(name)}, entrypoint = "AssetWorker"))`);
    const userWorker = `(name = "cw-dispatch", entrypoint = "AppWorker", props = (json = ${capnpString(JSON.stringify(a.canary ? { app: a.key.slice(0, -CANARY_SUFFIX.length), canary: true } : { app: a.key }))}))`;
    services.push(`    (name = ${capnpString(name)}, assets = (path = ${capnpString(a.directory)}, config = ${capnpString(JSON.stringify(a.config))}, userWorker = ${userWorker}))`);
  }
  const dispatcher = [
    '    (name = "cw-dispatch", worker = (',
    `      modules = [(name = "dispatcher.js", esModule = ${capnpString(DISPATCHER_SOURCE)}), (name = "key-hash.js", esModule = ${capnpString(KEY_HASH_SOURCE)})],`,
    '      compatibilityDate = "2025-09-01",',
    // request.signal tells the dispatcher of a client gone away (it frees that request's slot).
    '      compatibilityFlags = ["enable_ctx_exports", "enable_request_signal"],',
    `      bindings = [\n        ${bindings.join(',\n        ')}\n      ],`,
    '    ))',
  ].join('\n');
  const text = [
    '# Generated by Cloudwright (runtime-server/engine/dispatcher/config.ts). Do not edit.',
    'using Workerd = import "/workerd/workerd.capnp";',
    '',
    'const config :Workerd.Config = (',
    '  services = [',
    [
      dispatcher,
      `    (name = "cw-runtime", external = (address = ${capnpString(input.runtimeService)}, http = (${runtimeHeaders(input.generation)})))`,
      internetService(input.outboundAllow, input.outboundDeny),
      ...services,
    ].join(',\n'),
    '  ],',
    '  sockets = [',
    // The entry point always sets X-Forwarded-Proto (from the client's connection, or a trusted ingress).
    `    (name = "${ENTRY_SOCKET}", address = ${capnpString(input.entrySocket)}, http = (forwardedProtoHeader = "x-forwarded-proto", cfBlobHeader = "${ENTRY_CF_HEADER}"), service = "cw-dispatch"),`,
    `    (name = "${CONTROL_SOCKET}", address = ${capnpString(input.controlSocket)}, http = (cfBlobHeader = "${CONTROL_CF_HEADER}"), service = "cw-dispatch"),`,
    '  ],',
    ...(input.v8Flags?.length ? [`  v8Flags = ${capnpStringList(input.v8Flags)},`] : []),
    ');',
    '',
  ].join('\n');
  // The Worker Loader (and the assets service) are experimental in workerd.
  return { text, experimental: true };
}
