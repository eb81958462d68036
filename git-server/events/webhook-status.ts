// The status a `RepositoryWebhook` should have, from what cw-git knows of it: how it resolved (Ready), whether its
// repository exists, and its delivery log's summary (LastDeliverySucceeded, consecutiveFailures, lastDelivery).
// Pure, so every condition is table-tested; the events bridge writes it only when it changed. Messages are stable
// (no times, no ids) and never hold a secret or the URL's path.
import { RepositoryWebhookReasons as Ready, WebhookDeliveryReasons as Delivery, type RepositoryWebhook, type RepositoryWebhookStatus } from '../../src/apis/v1alpha1/repository-webhook.ts';
import { formatTime, setCondition, type Condition, type ConditionUpdate } from '../../src/conditions/index.ts';
import { ANSWER_TIMEOUT_MS } from './delivery-client.ts';
import type { DeliveryLog, DeliveryRecord } from './delivery-log.ts';
import type { WebhookResolution } from './webhook-resolution.ts';

export interface WebhookObservation {
  readonly resolution: WebhookResolution;
  /** False once a catch-up found no such repository; true once one found it; unknown before. */
  readonly repositoryExists?: boolean;
  /** The delivery log as last appended or read; absent when not read yet (the status keeps what it says). */
  readonly log?: DeliveryLog;
}

function readyCondition(hook: RepositoryWebhook, seen: WebhookObservation): ConditionUpdate {
  const { resolution } = seen;
  if (resolution.kind === 'not-ready') return { type: 'Ready', status: 'False', reason: resolution.reason, message: resolution.message };
  if (seen.repositoryExists === false) {
    return { type: 'Ready', status: 'False', reason: Ready.RepositoryNotFound, message: `Repository ${hook.spec.repository} does not exist; its events are delivered once it does.` };
  }
  return { type: 'Ready', status: 'True', reason: Ready.Active, message: `Events of ${hook.spec.repository} are delivered to ${hostOf(hook.spec.url)}.` };
}

function deliveryCondition(last: DeliveryRecord | undefined): ConditionUpdate {
  const type = 'LastDeliverySucceeded';
  if (!last) return { type, status: 'Unknown', reason: Delivery.NoDeliveryYet, message: 'Nothing was delivered yet.' };
  switch (last.outcome) {
    case 'delivered':
      return { type, status: 'True', reason: Delivery.Delivered, message: `The receiver answered ${last.status_code ?? 200}.` };
    case 'rejected':
      return { type, status: 'False', reason: Delivery.Rejected, message: `The receiver answered ${last.status_code ?? 0}; the events are posted again after a backoff.` };
    case 'timeout':
      return { type, status: 'False', reason: Delivery.Timeout, message: `The receiver did not answer within ${ANSWER_TIMEOUT_MS} ms; the events are posted again after a backoff.` };
    case 'unreachable':
      return { type, status: 'False', reason: Delivery.Unreachable, message: `${sentence(last.error ?? 'the receiver is unreachable')} The events are posted again after a backoff.` };
    case 'refused_target':
      return { type, status: 'False', reason: Delivery.TargetRefused, message: sentence(last.error ?? 'delivery refused by the target policy') };
  }
}

const sentence = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}${/[.!?]$/.test(text) ? '' : '.'}`;

/** The URL's host (and port): what the status may show of a URL whose path may hold a token. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

/**
 * The status `hook` should have after `seen`. Conditions keep their transition time while their status holds;
 * what the log does not say yet (not read) is kept as the current status has it.
 */
export function desiredWebhookStatus(hook: RepositoryWebhook, seen: WebhookObservation, now: Date): RepositoryWebhookStatus {
  const current = hook.status ?? {};
  const generation = hook.metadata?.generation;
  let conditions: Condition[] = (current.conditions ?? []) as Condition[];
  conditions = setCondition(conditions, readyCondition(hook, seen), generation, now).conditions;
  const last = seen.log?.last;
  if (seen.log) conditions = setCondition(conditions, deliveryCondition(last), generation, now).conditions;
  else if (!conditions.some((c) => c.type === 'LastDeliverySucceeded')) conditions = setCondition(conditions, deliveryCondition(undefined), generation, now).conditions;
  const host = hostOf(hook.spec.url);
  return {
    conditions,
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
    ...(host ? { urlHost: host } : {}),
    consecutiveFailures: seen.log ? seen.log.consecutiveFailures : (current.consecutiveFailures ?? 0),
    ...(seen.log
      ? last
        ? {
            lastDelivery: {
              id: last.id,
              deliveryId: last.delivery_id,
              time: formatTime(Date.parse(last.at)),
              status: last.outcome === 'delivered' ? ('succeeded' as const) : ('failed' as const),
              seq: String(last.to_seq),
              ...(last.status_code !== undefined ? { httpStatus: last.status_code } : {}),
            },
          }
        : {}
      : current.lastDelivery
        ? { lastDelivery: current.lastDelivery }
        : {}),
  };
}
