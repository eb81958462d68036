// `/api/hooks`: a repository's per-repository webhooks as this instance's events role sees them (`RepositoryWebhook`
// resources, docs/repository-events.md), their delivery logs (`read`), and redelivery of a past delivery
// (`write`: the same payload, rebuilt from the log, posted again with the same delivery id, recorded as a
// redelivery). The resources themselves are managed with kubectl or GitOps, never here.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { PublicError } from '../../src/errors.ts';
import type { DeliveryRecord } from '../events/delivery-log.ts';
import { parseUrlRepoPath } from '../../src/repo-store/index.ts';
import type { RepoApiDependencies } from './dependencies.ts';
import type { RepoParams } from './repo-read.ts';
import { ErrorBodySchema, RepoParamsSchema } from './schemas.ts';

/** One webhook as the events role sees it. */
export interface RepoWebhookView {
  readonly name: string;
  readonly url: string;
  readonly signature: 'service' | 'standard-webhooks';
  readonly active: boolean;
  readonly events: { readonly actions?: readonly string[] | undefined; readonly refs?: readonly string[] | undefined } | undefined;
  readonly ready: { readonly status: boolean; readonly reason: string; readonly message: string };
  readonly consecutiveFailures: number;
  readonly lastDelivery: DeliveryRecord | undefined;
}

/** What the routes need of the events role's per-repository webhooks. */
export interface RepoWebhooksApi {
  /** The webhooks of `repo`, by name. */
  list(repo: string): Promise<readonly RepoWebhookView[]>;
  /** The delivery log of webhook `name` of `repo`, newest first; `undefined`: no such webhook. */
  deliveries(repo: string, name: string): Promise<readonly DeliveryRecord[] | undefined>;
  /**
   * Posts delivery `id` of webhook `name` again: the same payload with the same delivery id, now; answers the new
   * record (`redelivery: true`), whatever the receiver answered. `by`: who asks, whose share of the redeliveries it
   * takes (default the repository's owner). Throws the errors below.
   */
  redeliver(repo: string, name: string, id: number, by?: string): Promise<DeliveryRecord>;
}

const Seq = (description: string) => Type.Integer({ minimum: 0, description });

export const DeliveryRecordBody = Type.Object({
  id: Type.Integer({ minimum: 1, description: 'The record, numbered from 1 per webhook.' }),
  delivery_id: Type.String({ description: 'X-Service-Delivery (and webhook-id): the SHA-1 of the body; the same on every post of the same payload.' }),
  at: Type.String({ description: 'When the post started (ISO 8601).' }),
  repo: Type.String({ description: '`owner/name`' }),
  from_seq: Seq('The seq of the first event posted.'),
  to_seq: Seq('The seq of the last event posted.'),
  events: Type.Integer({ minimum: 0, description: 'Events in the body.' }),
  attempt: Type.Integer({ minimum: 1, description: 'How many times this payload was posted, this post included (as far as the log remembers).' }),
  redelivery: Type.Boolean({ description: 'Posted again on request (POST …/redeliver).' }),
  scheme: Type.Union([Type.Literal('service'), Type.Literal('standard-webhooks')], { description: 'How it was signed.' }),
  outcome: Type.Union([Type.Literal('delivered'), Type.Literal('rejected'), Type.Literal('timeout'), Type.Literal('unreachable'), Type.Literal('refused_target')], {
    description: 'delivered (2xx), rejected (another status), timeout (no answer within 10 s), unreachable, refused_target (the target policy refused the address; nothing was sent).',
  }),
  status_code: Type.Optional(Type.Integer({ description: "The receiver's status, when it answered." })),
  error: Type.Optional(Type.String({ description: 'Why it failed, in one line (never a secret, the URL path or the answer body).' })),
  duration_ms: Type.Integer({ minimum: 0, description: 'From the start of the post to the answer (or the failure).' }),
});

const WebhookBody = Type.Object({
  name: Type.String({ description: 'The RepositoryWebhook resource.' }),
  url_origin: Type.String({ description: "The URL's scheme, host and port (its path may hold a token)." }),
  signature: Type.Union([Type.Literal('service'), Type.Literal('standard-webhooks')]),
  active: Type.Boolean(),
  events: Type.Union([Type.Object({ actions: Type.Optional(Type.Array(Type.String())), refs: Type.Optional(Type.Array(Type.String())) }), Type.Null()], {
    description: 'The event filter; null: every event.',
  }),
  ready: Type.Object(
    { status: Type.Boolean(), reason: Type.String({ description: 'Active, Inactive, SecretNotFound, InvalidSecret, TargetRefused.' }), message: Type.String() },
    { description: 'Whether events are delivered to it, and why not.' },
  ),
  consecutive_failures: Type.Integer({ minimum: 0, description: 'Failed deliveries since the last that succeeded (redeliveries not counted).' }),
  last_delivery: Type.Union([DeliveryRecordBody, Type.Null()], { description: 'The last delivery (redeliveries aside); null before the first.' }),
});
type WebhookBody = Static<typeof WebhookBody>;

const HookParams = Type.Object({ ...RepoParamsSchema.properties, name: Type.String({ minLength: 1, maxLength: 253, description: 'The RepositoryWebhook.' }) });
const DeliveryParams = Type.Object({ ...HookParams.properties, id: Type.String({ pattern: '^[1-9][0-9]{0,15}$', description: 'The record id.' }) });

const NOT_ENABLED = {
  404: Type.Object(ErrorBodySchema.properties, {
    description:
      '`repository_not_found`, `webhook_not_found`, `delivery_not_found`, or `webhooks_not_enabled`: this instance does not deliver per-repository webhooks (no events role, or neither kubernetes.webhook_namespace nor kubernetes.namespace).',
  }),
};

/** 404: the instance has no per-repository webhooks. */
export class WebhooksNotEnabledError extends PublicError {
  override readonly name = 'WebhooksNotEnabledError';
  readonly code = 'webhooks_not_enabled';
  constructor() {
    super(404, 'This instance does not deliver per-repository webhooks: it lacks the events role (server.roles) or kubernetes.webhook_namespace.');
  }
}

/** 404: no webhook of that name for this repository. */
export class WebhookNotFoundError extends PublicError {
  override readonly name = 'WebhookNotFoundError';
  readonly code = 'webhook_not_found';
  constructor(name: string, repo: string) {
    super(404, `No webhook ${JSON.stringify(name)} of ${repo} (RepositoryWebhook resources in cw-git's kubernetes.webhook_namespace whose spec.repository is ${repo}).`);
  }
}

/** 404: no such record in the webhook's delivery log (it keeps the last 50). */
export class DeliveryNotFoundError extends PublicError {
  override readonly name = 'DeliveryNotFoundError';
  readonly code = 'delivery_not_found';
  constructor(id: string, name: string) {
    super(404, `No delivery ${id} in the log of webhook ${JSON.stringify(name)} (it keeps the last 50).`);
  }
}

/** 409: the webhook is not delivered to now (its Secret is missing, its URL refused, it is paused). */
export class WebhookNotReadyError extends PublicError {
  override readonly name = 'WebhookNotReadyError';
  readonly code = 'webhook_not_ready';
  constructor(name: string, reason: string, message: string) {
    super(409, `Webhook ${JSON.stringify(name)} is not delivered to (${reason}): ${message}`);
  }
}

/** 410: log retention retired entries the delivery covered; its payload cannot be rebuilt. */
export class PayloadGoneError extends PublicError {
  override readonly name = 'PayloadGoneError';
  readonly code = 'payload_gone';
  constructor(id: number, fromSeq: number, logStart: number) {
    super(410, `Delivery ${id} covered seq ${fromSeq}, which the log no longer holds (it starts at ${logStart}); backfill with \`cw-git wal ls <repo> --from ${fromSeq}\`.`);
  }
}

/** 409: the payload rebuilt from the log is not the one delivered (the webhook's filter changed, or the repository was replaced). */
export class PayloadChangedError extends PublicError {
  override readonly name = 'PayloadChangedError';
  readonly code = 'payload_changed';
  constructor(id: number) {
    super(409, `Delivery ${id} cannot be posted again as it was: the webhook's event filter changed since, or the repository was deleted and created again.`);
  }
}

/** 429: as many redeliveries as this instance posts at once, or as it posts of one owner's repositories, are under way. */
export class TooManyRedeliveriesError extends PublicError {
  override readonly name = 'TooManyRedeliveriesError';
  readonly code = 'too_many_redeliveries';
  constructor(bound: { readonly limit: number; readonly caller?: string }) {
    super(
      429,
      bound.caller === undefined
        ? `${bound.limit} redeliveries are under way on this instance; retry.`
        : `${bound.caller} has ${bound.limit} redeliveries under way, the most this instance posts for one caller at once; retry.`,
      { 'retry-after': '5' },
    );
  }
}

export function webhookBody(view: RepoWebhookView): WebhookBody {
  let origin = '';
  try {
    origin = new URL(view.url).origin;
  } catch {
    origin = '';
  }
  const events =
    view.events && (view.events.actions || view.events.refs)
      ? { ...(view.events.actions ? { actions: [...view.events.actions] } : {}), ...(view.events.refs ? { refs: [...view.events.refs] } : {}) }
      : null;
  return {
    name: view.name,
    url_origin: origin,
    signature: view.signature,
    active: view.active,
    events,
    ready: { ...view.ready },
    consecutive_failures: view.consecutiveFailures,
    last_delivery: view.lastDelivery ?? null,
  };
}

/** The webhooks' API of `deps`, or 404 `webhooks_not_enabled`; the repository must exist (404 otherwise). */
async function webhooksOf(deps: RepoApiDependencies, params: RepoParams): Promise<{ api: RepoWebhooksApi; repo: string }> {
  const repo = parseUrlRepoPath(params.owner, params.repo).full;
  if (!deps.webhooks) throw new WebhooksNotEnabledError();
  await deps.repos.readHead(repo);
  return { api: deps.webhooks, repo };
}

/** A webhook's delivery log, newest first; `WebhookNotFoundError` when the repository has no such webhook. */
async function deliveryLog(deps: RepoApiDependencies, params: RepoParams & { name: string }) {
  const { api, repo } = await webhooksOf(deps, params);
  const records = await api.deliveries(repo, params.name);
  if (!records) throw new WebhookNotFoundError(params.name, repo);
  return records;
}

export function hooksRoutes(scope: FastifyInstance, deps: RepoApiDependencies): void {
  scope.get('/hooks', {
    config: { scope: 'read' },
    schema: {
      summary: "The repository's webhooks (RepositoryWebhook resources) as this instance's events role sees them",
      params: RepoParamsSchema,
      response: { 200: Type.Array(WebhookBody, { description: 'By name.' }), ...NOT_ENABLED },
    },
    handler: async (request, reply) => {
      const { api, repo } = await webhooksOf(deps, request.params as RepoParams);
      reply.header('cache-control', 'no-store');
      return (await api.list(repo)).map(webhookBody);
    },
  });

  scope.get('/hooks/:name/deliveries', {
    config: { scope: 'read' },
    schema: {
      summary: "A webhook's delivery log: its last 50 deliveries, newest first",
      params: HookParams,
      response: { 200: Type.Array(DeliveryRecordBody), ...NOT_ENABLED },
    },
    handler: async (request, reply) => {
      const records = await deliveryLog(deps, request.params as Static<typeof HookParams>);
      reply.header('cache-control', 'no-store');
      return records;
    },
  });

  scope.get('/hooks/:name/deliveries/:id', {
    config: { scope: 'read' },
    schema: {
      summary: 'One delivery of a webhook',
      params: DeliveryParams,
      response: { 200: DeliveryRecordBody, ...NOT_ENABLED },
    },
    handler: async (request, reply) => {
      const params = request.params as Static<typeof DeliveryParams>;
      const record = (await deliveryLog(deps, params)).find((r) => r.id === Number(params.id));
      if (!record) throw new DeliveryNotFoundError(params.id, params.name);
      reply.header('cache-control', 'no-store');
      return record;
    },
  });

  scope.post('/hooks/:name/deliveries/:id/redeliver', {
    config: { scope: 'write' },
    schema: {
      summary: 'Post a past delivery again: the same payload (rebuilt from the log) with the same delivery id, recorded as a redelivery; answers its record',
      params: DeliveryParams,
      response: {
        201: Type.Object(DeliveryRecordBody.properties, { description: 'The new record (`redelivery: true`), whatever the receiver answered.' }),
        ...NOT_ENABLED,
        409: Type.Object(ErrorBodySchema.properties, { description: '`webhook_not_ready` (its Secret, URL or `active` stop delivery) or `payload_changed` (its filter changed since).' }),
        410: Type.Object(ErrorBodySchema.properties, { description: '`payload_gone`: log retention retired the entries the delivery covered.' }),
        429: Type.Object(ErrorBodySchema.properties, {
          description: '`too_many_redeliveries` under way on this instance (4), or asked for by the caller (2, whatever the repositories); `Retry-After`.',
        }),
      },
    },
    handler: async (request, reply) => {
      const params = request.params as Static<typeof DeliveryParams>;
      const { api, repo } = await webhooksOf(deps, params);
      const record = await api.redeliver(repo, params.name, Number(params.id), request.gitPrincipal?.name);
      return reply.code(201).header('cache-control', 'no-store').send(record);
    },
  });
}
