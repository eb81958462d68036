import { describe, expect, it } from 'vitest';
import type { RepositoryWebhook } from '../../src/apis/v1alpha1/repository-webhook.ts';
import { EMPTY_LOG, recordOf, withRecord, type DeliveryLog } from './delivery-log.ts';
import { deliveryTarget } from './delivery-target.ts';
import { desiredWebhookStatus } from './webhook-status.ts';
import type { WebhookResolution } from './webhook-resolution.ts';

const now = new Date('2030-01-02T03:04:05Z');
const hook = (status?: RepositoryWebhook['status']): RepositoryWebhook => ({
  metadata: { namespace: 'cw', name: 'h', uid: 'u', generation: 3 },
  spec: { repository: 'acme/site', url: 'https://hooks.example.com:8443/t/SECRET-PATH', secretRef: { name: 's', key: 'k' } },
  ...(status ? { status } : {}),
});
const ready: WebhookResolution = { kind: 'ready', target: deliveryTarget({ id: 'hook:cw/h', url: 'https://hooks.example.com:8443/t/SECRET-PATH', cursorKey: () => 'c' }) };
const logOf = (...outcomes: ('delivered' | 'rejected' | 'unreachable')[]): DeliveryLog =>
  outcomes.reduce(
    (log, kind, i) =>
      withRecord(
        log,
        recordOf(
          { deliveryId: `d${i}`, at: now, repo: 'acme/site', seqs: [i + 1], scheme: 'service', redelivery: false },
          kind === 'unreachable' ? { kind, reason: 'ECONNREFUSED', durationMs: 1 } : { kind, status: kind === 'delivered' ? 204 : 503, durationMs: 1, responseBytes: 0 },
        )!,
      ).log,
    EMPTY_LOG,
  );
const condition = (status: ReturnType<typeof desiredWebhookStatus>, type: string) => status.conditions?.find((c) => c.type === type);

describe('desiredWebhookStatus', () => {
  it('reports a ready webhook before any delivery, showing the host and never the path', () => {
    const status = desiredWebhookStatus(hook(), { resolution: ready, log: EMPTY_LOG }, now);
    expect(condition(status, 'Ready')).toMatchObject({ status: 'True', reason: 'Active', observedGeneration: 3 });
    expect(condition(status, 'LastDeliverySucceeded')).toMatchObject({ status: 'Unknown', reason: 'NoDeliveryYet' });
    expect(status).toMatchObject({ observedGeneration: 3, urlHost: 'hooks.example.com:8443', consecutiveFailures: 0 });
    expect(JSON.stringify(status)).not.toContain('SECRET-PATH');
  });

  it('counts failures and shows the last delivery; a success resets the count', () => {
    const failing = desiredWebhookStatus(hook(), { resolution: ready, log: logOf('delivered', 'rejected', 'unreachable') }, now);
    expect(condition(failing, 'LastDeliverySucceeded')).toMatchObject({
      status: 'False',
      reason: 'Unreachable',
      message: 'The webhook is unreachable (ECONNREFUSED). The events are posted again after a backoff.',
    });
    expect(failing).toMatchObject({ consecutiveFailures: 2, lastDelivery: { id: 3, deliveryId: 'd2', status: 'failed', seq: '3', time: '2030-01-02T03:04:05Z' } });
    const recovered = desiredWebhookStatus(hook(failing), { resolution: ready, log: logOf('delivered', 'rejected', 'unreachable', 'delivered') }, new Date('2030-01-02T04:00:00Z'));
    expect(condition(recovered, 'LastDeliverySucceeded')).toMatchObject({ status: 'True', reason: 'Delivered', message: 'The receiver answered 204.', lastTransitionTime: '2030-01-02T04:00:00Z' });
    expect(recovered).toMatchObject({ consecutiveFailures: 0, lastDelivery: { id: 4, status: 'succeeded', httpStatus: 204 } });
    // The same observation again writes the same status: the transition time holds.
    expect(desiredWebhookStatus(hook(recovered), { resolution: ready, log: logOf('delivered', 'rejected', 'unreachable', 'delivered') }, new Date('2030-01-03T00:00:00Z'))).toEqual(recovered);
  });

  it('says why a webhook is not delivered, and that a repository is missing', () => {
    const held = desiredWebhookStatus(hook(), { resolution: { kind: 'not-ready', reason: 'SecretNotFound', message: 'Secret s is not found.' } }, now);
    expect(condition(held, 'Ready')).toMatchObject({ status: 'False', reason: 'SecretNotFound', message: 'Secret s is not found.' });
    const missing = desiredWebhookStatus(hook(), { resolution: ready, repositoryExists: false }, now);
    expect(condition(missing, 'Ready')).toMatchObject({ status: 'False', reason: 'RepositoryNotFound' });
  });

  it('keeps what the status says of deliveries while the log is not read', () => {
    const before = desiredWebhookStatus(hook(), { resolution: ready, log: logOf('rejected') }, now);
    const after = desiredWebhookStatus(hook(before), { resolution: ready }, now);
    expect(after).toEqual(before);
  });
});
