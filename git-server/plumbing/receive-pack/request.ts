// The head of a receive-pack request (gitprotocol-pack, "Reference Update Request"): shallow lines, the ref
// update commands with the client's capabilities on the first, a flush, push options and a flush when the
// client asked for them. What follows is the pack.
import { PktLineError, pktText, type PktReader } from '../pkt-line.ts';

export interface RefCommand {
  readonly old: string;
  readonly new: string;
  readonly ref: string;
}

export interface ReceivePackRequest {
  readonly commands: readonly RefCommand[];
  readonly capabilities: ReadonlySet<string>;
  readonly pushOptions: readonly string[];
  /** Commits the (shallow) client has no parents of. */
  readonly shallow: readonly string[];
}

/** Bounds, so a request cannot make the server hold unbounded state. */
export const MAX_COMMANDS = 10_000;
export const MAX_SHALLOW = 10_000;
export const MAX_PUSH_OPTIONS = 100;
/** git's own limit on a ref name (refs.ts checks the same); longer is refused while reading. */
const MAX_REF_LENGTH = 1024;

const COMMAND = /^([0-9a-f]{40}|[0-9a-f]{64}) ([0-9a-f]{40}|[0-9a-f]{64}) (\S+)$/;

/** Reads the commands and push options; the reader is left at the start of the pack. */
export async function readReceivePackRequest(reader: PktReader): Promise<ReceivePackRequest | undefined> {
  const commands: RefCommand[] = [];
  const shallow: string[] = [];
  let capabilities = new Set<string>();
  for (;;) {
    const pkt = await reader.next();
    if (pkt === undefined) {
      // An empty body is how a client with nothing to update says so; anything else ended too early.
      if (commands.length === 0 && shallow.length === 0) return undefined;
      throw new PktLineError('the request ends before the flush after the commands');
    }
    if (pkt.kind === 'flush') break;
    if (pkt.kind !== 'data') throw new PktLineError('unexpected delimiter in the ref update commands');
    let line = pktText(pkt) ?? '';
    if (commands.length === 0) {
      const nul = line.indexOf('\0');
      if (nul >= 0) {
        capabilities = new Set(
          line
            .slice(nul + 1)
            .split(' ')
            .filter(Boolean),
        );
        line = line.slice(0, nul);
      }
    }
    const shallowMatch = /^shallow ([0-9a-f]{40}|[0-9a-f]{64})$/.exec(line);
    if (shallowMatch && commands.length === 0) {
      shallow.push(shallowMatch[1]!);
      if (shallow.length > MAX_SHALLOW) throw new PktLineError(`more than ${MAX_SHALLOW} shallow lines in one push`);
      continue;
    }
    const match = COMMAND.exec(line);
    if (!match) throw new PktLineError(`"${line.slice(0, 200)}" is not a ref update command`);
    if (match[3]!.length > MAX_REF_LENGTH) throw new PktLineError(`a ref name is longer than ${MAX_REF_LENGTH} characters`);
    commands.push({ old: match[1]!, new: match[2]!, ref: match[3]! });
    if (commands.length > MAX_COMMANDS) throw new PktLineError(`more than ${MAX_COMMANDS} ref updates in one push`);
  }
  // A lone flush is git's probe before a large chunked push ("probe_rpc"): answer it with nothing.
  if (commands.length === 0) return undefined;
  const pushOptions: string[] = [];
  if (capabilities.has('push-options')) {
    for (;;) {
      const pkt = await reader.next();
      if (pkt === undefined) throw new PktLineError('the request ends inside the push options');
      if (pkt.kind === 'flush') break;
      const option = pktText(pkt);
      if (option === undefined) throw new PktLineError('unexpected delimiter in the push options');
      if (option.length > MAX_REF_LENGTH) throw new PktLineError(`a push option is longer than ${MAX_REF_LENGTH} characters`);
      pushOptions.push(option);
      if (pushOptions.length > MAX_PUSH_OPTIONS) throw new PktLineError(`more than ${MAX_PUSH_OPTIONS} push options`);
    }
  }
  return { commands, capabilities, pushOptions, shallow };
}
