import { describe, expect, it } from 'vitest';
import { internetService, renderDispatcherConfig, type DispatcherConfigInput } from './config.ts';

const input: DispatcherConfigInput = {
  assets: [],
  table: { hosts: {}, apps: {}, retryAfter: '1' },
  entrySocket: 'unix:/run/e.sock',
  controlSocket: 'unix:/run/c.sock',
  runtimeService: 'unix:/run/r.sock',
  affinityKey: '00'.repeat(32),
};

describe("apps' outbound network", () => {
  it("is workerd's default when nothing else is allowed: public addresses, browsers' CAs", () => {
    expect(internetService()).toBe('    (name = "internet", network = (allow = ["public"], tlsOptions = (trustBrowserCas = true)))');
  });

  it('adds exactly the addresses given to the public ones', () => {
    expect(internetService(['127.0.0.2/32', 'fd00::5/128'])).toBe('    (name = "internet", network = (allow = ["public", "127.0.0.2/32", "fd00::5/128"], tlsOptions = (trustBrowserCas = true)))');
    // Denied wins over allowed in workerd's filter (tried: an allowed address also denied is refused).
    expect(internetService(['127.0.0.2/32'], ['64:ff9b:1::/48'])).toBe(
      '    (name = "internet", network = (allow = ["public", "127.0.0.2/32"], deny = ["64:ff9b:1::/48"], tlsOptions = (trustBrowserCas = true)))',
    );
    // A bare address is one workerd refuses (and then serves nothing: found in review): it is given its one-address prefix.
    expect(internetService([], ['198.51.100.7', '2001:db8::7'])).toBe(
      '    (name = "internet", network = (allow = ["public"], deny = ["198.51.100.7/32", "2001:db8::7/128"], tlsOptions = (trustBrowserCas = true)))',
    );
  });

  it('is the one internet service of the generated config, which no worker overrides with a globalOutbound of its own', () => {
    const { text } = renderDispatcherConfig({ ...input, outboundAllow: ['10.96.0.20/32'] });
    expect(text.match(/name = "internet"/g)).toHaveLength(1);
    expect(text).toContain('allow = ["public", "10.96.0.20/32"]');
    expect(text).not.toContain('globalOutbound');
    expect(renderDispatcherConfig(input).text).toContain('allow = ["public"]');
  });
});
