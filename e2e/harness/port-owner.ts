// Whose listener answers on a port. `freePort()` hands out a port that was free a moment ago, and the service it
// was picked for listens only once it has started (seconds under load, cw-api only after its caches are filled):
// meanwhile another test's server may take the port, and a readiness poll would take its answers for the
// service's. On Linux, /proc/net/tcp{,6} name the listening socket's inode and /proc/<pid>/fd the sockets each
// process holds, so the listener can be matched to the service's process tree.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { processTree, readOr } from './process-memory.ts';

/** `ours`: a process of the tree rooted at the pid listens; `another`: someone else does; `unknown`: no /proc to tell. */
export type PortOwner = 'ours' | 'another' | 'unknown';

export function portOwner(pid: number, port: number): PortOwner {
  const inodes = listeningInodes(port);
  if (inodes === undefined || inodes.size === 0) return 'unknown';
  return processTree(pid).some((p) => holdsSocket(p, inodes)) ? 'ours' : 'another';
}

/** The inodes of the TCP sockets listening on `port` (any address); `undefined` without /proc. */
function listeningInodes(port: number): Set<string> | undefined {
  const inodes = new Set<string>();
  let readable = false;
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let table: string;
    try {
      table = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    readable = true;
    // sl local_address rem_address st ... inode: the address is HEX_IP:HEX_PORT, state 0A is LISTEN.
    for (const line of table.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const local = fields[1]?.split(':')[1];
      if (fields[3] === '0A' && local !== undefined && Number.parseInt(local, 16) === port && fields[9]) inodes.add(fields[9]);
    }
  }
  return readable ? inodes : undefined;
}

function holdsSocket(pid: number, inodes: Set<string>): boolean {
  return readOr(() => readdirSync(`/proc/${pid}/fd`), []).some((fd) => {
    const inode = /^socket:\[(\d+)\]$/.exec(readOr(() => readlinkSync(`/proc/${pid}/fd/${fd}`), ''))?.[1];
    return inode !== undefined && inodes.has(inode);
  });
}
