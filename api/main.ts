import { createDeviceFlow } from '../src/auth/index.ts';
import type { Project } from '../src/apis/v1alpha1/project.ts';
import type { User } from '../src/apis/v1alpha1/user.ts';
import { createInformerFactory, loadKubeConnection, pingApiServer } from '../src/kube/index.ts';
import { ProjectDirectory } from '../src/platform/projects.ts';
import { PROJECTS, USERS } from '../src/platform/resources.ts';
import { UserDirectory } from '../src/platform/users.ts';
import { KubeDeviceGrantStore, KubeTokenStore } from '../src/stores/index.ts';
import { startServer } from './server.ts';

/**
 * `cw-api`: the platform API server. Configuration from the environment: KUBECONFIG (else in-cluster),
 * CW_API_HOST (default 127.0.0.1), CW_API_PORT (default 8080), CW_API_PUBLIC_URL (how users reach it, for
 * links such as the device verification page; default http://CW_API_HOST:CW_API_PORT),
 * CW_SYSTEM_NAMESPACE (device sign-ins, default cloudwright-system), CW_API_RATE_LIMIT and CW_API_RATE_BURST
 * (requests per second and burst per caller, default 50 and 200).
 */
export async function main(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const kube = loadKubeConnection(env.KUBECONFIG || undefined);
  const host = env.CW_API_HOST ?? '127.0.0.1';
  const port = Number(env.CW_API_PORT ?? 8080);
  const publicUrl = env.CW_API_PUBLIC_URL ?? `http://${host}:${port}`;

  // One watch per kind for the whole process: the token store and the project directory share them.
  const informers = createInformerFactory(kube, {
    onError: (resource, err) => process.stderr.write(`cw-api: watch ${resource.plural}: ${err instanceof Error ? err.message : String(err)}\n`),
  });
  const tokens = new KubeTokenStore(kube, { informers });
  const projects = new ProjectDirectory(kube, informers.informer<Project>(PROJECTS));
  const users = new UserDirectory(kube, informers.informer<User>(USERS), informers.informer<Project>(PROJECTS), tokens);
  const grants = new KubeDeviceGrantStore(kube, { namespace: env.CW_SYSTEM_NAMESPACE ?? 'cloudwright-system' });
  informers.start();
  await tokens.start(AbortSignal.timeout(60_000));
  await informers.waitForSync(AbortSignal.timeout(60_000));

  await startServer(
    {
      readiness: [{ name: 'kube-apiserver', check: (signal) => pingApiServer(kube, signal) }],
      rateLimit: { perSecond: Number(env.CW_API_RATE_LIMIT ?? 50), burst: Number(env.CW_API_RATE_BURST ?? 200) },
      platform: { tokens, projects, users, deviceFlow: createDeviceFlow({ grants, tokens, verificationUri: `${publicUrl}/device` }) },
    },
    { host, port, shutdownGraceMs: 10_000 },
  );
}
