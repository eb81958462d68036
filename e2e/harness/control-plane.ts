import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startService, waitForLine, type Service } from './process.ts';
import { toolPath } from './tools.ts';

/** A Kubernetes API to run against, and how to let go of it. */
export interface ControlPlane {
  kubeconfig: string;
  /** `local`: our kube-apiserver + etcd binary; `existing`: $KUBECONFIG; `k3s`: testcontainers. */
  mode: 'local' | 'existing' | 'k3s';
  /** `local`: the process holding etcd and kube-apiserver (whose memory a benchmark reads). */
  pid?: number;
  /** With `holdControllers`: starts kube-controller-manager (the others run theirs from the start). */
  startControllers?: () => void;
  stop(): Promise<void>;
}

export interface ControlPlaneOptions {
  stateDir: string;
  /** Skip etcd fsync: right for throwaway test clusters, wrong for a dev cluster you keep. */
  throwaway: boolean;
  /**
   * `local`: ready before kube-controller-manager starts, which waits for `startControllers`, so CRDs installed
   * meanwhile are known to its garbage collector from its start rather than after its 30 s rediscovery.
   */
  holdControllers?: boolean;
}

/** Chooses the control plane from E2E_CLUSTER (`local` by default, `existing`, `k3s`). */
export async function startControlPlane(opts: ControlPlaneOptions): Promise<ControlPlane> {
  const mode = process.env.E2E_CLUSTER ?? 'local';
  switch (mode) {
    case 'local':
      return startLocal(opts);
    case 'existing':
      return useExisting();
    case 'k3s':
      return startK3s(opts);
    default:
      throw new Error(`E2E_CLUSTER=${mode} is not one of local, existing, k3s`);
  }
}

async function startLocal(opts: ControlPlaneOptions): Promise<ControlPlane> {
  const dir = join(opts.stateDir, 'cluster');
  mkdirSync(dir, { recursive: true });
  const controllersGo = join(opts.stateDir, 'controllers-go');
  const service: Service = startService({
    name: 'cw-controlplane',
    command: toolPath('cw-controlplane'),
    args: ['--dir', dir, ...(opts.throwaway ? ['--unsafe-no-fsync'] : []), ...(opts.holdControllers ? ['--controllers-after', controllersGo] : [])],
    logPath: join(opts.stateDir, 'controlplane.log'),
  });
  const [, kubeconfig] = await waitForLine(service, /^cw-controlplane ready (\S+)$/, 180_000).catch(async (err) => {
    await service.stop();
    throw err;
  });
  return {
    kubeconfig: kubeconfig as string,
    mode: 'local',
    ...(service.child.pid ? { pid: service.child.pid } : {}),
    ...(opts.holdControllers ? { startControllers: () => writeFileSync(controllersGo, '') } : {}),
    stop: () => service.stop(opts.throwaway ? 5_000 : 30_000),
  };
}

function useExisting(): ControlPlane {
  const kubeconfig = process.env.KUBECONFIG;
  if (!kubeconfig) throw new Error('E2E_CLUSTER=existing needs KUBECONFIG to name a kubeconfig file');
  return { kubeconfig, mode: 'existing', stop: async () => {} };
}

async function startK3s(opts: ControlPlaneOptions): Promise<ControlPlane> {
  try {
    execFileSync('docker', ['info'], { stdio: 'ignore', timeout: 10_000 });
  } catch {
    throw new Error('E2E_CLUSTER=k3s needs a Docker engine, and none is running on this machine; use E2E_CLUSTER=local');
  }
  const { K3sContainer } = await import('@testcontainers/k3s');
  const container = await new K3sContainer('rancher/k3s:v1.33.5-k3s1').start();
  const kubeconfig = join(opts.stateDir, 'k3s.kubeconfig');
  writeFileSync(kubeconfig, container.getKubeConfig(), { mode: 0o600 });
  return { kubeconfig, mode: 'k3s', stop: async () => void (await container.stop()) };
}
