import { describe, expect, it } from 'vitest';
import { fromResourceRecordSet, toResourceRecordSet } from './route53-provider.ts';

describe('Route 53 record sets', () => {
  it('writes absolute names and quoted TXT strings', () => {
    expect(toResourceRecordSet({ name: 'example.com', type: 'TXT', ttl: 300, values: ['v=spf1 -all', 'say "hi"'] })).toEqual({
      Name: 'example.com.',
      Type: 'TXT',
      TTL: 300,
      ResourceRecords: [{ Value: '"v=spf1 -all"' }, { Value: '"say \\"hi\\""' }],
    });
  });

  it('reads escaped names, octal TXT escapes and non-canonical values into the port form', () => {
    expect(fromResourceRecordSet({ Name: '\\052.Example.com.', Type: 'CNAME', TTL: 60, ResourceRecords: [{ Value: 'Target.Example.NET.' }] })).toEqual({
      name: '*.example.com',
      type: 'CNAME',
      ttl: 60,
      values: ['target.example.net'],
    });
    expect(fromResourceRecordSet({ Name: 'example.com.', Type: 'TXT', TTL: 300, ResourceRecords: [{ Value: '"a" "b\\303\\274"' }] }).values).toEqual(['abü']);
  });

  it('marks alias and routing-policy record sets as provider-specific', () => {
    expect(fromResourceRecordSet({ Name: 'example.com.', Type: 'A', AliasTarget: { DNSName: 'd111.cloudfront.net.', HostedZoneId: 'Z2', EvaluateTargetHealth: false } })).toEqual({
      name: 'example.com',
      type: 'A',
      ttl: 0,
      values: ['d111.cloudfront.net'],
      providerSpecific: true,
    });
    expect(fromResourceRecordSet({ Name: 'w.example.com.', Type: 'A', TTL: 60, SetIdentifier: 'blue', Weight: 10, ResourceRecords: [{ Value: '192.0.2.1' }] }).providerSpecific).toBe(true);
  });
});
