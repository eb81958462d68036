import { describe, expect, it } from 'vitest';
import { latency, percent, shortCount, sparkline, trafficLine } from './metrics-format.ts';

describe('traffic figures', () => {
  it('shortens counts, rounds ratios and latencies, and says – without requests', () => {
    expect([0, 950, 1000, 7249, 13_400, 1_450_000].map(shortCount)).toEqual(['0', '950', '1k', '7.2k', '13k', '1.5M']);
    expect([0, 0.003, 0.0525, 0.5, null].map(percent)).toEqual(['0 %', '0.3 %', '5.3 %', '50 %', '–']);
    expect([4.24, 20.4, 1234, null].map(latency)).toEqual(['4.2 ms', '20 ms', '1234 ms', '–']);
    expect(trafficLine({ requests: 7200, error_ratio: 0.003, p95_ms: 20 })).toBe('requests 7.2k · errors 0.3 % · p95 20 ms');
  });

  it('draws a sparkline scaled to the largest value', () => {
    expect(sparkline([0, 1, 2, 4, 8])).toBe('▁▂▃▅█');
    expect(sparkline([0, 0])).toBe('▁▁');
  });
});
