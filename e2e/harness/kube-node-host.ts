// What the local node changes on this machine, and how each change is undone: the bridge and its forwarding,
// the iptables chains of the kubelet and kube-proxy, the kernel settings the kubelet writes, the mounts under
// the node's directory, the pods' network namespaces and the kubelet's cgroups.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NODE_NETWORK } from './kube-node-config.ts';

/**
 * Kernel settings put back when the node stops: those the kubelet sets on start (its "kernel defaults"), and
 * bridged traffic passing iptables, which Services between pods of the bridge need.
 */
const SAVED_SYSCTLS = [
  'vm/overcommit_memory',
  'vm/panic_on_oom',
  'kernel/panic',
  'kernel/panic_on_oops',
  'kernel/keys/root_maxkeys',
  'kernel/keys/root_maxbytes',
  'net/bridge/bridge-nf-call-iptables',
];
/** The one rule of the harness's own: nothing from a pod is forwarded off the bridge. */
const EGRESS_RULE = ['FORWARD', '-i', NODE_NETWORK.bridge, '!', '-o', NODE_NETWORK.bridge, '-m', 'comment', '--comment', 'cloudwright local node: pods reach only this machine', '-j', 'REJECT'];
/** Chains the kubelet and kube-proxy create; no other program on these machines names its chains so. */
const KUBE_CHAIN = /^KUBE-/;

function run(command: string, args: string[]): string {
  return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function sysctl(name: string, value?: string): string {
  const path = `/proc/sys/${name}`;
  if (value !== undefined) writeFileSync(path, value);
  return readFileSync(path, 'utf8').trim();
}

/** A record of what to put back, taken before the node starts. */
export interface HostBefore {
  sysctls: Map<string, string>;
  netns: Set<string>;
}

/**
 * Creates the node's bridge with its address and lets packets that arrive on it be forwarded (pods reaching
 * Services are translated to another pod on the same bridge), but only for that interface: the machine's
 * other interfaces still forward nothing, and a rule rejects whatever a pod sends off the bridge.
 */
export function setUpHost(): HostBefore {
  if (existsSync(`/sys/class/net/${NODE_NETWORK.bridge}`)) {
    throw new Error(`${NODE_NETWORK.bridge} exists: another local node is running, or one was killed before it could clean up (ip link del ${NODE_NETWORK.bridge})`);
  }
  const before: HostBefore = { sysctls: new Map(SAVED_SYSCTLS.map((name) => [name, sysctl(name)])), netns: new Set(listNetns()) };
  run('ip', ['link', 'add', NODE_NETWORK.bridge, 'type', 'bridge']);
  run('ip', ['addr', 'add', `${NODE_NETWORK.address}/${NODE_NETWORK.prefixLength}`, 'dev', NODE_NETWORK.bridge]);
  run('ip', ['link', 'set', NODE_NETWORK.bridge, 'up']);
  sysctl(`net/ipv4/conf/${NODE_NETWORK.bridge}/forwarding`, '1');
  sysctl('net/bridge/bridge-nf-call-iptables', '1');
  run('iptables', ['-I', ...EGRESS_RULE]);
  return before;
}

/** Undoes setUpHost and everything the node's processes left; each step runs even if an earlier one failed. */
export function tearDownHost(before: HostBefore, stateDir: string): string[] {
  const problems: string[] = [];
  const step = (what: string, action: () => void) => {
    try {
      action();
    } catch (err) {
      problems.push(`${what}: ${(err as Error).message.split('\n')[0]}`);
    }
  };
  step('unmount', () => unmountUnder(stateDir));
  for (const name of listNetns()) if (!before.netns.has(name)) step(`netns ${name}`, () => run('ip', ['netns', 'delete', name]));
  step('egress rule', () => run('iptables', ['-D', ...EGRESS_RULE]));
  for (const command of ['iptables', 'ip6tables'] as const) step(command, () => removeKubeChains(command));
  step('bridge', () => existsSync(`/sys/class/net/${NODE_NETWORK.bridge}`) && run('ip', ['link', 'del', NODE_NETWORK.bridge]));
  for (const [name, value] of before.sysctls) step(name, () => sysctl(name, value));
  step('cgroups', () => removeCgroups('kubepods'));
  return problems;
}

function listNetns(): string[] {
  return existsSync('/run/netns') ? readdirSync('/run/netns') : [];
}

/** Mounts at or below `dir` (the kubelet's volumes, containerd's snapshots), deepest first. */
export function mountsUnder(dir: string): string[] {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[4]?.replace(/\\040/g, ' ') ?? '')
    .filter((point) => point === dir || point.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
}

function unmountUnder(dir: string): void {
  for (const point of mountsUnder(dir)) run('umount', ['--lazy', point]);
}

/** Deletes every KUBE-* chain and the rules that jump to them, table by table. */
function removeKubeChains(command: 'iptables' | 'ip6tables'): void {
  let table = '';
  const jumps: string[][] = [];
  const chains: [string, string][] = [];
  for (const line of run(`${command}-save`, []).split('\n')) {
    if (line.startsWith('*')) table = line.slice(1);
    else if (line.startsWith(':') && KUBE_CHAIN.test(line.slice(1))) chains.push([table, line.slice(1).split(' ')[0] ?? '']);
    else if (line.startsWith('-A ') && !KUBE_CHAIN.test(line.split(' ')[1] ?? '') && / -j KUBE-/.test(line)) jumps.push(['-t', table, ...splitRule(line.slice(3))]);
  }
  for (const rule of jumps) run(command, [rule[0]!, rule[1]!, '-D', ...rule.slice(2)]);
  for (const [t, chain] of chains) run(command, ['-t', t, '-F', chain]);
  for (const [t, chain] of chains) run(command, ['-t', t, '-X', chain]);
}

/** Splits an iptables-save rule into arguments, keeping quoted comments whole. */
function splitRule(rule: string): string[] {
  return [...rule.matchAll(/"((?:[^"\\]|\\.)*)"|(\S+)/g)].map((m) => (m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2]!));
}

/** rmdir of a cgroup and its children in every v1 hierarchy (the kubelet leaves its QoS cgroups behind). */
function removeCgroups(name: string): void {
  for (const hierarchy of readdirSync('/sys/fs/cgroup')) {
    const root = join('/sys/fs/cgroup', hierarchy, name);
    if (existsSync(root)) removeCgroupTree(root);
  }
}

function removeCgroupTree(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) removeCgroupTree(join(dir, entry.name));
  rmdirSync(dir);
}

/** What the node leaves on the machine that a test can compare before and after: links, rules, namespaces. */
export function hostFootprint(): { links: string[]; iptables: string[]; netns: string[] } {
  const rules = (command: string) =>
    run(command, [])
      .split('\n')
      .filter((line) => line && !line.startsWith('#'))
      .map((line) => line.replace(/ \[\d+:\d+\]$/, ''));
  return {
    links: readdirSync('/sys/class/net').sort(),
    iptables: [...rules('iptables-save'), ...rules('ip6tables-save')],
    netns: listNetns().sort(),
  };
}
