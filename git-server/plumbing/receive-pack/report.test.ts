import { describe, expect, it } from 'vitest';
import { PktReader, pktText } from '../pkt-line.ts';
import { reportBody } from './report.ts';

async function* once(bytes: Buffer): AsyncGenerator<Buffer> {
  yield bytes;
}

async function lines(body: Buffer): Promise<(string | undefined)[]> {
  const reader = new PktReader(once(body));
  const out = [];
  for (let pkt = await reader.next(); pkt; pkt = await reader.next()) out.push(pkt.kind === 'data' ? pktText(pkt) : pkt.kind);
  return out;
}

const report = {
  unpack: 'ok',
  commands: [
    { ref: 'refs/heads/main', ok: true as const },
    { ref: 'refs/heads/x', ok: false as const, reason: 'fetch first\nnow' },
  ],
};

describe('reportBody', () => {
  it('writes unpack status, one line per command and a flush', async () => {
    expect(await lines(reportBody(report, false))).toEqual(['unpack ok', 'ok refs/heads/main', 'ng refs/heads/x fetch first now', 'flush']);
  });

  it('wraps the report in band 1 after band-2 progress, closed by a flush', async () => {
    const outer = await lines(reportBody(report, true, ['published']));
    expect(outer.at(-1)).toBe('flush');
    expect(outer[0]).toBe('\u0002published');
    const inner = Buffer.from(outer[1]!.slice(1), 'latin1');
    expect(inner.toString()).toContain('000eunpack ok\n');
  });
});
