import { createDeviceFlow } from '../src/auth/index.ts';
import type { Project } from '../src/apis/v1alpha1/project.ts';
import type { User } from '../src/apis/v1alpha1/user.ts';
import { createInformerFactory, loadKubeConnection, pingApiServer } from '../src/kube/index.ts';
import type { ObjectStore } from '../src/object-store/object-store.ts';
import { createAppServices, DEFAULT_RUNTIME_BASE_DOMAIN } from '../src/platform/app-services.ts';
import { createDomainServices } from '../src/platform/domains/domain-services.ts';
import { dnsSettingsFromEnv } from '../src/platform/domains/dns-settings.ts';
import { ProjectDirectory } from '../src/platform/projects.ts';
import { resolveWorkerdBinary, workerdCompatibilityDate } from '../src/workerd/workerd-process.ts';
import { PROJECTS, USERS } from '../src/platform/resources.ts';
import { runtimeReplicaView } from '../src/platform/runtime-replica-informers.ts';
import { UserDirectory } from '../src/platform/users.ts';
import { KubeDeviceGrantStore, KubeTokenStore } from '../src/stores/index.ts';
import { artifactsFromEnv } from './artifacts-from-env.ts';
import type { ReadinessCheck } from './routes/health.ts';
import { runtimeReadiness } from './runtime-readiness.ts';
import { startServer, trustProxyFromEnv } from './server.ts';

/**
 * `cw-api`: the platform API server. Configuration from the environment: KUBECONFIG (else in-cluster),
 * CW_API_HOST (default 127.0.0.1; a host name listens on its first address only), CW_API_PORT (default
 * 8080), CW_API_PUBLIC_URL (how users reach it, for links such as the device verification page; default
 * http://CW_API_HOST:CW_API_PORT),
 * CW_SYSTEM_NAMESPACE (device sign-ins, default cloudwright-system), CW_API_RATE_LIMIT and CW_API_RATE_BURST
 * (requests per second and burst per caller, default 50 and 200), CW_API_TRUST_PROXY (`trustProxyFromEnv`).
 *
 * Build artifacts go to an S3 bucket: CW_S3_BUCKET and the object store settings of `artifactsFromEnv`.
 * CW_RUNTIME_BASE_DOMAIN (default apps.localhost) is the runtime's base domain: an app's default host is
 * `<appId>.<project>.<base domain>`.
 *
 * Project domains and app hostnames: the DNS settings of `dnsSettingsFromEnv` (CW_DNS_*, CW_ROUTE53_*,
 * CW_RUNTIME_DNS_*; docs/dns.md).
 */
export async function main(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const kube = loadKubeConnection(env.KUBECONFIG || undefined);
  const host = env.CW_API_HOST ?? '127.0.0.1';
  const port = Number(env.CW_API_PORT ?? 8080);
  const publicUrl = env.CW_API_PUBLIC_URL ?? `http://${host}:${port}`;
  // Checked before anything starts: a typo fails at once, with the variable named.
  const trustProxy = trustProxyFromEnv(env.CW_API_TRUST_PROXY);

  // One watch per kind for the whole process: the token store and the project directory share them.
  const informers = createInformerFactory(kube, {
    onError: (resource, err) => process.stderr.write(`cw-api: watch ${resource.plural}: ${err instanceof Error ? err.message : String(err)}\n`),
  });
  const tokens = new KubeTokenStore(kube, { informers });
  const projects = new ProjectDirectory(kube, informers.informer<Project>(PROJECTS));
  const users = new UserDirectory(kube, informers.informer<User>(USERS), informers.informer<Project>(PROJECTS), tokens);
  const artifacts = artifactsFromEnv(env);
  if (!artifacts) process.stderr.write('cw-api: CW_S3_BUCKET is not set: deploys, rollbacks and app deletion will answer 503\n');
  const appServices = createAppServices(kube, informers, {
    artifacts,
    baseDomain: env.CW_RUNTIME_BASE_DOMAIN || undefined,
    maxCompatibilityDate: await newestCompatibilityDate(),
  });
  const baseDomain = env.CW_RUNTIME_BASE_DOMAIN || DEFAULT_RUNTIME_BASE_DOMAIN;
  const dns = createDomainServices(kube, informers, { settings: dnsSettingsFromEnv(env, baseDomain), baseDomain });
  const grants = new KubeDeviceGrantStore(kube, { namespace: env.CW_SYSTEM_NAMESPACE ?? 'cloudwright-system' });
  // cw-runtime's replicas report in the platform's namespace (POD_NAMESPACE): readiness counts them.
  const runtimeReplicas = runtimeReplicaView((resource, labelSelector) => informers.informer(resource, { namespace: env.POD_NAMESPACE || 'default', labelSelector }));
  informers.start();
  await tokens.start(AbortSignal.timeout(60_000));
  await informers.waitForSync(AbortSignal.timeout(60_000));

  await startServer(
    {
      readiness: [
        { name: 'kube-apiserver', check: (signal) => pingApiServer(kube, signal) },
        ...(artifacts ? [objectStoreReadiness(artifacts)] : []),
        ...runtimeReadiness(runtimeReplicas),
      ],
      rateLimit: { perSecond: Number(env.CW_API_RATE_LIMIT ?? 50), burst: Number(env.CW_API_RATE_BURST ?? 200) },
      platform: {
        tokens,
        projects,
        users,
        deviceFlow: createDeviceFlow({ grants, tokens, verificationUri: `${publicUrl}/device` }),
        ...appServices,
        dns,
      },
    },
    { host, port, shutdownGraceMs: 10_000, trustProxy },
  );
}

/** `/readyz` lists one key of the bucket: deploys need it. */
function objectStoreReadiness(store: ObjectStore): ReadinessCheck {
  return {
    name: 'object-store',
    check: (signal) =>
      Promise.race([
        store.list('apps/', { limit: 1 }).then(() => undefined),
        new Promise<never>((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true })),
      ]),
  };
}

/**
 * The newest compatibility date the installed workerd supports, so a deploy naming a later one is refused
 * at upload rather than when the runtime loads it. Best effort: without workerd the runtime still checks.
 */
async function newestCompatibilityDate(): Promise<string | undefined> {
  try {
    return await workerdCompatibilityDate(resolveWorkerdBinary());
  } catch (err) {
    process.stderr.write(`cw-api: cannot ask workerd for its compatibility date (${err instanceof Error ? err.message : String(err)}); deploys are checked by the runtime only\n`);
    return undefined;
  }
}
