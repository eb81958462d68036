// What the local node changes on this machine, and how each change is undone: the bridge and its forwarding,
// the harness's own iptables rules, the kubelet's, kube-proxy's and kube-router's chains, kube-router's ipsets,
// the kernel settings the kubelet writes, the mounts under the node's directory, the pods' network namespaces,
// the kubelet's cgroups, and the few fixed paths the kubelet and containerd use whatever they are told.
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
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
/**
 * The settings as they were before any node started, kept until they are put back: a node killed before its
 * stop leaves the kubelet's values, and the next start must not take those for the machine's own.
 */
const SAVED_SYSCTLS_FILE = '/run/cloudwright-kube-node.sysctls.json';
/**
 * Which process owns the node on this machine, where its state is and what the machine had before it: written
 * before the node changes anything and removed once all is undone, so a node killed before its stop (a CI run
 * cut short) is told from one still running, and the next start puts back what the killed one left.
 */
const OWNER_FILE = '/run/cloudwright-kube-node.json';
/** Paths the kubelet and containerd create whatever their configuration says; removed if the node made them. */
const FIXED_PATHS = ['/var/lib/kubelet', '/var/log/pods', '/run/containerd'];
/** Where the kubelet links each container's log, by a fixed path; links it made are removed. */
const CONTAINER_LOG_LINKS = '/var/log/containers';
/** Chains the kubelet, kube-proxy and kube-router create; no other program on these machines names its chains so. */
const KUBE_CHAIN = /^KUBE-/;
/** kube-router's ipsets: its policies' (KUBE-SRC-*, KUBE-DST-*) and the ones it swaps them through (TMP-*). */
const KUBE_ROUTER_SET = /^(KUBE-|TMP-)/;
/**
 * The harness's chain: the node's address answers only this machine and the pods. In mangle, which runs before
 * the accepting rules kube-proxy and kube-router put at the head of filter's INPUT.
 */
const GUARD_CHAIN = 'CW-NODE-GUARD';
const GUARD_JUMP = ['-t', 'mangle', 'INPUT', '-d', NODE_NETWORK.address, '-j', GUARD_CHAIN];
/**
 * Nothing from a pod is forwarded off the bridge. In mangle, which runs before kube-proxy's accepting rules in
 * filter's FORWARD.
 */
const EGRESS_RULE = ['-t', 'mangle', 'FORWARD', '-i', NODE_NETWORK.bridge, '!', '-o', NODE_NETWORK.bridge, '-j', 'DROP'];

function run(command: string, args: string[]): string {
  return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** `iptables` with a rule spec whose chain follows the `-t table` pair: ACTION inserted before the chain. */
function iptablesRule(action: '-I' | '-D', rule: string[]): void {
  run('iptables', [...rule.slice(0, 2), action, ...rule.slice(2)]);
}

function savedSysctls(): Map<string, string> {
  return new Map(Object.entries(JSON.parse(readFileSync(SAVED_SYSCTLS_FILE, 'utf8')) as Record<string, string>));
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
  ipsets: Set<string>;
  paths: Set<string>;
  containerLogs: Set<string>;
}

/** What to put back, from a record's lists. */
function hostBefore(before: NodeOwner['before'], sysctls: Map<string, string>): HostBefore {
  return { sysctls, netns: new Set(before.netns), ipsets: new Set(before.ipsets), paths: new Set(before.paths), containerLogs: new Set(before.containerLogs) };
}

interface NodeOwner {
  pid: number;
  /** The process's start time (clock ticks since boot): a pid reused by another process does not count. */
  started: string;
  stateDir: string;
  before: { netns: string[]; ipsets: string[]; paths: string[]; containerLogs: string[] };
}

/** Field 22 of /proc/PID/stat, after the command name (which may hold spaces and parentheses). */
function processStarted(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** The record, if there is one whose shape holds (an absolute state directory, a pid): anything else is refused. */
function readOwner(): NodeOwner | undefined {
  if (!existsSync(OWNER_FILE)) return undefined;
  const refused = new Error(`${OWNER_FILE} is not a local node's record; look at it, then remove it`);
  let owner: Partial<NodeOwner>;
  try {
    owner = JSON.parse(readFileSync(OWNER_FILE, 'utf8')) as Partial<NodeOwner>;
  } catch {
    throw refused;
  }
  const lists = owner.before && [owner.before.netns, owner.before.ipsets, owner.before.paths, owner.before.containerLogs];
  if (!Number.isInteger(owner.pid) || typeof owner.started !== 'string' || typeof owner.stateDir !== 'string' || !isAbsolute(owner.stateDir) || !lists?.every(Array.isArray)) throw refused;
  return { ...(owner as NodeOwner), stateDir: resolve(owner.stateDir) };
}

/** Whether this process runs a node now (set up, not yet torn down): its own record then means a running node. */
let runningHere = false;

/** Every process one of whose arguments is `dir` or a path under it (`--config=<dir>/…` too): the node's own. */
function processesNaming(dir: string): number[] {
  const names = new RegExp(`(^|=)${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(/|$)`);
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
          .split('\0')
          .some((arg) => names.test(arg));
      } catch {
        return false;
      }
    })
    .map(Number);
}

/**
 * Makes the machine ready for a node: refuses if a node runs (its owner lives, or the bridge exists with no
 * record: a harness from before the record, which cannot be told from a live one), and otherwise undoes what a
 * node killed before its stop left: its processes, its pods' cgroups and everything tearDownHost removes, with
 * only the CNI plugins' namespaces among the namespaces (others may have come since the record was taken).
 */
export async function reclaimHost(): Promise<void> {
  const owner = readOwner();
  const bridge = existsSync(`/sys/class/net/${NODE_NETWORK.bridge}`);
  if (!owner) {
    if (bridge)
      throw new Error(`${NODE_NETWORK.bridge} exists with no record of its node: another local node is running, or one was killed before it could clean up (ip link del ${NODE_NETWORK.bridge})`);
    return;
  }
  // A record of this very process with no node running here is one of its own that did not stop cleanly.
  if (owner.pid === process.pid ? runningHere : processStarted(owner.pid) === owner.started) {
    throw new Error(`another local node is running (pid ${owner.pid}, state in ${owner.stateDir})`);
  }
  // Claimed by renaming it, which one start only can do: another start racing this one finds no record and a
  // bridge, and is refused, instead of undoing what this one sets up next.
  const claimed = `${OWNER_FILE}.reclaiming-${process.pid}`;
  try {
    renameSync(OWNER_FILE, claimed);
  } catch {
    throw new Error(`another local node start is reclaiming what a killed one left (${OWNER_FILE} was taken meanwhile)`);
  }
  for (const pid of processesNaming(owner.stateDir)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
  const problems = await removeKubeCgroups();
  const sysctls = existsSync(SAVED_SYSCTLS_FILE) ? savedSysctls() : new Map<string, string>();
  const netns = listNetns().filter((name) => !name.startsWith('cni-') || owner.before.netns.includes(name));
  problems.push(...tearDownHost(hostBefore({ ...owner.before, netns }, sysctls), owner.stateDir, claimed));
  // What could not be undone stays on record, for the next start to try again.
  if (problems.length > 0) {
    renameSync(claimed, OWNER_FILE);
    throw new Error(`a local node killed before its stop left what could not be undone: ${problems.join('; ')}`);
  }
}

/** Each step runs even if an earlier one failed; what failed is answered, one line each. */
function steps(): { step: (what: string, action: () => void) => void; problems: string[] } {
  const problems: string[] = [];
  return {
    problems,
    step: (what, action) => {
      try {
        action();
      } catch (err) {
        problems.push(`${what}: ${(err as Error).message.split('\n')[0]}`);
      }
    },
  };
}

/**
 * Creates the node's bridge with its address and lets packets that arrive on it be forwarded (pods reaching
 * Services are translated to another pod on the same bridge), but only for that interface: the machine's
 * other interfaces still forward nothing, a rule drops whatever a pod sends off the bridge, and the node's
 * address answers only this machine and the pods (on Linux any interface would accept it otherwise).
 * A failure part-way undoes what was done.
 */
export async function setUpHost(stateDir: string): Promise<HostBefore> {
  await reclaimHost();
  if (!existsSync(SAVED_SYSCTLS_FILE)) writeFileSync(SAVED_SYSCTLS_FILE, JSON.stringify(Object.fromEntries(SAVED_SYSCTLS.map((name) => [name, sysctl(name)]))));
  const owner: NodeOwner = {
    pid: process.pid,
    started: processStarted(process.pid) ?? '',
    stateDir,
    before: { netns: listNetns(), ipsets: listIpsets(), paths: FIXED_PATHS.filter((path) => existsSync(path)), containerLogs: listContainerLogs() },
  };
  // Exclusive: of two starts racing past reclaimHost, one writes the record and the other is refused here,
  // before it touches anything.
  try {
    writeFileSync(OWNER_FILE, JSON.stringify(owner), { flag: 'wx' });
    runningHere = true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new Error(`another local node is starting (${OWNER_FILE} appeared meanwhile)`);
    throw err;
  }
  const before = hostBefore(owner.before, savedSysctls());
  try {
    run('ip', ['link', 'add', NODE_NETWORK.bridge, 'type', 'bridge']);
    run('ip', ['addr', 'add', `${NODE_NETWORK.address}/${NODE_NETWORK.prefixLength}`, 'dev', NODE_NETWORK.bridge]);
    run('ip', ['link', 'set', NODE_NETWORK.bridge, 'up']);
    sysctl(`net/ipv4/conf/${NODE_NETWORK.bridge}/forwarding`, '1');
    sysctl('net/bridge/bridge-nf-call-iptables', '1');
    iptablesRule('-I', EGRESS_RULE);
    run('iptables', ['-t', 'mangle', '-N', GUARD_CHAIN]);
    run('iptables', ['-t', 'mangle', '-A', GUARD_CHAIN, '-i', 'lo', '-j', 'RETURN']);
    run('iptables', ['-t', 'mangle', '-A', GUARD_CHAIN, '-i', NODE_NETWORK.bridge, '-j', 'RETURN']);
    run('iptables', ['-t', 'mangle', '-A', GUARD_CHAIN, '-j', 'DROP']);
    iptablesRule('-I', GUARD_JUMP);
  } catch (err) {
    const problems = tearDownHost(before, '/nonexistent');
    throw new Error(`setting up the node's network: ${(err as Error).message.split('\n')[0]}${problems.length ? ` (and undoing it: ${problems.join('; ')})` : ''}`);
  }
  return before;
}

/** Undoes setUpHost and everything the node's processes left; answers what it could not undo. */
export function tearDownHost(before: HostBefore, stateDir: string, record = OWNER_FILE): string[] {
  const { step, problems } = steps();
  step('unmount', () => unmountUnder(stateDir));
  for (const name of listNetns()) if (!before.netns.has(name)) step(`netns ${name}`, () => run('ip', ['netns', 'delete', name]));
  if (hasRule(EGRESS_RULE)) step('egress rule', () => iptablesRule('-D', EGRESS_RULE));
  if (hasRule(GUARD_JUMP)) step('guard rule', () => iptablesRule('-D', GUARD_JUMP));
  if (run('iptables-save', ['-t', 'mangle']).includes(`:${GUARD_CHAIN} `)) {
    step('guard chain', () => run('iptables', ['-t', 'mangle', '-F', GUARD_CHAIN]));
    step('guard chain', () => run('iptables', ['-t', 'mangle', '-X', GUARD_CHAIN]));
  }
  for (const command of ['iptables', 'ip6tables'] as const) removeKubeChains(command, step);
  // Once no rule refers to them.
  for (const set of listIpsets()) if (!before.ipsets.has(set) && KUBE_ROUTER_SET.test(set)) step(`ipset ${set}`, () => run('ipset', ['destroy', set]));
  step('bridge', () => existsSync(`/sys/class/net/${NODE_NETWORK.bridge}`) && run('ip', ['link', 'del', NODE_NETWORK.bridge]));
  for (const path of FIXED_PATHS) if (!before.paths.has(path)) step(path, () => rmSync(path, { recursive: true, force: true }));
  for (const link of listContainerLogs()) if (!before.containerLogs.has(link)) step(link, () => rmSync(join(CONTAINER_LOG_LINKS, link), { force: true }));
  const restored = problems.length;
  for (const [name, value] of before.sysctls) step(name, () => sysctl(name, value));
  if (problems.length === restored) step('saved settings', () => rmSync(SAVED_SYSCTLS_FILE, { force: true }));
  // Kept while something is left, so the next start finishes the job.
  if (problems.length === 0) rmSync(record, { force: true });
  if (record === OWNER_FILE) runningHere = false;
  return problems;
}

/**
 * The kubelet's cgroups: whatever still runs in them is killed, then they are removed (the kernel frees a
 * cgroup a moment after its last process, so a busy one is tried again for a few seconds).
 */
export async function removeKubeCgroups(): Promise<string[]> {
  const { step, problems } = steps();
  const roots = readdirSync('/sys/fs/cgroup')
    .map((hierarchy) => join('/sys/fs/cgroup', hierarchy, 'kubepods'))
    .filter((root) => existsSync(root));
  for (const root of roots) for (const pid of cgroupProcs(root)) step(`kill ${pid}`, () => process.kill(pid, 'SIGKILL'));
  for (const root of roots) {
    for (let attempt = 0; ; attempt++) {
      try {
        if (existsSync(root)) removeCgroupTree(root);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EBUSY' || attempt === 50) {
          problems.push(`${root}: ${(err as Error).message}`);
          break;
        }
        await sleep(100);
      }
    }
  }
  return problems;
}

function cgroupProcs(dir: string): number[] {
  const here = readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
  const below = readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? cgroupProcs(join(dir, entry.name)) : []));
  return [...here, ...below];
}

function removeCgroupTree(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) removeCgroupTree(join(dir, entry.name));
  rmdirSync(dir);
}

function listNetns(): string[] {
  return existsSync('/run/netns') ? readdirSync('/run/netns') : [];
}

function listIpsets(): string[] {
  return run('ipset', ['list', '-n']).split('\n').filter(Boolean);
}

function listContainerLogs(): string[] {
  return existsSync(CONTAINER_LOG_LINKS) ? readdirSync(CONTAINER_LOG_LINKS).filter((name) => lstatSync(join(CONTAINER_LOG_LINKS, name)).isSymbolicLink()) : [];
}

function hasRule(rule: string[]): boolean {
  try {
    run('iptables', [...rule.slice(0, 2), '-C', ...rule.slice(2)]);
    return true;
  } catch {
    return false;
  }
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

/** Deletes every KUBE-* chain and the rules that jump to them, table by table, each on its own. */
function removeKubeChains(command: 'iptables' | 'ip6tables', step: (what: string, action: () => void) => void): void {
  let table = '';
  const jumps: string[][] = [];
  const chains: [string, string][] = [];
  for (const line of run(`${command}-save`, []).split('\n')) {
    if (line.startsWith('*')) table = line.slice(1);
    else if (line.startsWith(':') && KUBE_CHAIN.test(line.slice(1))) chains.push([table, line.slice(1).split(' ')[0] ?? '']);
    else if (line.startsWith('-A ') && !KUBE_CHAIN.test(line.split(' ')[1] ?? '') && / -j KUBE-/.test(line)) jumps.push(['-t', table, '-D', ...splitRule(line.slice(3))]);
  }
  for (const rule of jumps) step(`${command} ${rule.join(' ')}`, () => run(command, rule));
  for (const [t, chain] of chains) step(`${command} -t ${t} -F ${chain}`, () => run(command, ['-t', t, '-F', chain]));
  for (const [t, chain] of chains) step(`${command} -t ${t} -X ${chain}`, () => run(command, ['-t', t, '-X', chain]));
}

/** Splits an iptables-save rule into arguments, keeping quoted comments whole. */
function splitRule(rule: string): string[] {
  return [...rule.matchAll(/"((?:[^"\\]|\\.)*)"|(\S+)/g)].map((m) => (m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2]!));
}

/**
 * What the node could leave on the machine, to compare before and after: links, iptables rules and chains of
 * its own (a table iptables loaded on the way stays loaded, empty, which is not the node's doing), ipsets,
 * network namespaces, the fixed paths and the container log links.
 */
export function hostFootprint(): { links: string[]; iptables: string[]; ipsets: string[]; netns: string[]; paths: string[]; containerLogs: string[] } {
  const rules = (command: string) =>
    run(command, [])
      .split('\n')
      .filter((line) => line.startsWith('-A ') || / - \[\d+:\d+\]$/.test(line))
      .map((line) => line.replace(/ \[\d+:\d+\]$/, ''));
  return {
    links: readdirSync('/sys/class/net').sort(),
    iptables: [...rules('iptables-save'), ...rules('ip6tables-save')],
    ipsets: listIpsets().sort(),
    netns: listNetns().sort(),
    paths: FIXED_PATHS.filter((path) => existsSync(path)),
    containerLogs: listContainerLogs().sort(),
  };
}
