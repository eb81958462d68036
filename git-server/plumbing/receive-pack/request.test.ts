import { describe, expect, it } from 'vitest';
import { FLUSH, PktLineError, PktReader, pktLine } from '../pkt-line.ts';
import { readReceivePackRequest } from './request.ts';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const Z = '0'.repeat(40);

async function* once(bytes: Buffer): AsyncGenerator<Buffer> {
  yield bytes;
}

const read = (...parts: Buffer[]) => readReceivePackRequest(new PktReader(once(Buffer.concat(parts))));

describe('readReceivePackRequest', () => {
  it('reads commands, the capabilities of the first, and push options', async () => {
    const request = await read(pktLine(`${Z} ${A} refs/heads/main\0report-status-v2 side-band-64k push-options atomic\n`), pktLine(`${A} ${Z} refs/heads/old\n`), FLUSH, pktLine('ci.skip\n'), FLUSH);
    expect(request?.commands).toEqual([
      { old: Z, new: A, ref: 'refs/heads/main' },
      { old: A, new: Z, ref: 'refs/heads/old' },
    ]);
    expect([...request!.capabilities]).toEqual(['report-status-v2', 'side-band-64k', 'push-options', 'atomic']);
    expect(request?.pushOptions).toEqual(['ci.skip']);
  });

  it('collects shallow lines before the commands', async () => {
    const request = await read(pktLine(`shallow ${B}\n`), pktLine(`${A} ${B} refs/heads/main\0report-status\n`), FLUSH);
    expect(request?.shallow).toEqual([B]);
    expect(request?.commands).toHaveLength(1);
  });

  it('answers undefined for an empty body and refuses malformed commands', async () => {
    expect(await read()).toBeUndefined();
    await expect(read(pktLine('not a command\n'), FLUSH)).rejects.toThrow(PktLineError);
    await expect(read(pktLine(`${A} ${B} refs/heads/main\n`))).rejects.toThrow(/flush/);
    expect(await read(FLUSH)).toBeUndefined(); // git's probe before a large push
    await expect(read(pktLine(`${A} ${B} refs/heads/${'x'.repeat(1100)}\n`), FLUSH)).rejects.toThrow(/longer than 1024/);
    const shallows = Array.from({ length: 10_001 }, () => pktLine(`shallow ${A}\n`));
    await expect(read(...shallows, pktLine(`${A} ${B} refs/heads/main\n`), FLUSH)).rejects.toThrow(/shallow lines/);
  });
});
