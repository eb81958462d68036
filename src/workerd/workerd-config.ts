import type { AssetServiceConfig } from './build-config.ts';
import type { ModuleType } from './artifact.ts';
import { capnpString, capnpStringList } from './capnp-text.ts';
import { TAIL_WORKER_SOURCE } from './tail-worker.ts';

/** A module of a deployment, read by workerd from disk (`embed`), so the config stays small and nothing large is escaped. */
export interface WorkerdModule {
  /** The module's name: its path in the artifact, which relative imports resolve against. */
  readonly name: string;
  readonly type: ModuleType;
  /** Where the file is, relative to the config file's directory. */
  readonly embedPath: string;
}

/** One app serving one build: a worker service, its assets service if it has assets, and a socket. */
export interface WorkerdDeployment {
  readonly project: string;
  readonly appId: string;
  readonly buildId: string;
  /** workerd socket address, e.g. `unix:/run/cw/g3/0.sock`. */
  readonly socket: string;
  /** The entry point first. */
  readonly modules: readonly WorkerdModule[];
  /** Plain text bindings: `env.KEY` (and `process.env.KEY` under `nodejs_compat`). */
  readonly env: Readonly<Record<string, string>>;
  readonly compatibilityDate: string;
  readonly compatibilityFlags: readonly string[];
  /** Static assets, served before the worker as Cloudflare does, and bound to it as `env.ASSETS`. */
  readonly assets?: { readonly directory: string; readonly config: AssetServiceConfig };
  /** Report each request to the tail worker (app logs): only while someone follows them, as it costs every request. */
  readonly tailed?: boolean;
}

export interface WorkerdConfigInput {
  readonly deployments: readonly WorkerdDeployment[];
  /** Socket of a built-in worker answering `200 ok`, for the supervisor's health checks. */
  readonly healthSocket?: string;
  /** Where the tail worker delivers the apps' logs (`log-sink.ts`), e.g. `unix:/run/cw/logs.sock`; absent: no logs. */
  readonly logSink?: string;
}

export interface WorkerdConfig {
  /** The config file: a capnp text `Workerd.Config` constant named `config`. */
  readonly text: string;
  /** `workerd serve` needs `--experimental` (the assets service is experimental in workerd). */
  readonly experimental: boolean;
  /** Socket name → deployment index, to match `--control-fd` listen events to deployments. */
  readonly sockets: ReadonlyMap<string, number | 'health'>;
}

/** The binding name of a deployment's static assets, as OpenNext and wrangler projects expect it. */
export const ASSETS_BINDING = 'ASSETS';
/** Header the router sets; workerd builds `request.url` with the protocol it names. */
export const FORWARDED_PROTO_HEADER = 'x-forwarded-proto';

const HEALTH_WORKER = "export default { fetch() { return new Response('ok'); } };";

/** The names workerd reports a deployment's services under (in its log lines too). */
export function serviceNames(d: Pick<WorkerdDeployment, 'project' | 'appId' | 'buildId'>): { worker: string; assets: string } {
  const id = `${d.project}/${d.appId}@${d.buildId}`;
  return { worker: `worker:${id}`, assets: `assets:${id}` };
}

/**
 * Under `nodejs_compat`, environment values also appear in `process.env` (Next.js reads them there):
 * workerd implies `nodejs_compat_populate_process_env` only from the 2025-04-01 compatibility date, so
 * it is added explicitly, unless the build opted out with `nodejs_compat_do_not_populate_process_env`.
 */
export function effectiveFlags(flags: readonly string[]): string[] {
  const node = flags.includes('nodejs_compat') || flags.includes('nodejs_compat_v2');
  const decided = flags.includes('nodejs_compat_populate_process_env') || flags.includes('nodejs_compat_do_not_populate_process_env');
  return node && !decided ? [...flags, 'nodejs_compat_populate_process_env'] : [...flags];
}

/**
 * Renders the workerd config for a set of deployments. Pure: the same input gives the same text.
 *
 * Each deployment gets its own socket rather than one socket with Host routing inside workerd: a
 * dispatching worker in front halved workerd's throughput when measured (docs/runtime.md).
 */
export function renderWorkerdConfig(input: WorkerdConfigInput): WorkerdConfig {
  const services: string[] = [];
  const sockets: string[] = [];
  const socketMap = new Map<string, number | 'health'>();
  let experimental = false;
  input.deployments.forEach((d, index) => {
    const names = serviceNames(d);
    const bindings = Object.keys(d.env)
      .sort()
      .map((key) => `(name = ${capnpString(key)}, text = ${capnpString(d.env[key] ?? '')})`);
    if (d.assets) bindings.push(`(name = ${capnpString(ASSETS_BINDING)}, service = (name = ${capnpString(names.assets)}, entrypoint = "AssetWorker"))`);
    const modules = d.modules.map((m) => `(name = ${capnpString(m.name)}, ${m.type} = embed ${capnpString(m.embedPath)})`);
    const props = JSON.stringify({ app: `${d.project}/${d.appId}`, build: d.buildId });
    const tails = input.logSink === undefined || !d.tailed ? '' : `\n      tails = [(name = "cw-tail", entrypoint = "AppTail", props = (json = ${capnpString(props)}))],`;
    services.push(
      [
        `    (name = ${capnpString(names.worker)}, worker = (`,
        `      modules = [\n        ${modules.join(',\n        ')}\n      ],`,
        `      compatibilityDate = ${capnpString(d.compatibilityDate)},`,
        `      compatibilityFlags = ${capnpStringList(effectiveFlags(d.compatibilityFlags))},`,
        `      bindings = [${bindings.length ? `\n        ${bindings.join(',\n        ')}\n      ` : ''}],${tails}`,
        '    ))',
      ].join('\n'),
    );
    if (d.assets) {
      experimental = true;
      services.push(
        `    (name = ${capnpString(names.assets)}, assets = (path = ${capnpString(d.assets.directory)}, ` +
          `config = ${capnpString(JSON.stringify(d.assets.config))}, userWorker = ${capnpString(names.worker)}))`,
      );
    }
    const socketName = `s${index}`;
    socketMap.set(socketName, index);
    sockets.push(socket(socketName, d.socket, d.assets ? names.assets : names.worker));
  });
  if (input.healthSocket !== undefined) {
    services.push(`    (name = "cw-health", worker = (modules = [(name = "health.js", esModule = ${capnpString(HEALTH_WORKER)})], compatibilityDate = "2025-01-01"))`);
    socketMap.set('health', 'health');
    sockets.push(socket('health', input.healthSocket, 'cw-health'));
  }
  if (input.logSink !== undefined) {
    services.push(
      `    (name = "cw-tail", worker = (modules = [(name = "tail.js", esModule = ${capnpString(TAIL_WORKER_SOURCE)})], compatibilityDate = "2025-09-01", ` +
        `bindings = [(name = "SINK", service = "cw-log-sink")]))`,
      `    (name = "cw-log-sink", external = (address = ${capnpString(input.logSink)}, http = ()))`,
    );
  }
  const text = [
    '# Generated by Cloudwright (src/workerd/workerd-config.ts). Do not edit.',
    'using Workerd = import "/workerd/workerd.capnp";',
    '',
    'const config :Workerd.Config = (',
    `  services = [\n${services.join(',\n')}\n  ],`,
    `  sockets = [\n${sockets.join(',\n')}\n  ],`,
    ');',
    '',
  ].join('\n');
  return { text, experimental, sockets: socketMap };
}

function socket(name: string, address: string, service: string): string {
  return `    (name = ${capnpString(name)}, address = ${capnpString(address)}, http = (forwardedProtoHeader = ${capnpString(FORWARDED_PROTO_HEADER)}), service = ${capnpString(service)})`;
}
