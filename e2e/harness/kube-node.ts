// A real Kubernetes node on this machine, joined to a control plane of its own: containerd with runc and
// Debian's CNI plugins, and the kubelet and kube-proxy of the control plane's own build (cw-controlplane
// kubelet|kube-proxy), with CoreDNS as cluster DNS and kube-router's network-policy controller enforcing
// NetworkPolicies (the bridge plugins do not). Pods get addresses on one bridge, Services work through
// kube-proxy's iptables rules, and images come from OCI archives imported into containerd: no registry.
// stop() removes every container, mount, interface, iptables rule, cgroup and path the node made (see
// kube-node-host.ts); a node killed without its stop leaves them, and the next start removes them first.
import { execFile } from 'node:child_process';
import { chownSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadKubeConnection, objectClient, type KubeObject } from '../../src/kube/index.ts';
import { containerdConfig, cniConfig, corefile, kubeletConfig, kubeProxyConfig, kubeRouterArgs, NODE_NAME, NODE_NETWORK, type NodeLayout } from './kube-node-config.ts';
import { removeKubeCgroups, setUpHost, tearDownHost, type HostBefore } from './kube-node-host.ts';
import { startService, waitForLine, type Service } from './process.ts';
import { repoRoot, toolPath } from './tools.ts';
import { watchUntil } from './watch.ts';

const exec = promisify(execFile);
const NODES = { group: '', version: 'v1', plural: 'nodes', kind: 'Node', namespaced: false } as const;
const PERSISTENT_VOLUMES = { group: '', version: 'v1', plural: 'persistentvolumes', kind: 'PersistentVolume', namespaced: false } as const;

export interface KubeNode {
  /** cluster-admin on the node's control plane (served at the node's address, which pods reach too). */
  kubeconfig: string;
  /** The node's address on this machine: Services' cluster IPs and pods are reachable from here through it. */
  address: string;
  /** Milliseconds from start to the node being Ready, images imported. */
  startMs: number;
  /** The node's own processes, for measuring them. */
  processes(): { name: string; pid: number }[];
  /**
   * A PersistentVolume on the node's disk (hostPath, no storage class), for a claim to bind: the node has no
   * provisioner. hostPath volumes take no fsGroup, so the directory is made `owner`'s (the pods' user).
   */
  addVolume(name: string, size: string, owner: number): Promise<void>;
  /** Runs kubectl against the node's cluster. */
  kubectl(...args: string[]): Promise<string>;
  /** Everything off: pods, node, control plane, and what they changed on the machine. Throws what it could not undo. */
  stop(): Promise<void>;
}

export interface KubeNodeOptions {
  stateDir: string;
  /** OCI archives to import into containerd (the pause image is always imported). */
  images: string[];
}

/**
 * An image built into .tools as an OCI archive with its name beside it: `pause-image`, the sandbox every pod
 * starts with (scripts/setup/kube-node.sh, from e2e/pause), or `cloudwright-image` (`make image`).
 */
export function builtImage(which: 'pause-image' | 'cloudwright-image'): { archive: string; name: string } {
  const archive = join(repoRoot, '.tools', `${which}.oci.tar`);
  return { archive, name: readFileSync(`${archive}.name`, 'utf8').trim() };
}

export async function startKubeNode(options: KubeNodeOptions): Promise<KubeNode> {
  if (process.getuid?.() !== 0) throw new Error('the local node needs root: containerd, runc, the bridge and iptables');
  const started = performance.now();
  const stateDir = join(options.stateDir, 'node');
  const pause = builtImage('pause-image');
  const layout: NodeLayout = {
    stateDir,
    containerdSocket: join(stateDir, 'containerd', 'containerd.sock'),
    cniConfDir: join(stateDir, 'cni', 'net.d'),
    clusterDir: join(stateDir, 'cluster'),
    sandboxImage: pause.name,
  };
  for (const dir of [layout.cniConfDir, layout.clusterDir, join(stateDir, 'kubelet'), join(stateDir, 'containerd')]) mkdirSync(dir, { recursive: true });
  const files = {
    containerd: join(stateDir, 'containerd', 'config.toml'),
    kubelet: join(stateDir, 'kubelet', 'config.yaml'),
    kubeProxy: join(stateDir, 'kube-proxy.yaml'),
    corefile: join(stateDir, 'Corefile'),
  };
  writeFileSync(files.containerd, containerdConfig(layout));
  writeFileSync(join(layout.cniConfDir, '10-cw-node.conflist'), cniConfig(layout));
  writeFileSync(files.kubelet, kubeletConfig(layout));
  writeFileSync(files.kubeProxy, kubeProxyConfig(layout));
  writeFileSync(files.corefile, corefile(layout));

  let host: HostBefore | undefined;
  const services: Service[] = [];
  const start = (name: string, command: string, args: string[]) => {
    const service = startService({ name, command, args, logPath: join(stateDir, `${name}.log`), ownProcessGroup: true });
    services.push(service);
    return service;
  };
  const kubeconfig = join(layout.clusterDir, 'kubeconfig');
  const kubectl = async (...args: string[]) => (await exec(toolPath('kubectl'), ['--kubeconfig', kubeconfig, ...args], { maxBuffer: 32 << 20 })).stdout;
  const ctr = (...args: string[]) => exec('ctr', ['--address', layout.containerdSocket, '--namespace', 'k8s.io', ...args], { maxBuffer: 32 << 20 });

  const stop = async () => {
    // Pods first, through the kubelet, so their networks are torn down by the plugins that made them.
    await kubectl('cordon', NODE_NAME).catch(() => {});
    await kubectl('delete', 'pods', '--all-namespaces', `--field-selector=spec.nodeName=${NODE_NAME}`, '--grace-period=1', '--wait', '--timeout=60s').catch(() => {});
    const [controlPlane, containerd, ...rest] = services;
    for (const service of rest.reverse()) await service.stop(10_000);
    // What the kubelet left (stopped sandboxes, anything it could not stop) goes with its snapshots.
    const containers = (await ctr('containers', 'list', '--quiet').catch(() => ({ stdout: '' }))).stdout.split('\n').filter(Boolean);
    for (const id of containers) {
      await ctr('tasks', 'delete', '--force', id).catch(() => {});
      await ctr('containers', 'delete', id).catch(() => {});
    }
    await containerd?.stop(10_000);
    await controlPlane?.stop(15_000);
    // Only a node that set the machine up cleans it: a start refused because another node runs (its bridge
    // exists) must leave that node's pods and cgroups alone.
    const problems = host ? [...(await removeKubeCgroups()), ...tearDownHost(host, stateDir)] : [];
    // The unpacked images are most of the node's disk.
    rmSync(join(stateDir, 'containerd', 'root'), { recursive: true, force: true });
    if (problems.length > 0) throw new Error(`the local node left: ${problems.join('; ')}`);
  };

  try {
    host = await setUpHost(stateDir);
    const controlPlane = start('cw-controlplane', toolPath('cw-controlplane'), ['--dir', layout.clusterDir, '--unsafe-no-fsync', '--node-address', NODE_NETWORK.address]);
    await waitForLine(controlPlane, /^cw-controlplane ready (\S+)$/, 180_000);
    const containerd = start('containerd', 'containerd', ['--config', files.containerd]);
    await waitForLine(containerd, /containerd successfully booted/, 60_000);
    for (const archive of [pause.archive, ...options.images]) await ctr('images', 'import', archive);
    start('kubelet', toolPath('cw-controlplane'), [
      'kubelet',
      `--config=${files.kubelet}`,
      `--kubeconfig=${join(layout.clusterDir, 'kubelet.kubeconfig')}`,
      `--hostname-override=${NODE_NAME}`,
      `--node-ip=${NODE_NETWORK.address}`,
      `--root-dir=${join(stateDir, 'kubelet', 'root')}`,
      // Probe failures and container kills are logged from this level on.
      '--v=1',
    ]);
    start('kube-proxy', toolPath('cw-controlplane'), ['kube-proxy', `--config=${files.kubeProxy}`]);
    start('coredns', toolPath('coredns'), ['-conf', files.corefile]);
    await watchUntil<KubeObject & { status?: { conditions?: { type: string; status: string }[] } }>(
      loadKubeConnection(kubeconfig),
      NODES,
      { timeoutMs: 120_000, what: `node ${NODE_NAME} Ready` },
      (nodes) => nodes.some((node) => node.metadata?.name === NODE_NAME && node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')),
    );
    // It reads the Node object at start (its addresses), so it starts once the kubelet has registered it; its
    // first sync has put its chains in place before any pod of a test's starts.
    const kubeRouter = start('kube-router', toolPath('kube-router'), kubeRouterArgs(layout));
    await waitForLine(kubeRouter, /sync iptables took/, 60_000);
  } catch (err) {
    const left = await stop().then(
      () => '',
      (stopErr: Error) => ` (and stopping: ${stopErr.message})`,
    );
    throw new Error(`${(err as Error).message}${left}`, { cause: err });
  }
  return {
    kubeconfig,
    address: NODE_NETWORK.address,
    startMs: Math.round(performance.now() - started),
    addVolume: async (name, size, owner) => {
      const path = join(stateDir, 'volumes', name);
      mkdirSync(path, { recursive: true });
      chownSync(path, owner, owner);
      await objectClient<KubeObject>(loadKubeConnection(kubeconfig), PERSISTENT_VOLUMES).apply(
        {
          apiVersion: 'v1',
          kind: 'PersistentVolume',
          metadata: { name },
          spec: { capacity: { storage: size }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Retain', hostPath: { path, type: 'Directory' } },
        } as KubeObject,
        { fieldManager: 'cloudwright-kube-node', force: true },
      );
    },
    processes: () => services.flatMap((s) => (s.child.pid && s.child.exitCode === null ? [{ name: s.name, pid: s.child.pid }] : [])),
    kubectl,
    stop,
  };
}
