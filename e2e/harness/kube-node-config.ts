// The local node's configuration files: containerd's, the CNI network's, the kubelet's, kube-proxy's,
// CoreDNS's, and kube-router's flags. Pure functions of the node's layout, so what the node runs with can be
// read in one place.

/** Where the node's network lives: one bridge on this machine, with the pods behind it. */
export const NODE_NETWORK = {
  bridge: 'cw-node0',
  /** The node's own address (on the bridge): the apiserver, the kubelet and cluster DNS listen here. */
  address: '10.244.0.1',
  prefixLength: 24,
  podRange: '10.244.0.0/24',
  /** Services' cluster IPs (the control plane's --service-cluster-ip-range, e2e/controlplane/run.go). */
  serviceRange: '10.96.0.0/16',
} as const;

export const NODE_NAME = 'cw-node';

/** The node's paths under its state directory. */
export interface NodeLayout {
  stateDir: string;
  containerdSocket: string;
  cniConfDir: string;
  clusterDir: string;
  sandboxImage: string;
}

/**
 * containerd 1.6 (Debian's) with runc. restrict_oom_score_adj because these machines withhold
 * CAP_SYS_RESOURCE even from root: the kubelet's -998 for a sandbox would make runc fail at start.
 */
export function containerdConfig(layout: NodeLayout): string {
  const dir = `${layout.stateDir}/containerd`;
  return `version = 2
root = "${dir}/root"
state = "${dir}/state"
[grpc]
  address = "${layout.containerdSocket}"
[ttrpc]
  address = "${layout.containerdSocket}.ttrpc"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "${layout.sandboxImage}"
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "${layout.cniConfDir}"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    default_runtime_name = "runc"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
    runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
    SystemdCgroup = false
    Root = "${dir}/runc"
[plugins."io.containerd.internal.v1.opt"]
  path = "${dir}/opt"
`;
}

/**
 * The pod network: Debian's bridge, host-local and portmap plugins on the node's bridge. The harness gives
 * the bridge its address, so the plugin is not the gateway: as one it would turn on forwarding for the whole
 * machine, and with no masquerading nothing from a pod is translated to leave the machine.
 */
export function cniConfig(layout: NodeLayout): string {
  return JSON.stringify(
    {
      cniVersion: '1.0.0',
      name: 'cw-node',
      plugins: [
        {
          type: 'bridge',
          bridge: NODE_NETWORK.bridge,
          isGateway: false,
          ipMasq: false,
          hairpinMode: true,
          ipam: {
            type: 'host-local',
            ranges: [[{ subnet: NODE_NETWORK.podRange, gateway: NODE_NETWORK.address }]],
            routes: [{ dst: '0.0.0.0/0' }],
            dataDir: `${layout.stateDir}/cni/ipam`,
          },
        },
        { type: 'portmap', capabilities: { portMappings: true } },
      ],
    },
    null,
    2,
  );
}

/**
 * The kubelet: cgroupfs on cgroup v1 (these machines have no v2 and no systemd), eviction thresholds low
 * enough that a busy shared disk does not evict the platform mid-test, and the node's own DNS.
 */
export function kubeletConfig(layout: NodeLayout): string {
  return `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
failCgroupV1: false
cgroupDriver: cgroupfs
address: ${NODE_NETWORK.address}
port: 10250
readOnlyPort: 0
healthzPort: 0
authentication:
  anonymous: { enabled: false }
  webhook: { enabled: true }
  x509: { clientCAFile: ${layout.clusterDir}/pki/ca.crt }
authorization: { mode: Webhook }
clusterDomain: cluster.local
clusterDNS: [${NODE_NETWORK.address}]
resolvConf: /etc/resolv.conf
failSwapOn: false
evictionHard: { memory.available: 100Mi, nodefs.available: 1%, imagefs.available: 1%, nodefs.inodesFree: 1% }
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
containerRuntimeEndpoint: unix://${layout.containerdSocket}
podLogsDir: ${layout.stateDir}/pod-logs
serializeImagePulls: false
`;
}

/**
 * kube-proxy in iptables mode, its health and metrics servers off, and touching no machine-wide sysctl: the
 * conntrack table's size and TCP timeouts are left as they are (0 means "do not set").
 */
export function kubeProxyConfig(layout: NodeLayout): string {
  return `apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: { kubeconfig: ${layout.clusterDir}/kube-proxy.kubeconfig }
hostnameOverride: ${NODE_NAME}
mode: iptables
clusterCIDR: ${NODE_NETWORK.podRange}
bindAddress: ${NODE_NETWORK.address}
healthzBindAddress: ''
metricsBindAddress: ''
iptables: { localhostNodePorts: false }
conntrack: { maxPerCore: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s }
nodePortAddresses: [${NODE_NETWORK.address}/32]
`;
}

/** Cluster DNS: CoreDNS on the node's address, answering for Services from the apiserver. */
export function corefile(layout: NodeLayout): string {
  return `.:53 {
    bind ${NODE_NETWORK.address}
    errors
    kubernetes cluster.local in-addr.arpa ip6.arpa {
        kubeconfig ${layout.clusterDir}/kubeconfig
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
    }
    forward . /etc/resolv.conf
    cache 30
}
`;
}

/**
 * The chart's NetworkPolicy values for this node: its pods find cluster DNS (CoreDNS) and the bucket (MinIO at
 * `s3Endpoint`) on the node's address rather than in pods, and build pods the npm mirror (e2e/harness/npm-mirror.ts)
 * there too when it runs. The apiserver's address the chart looks up itself.
 */
export function chartNetworkValues(s3Endpoint: string, npmMirrorPort?: number): object {
  const node = [{ ipBlock: { cidr: `${NODE_NETWORK.address}/32` } }];
  // Build pods reach the bucket by its address already (the chart takes it from objectStore.endpoint).
  const registries = npmMirrorPort ? [{ cidr: `${NODE_NETWORK.address}/32`, port: npmMirrorPort }] : [];
  return {
    networkPolicy: { runtime: { dns: node, extraEgress: [{ to: node, ports: [{ protocol: 'TCP', port: Number(new URL(s3Endpoint).port) }] }] } },
    builds: { egress: { dns: node, registries } },
  };
}

/**
 * kube-router as the node's NetworkPolicy enforcer, and nothing else: its network-policy controller programs
 * iptables chains and ipsets beside kube-proxy's (no routing, no service proxy, no CNI of its own, no health or
 * metrics port). It logs each sync (level 1), which the harness waits for before the node counts as up.
 */
export function kubeRouterArgs(layout: NodeLayout): string[] {
  return [
    `--kubeconfig=${layout.clusterDir}/kubeconfig`,
    `--hostname-override=${NODE_NAME}`,
    '--run-firewall=true',
    '--run-router=false',
    '--run-service-proxy=false',
    '--run-loadbalancer=false',
    '--enable-cni=false',
    '--enable-ipv6=false',
    `--service-cluster-ip-range=${NODE_NETWORK.serviceRange}`,
    '--health-port=0',
    '--metrics-port=0',
    '--v=1',
  ];
}
