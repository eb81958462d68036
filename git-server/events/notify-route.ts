// `POST /_events/notify` (spec "Wake-ups"): a storage notification, `{key}` or `{repo}` wakes the bridge for the
// repositories whose manifests it names; the answer comes once they are caught up: 200 with what each catch-up
// did, or 503 when a delivery failed (the caller, MinIO's webhook target for one, retries; so does the bridge).
// The answer is the spec's webhook's: per-repository webhooks and the push mark are woken too, in the background
// (the webhooks' status and delivery logs say how they went), so a slow receiver of theirs never delays the notifier.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { repositoriesToWake } from './wake-up.ts';
import { ErrorBodySchema } from '../repo-api/schemas.ts';
import { sendError } from '../errors.ts';
import type { WakeResult } from './bridge.ts';

/** What the route needs of the bridges. */
export interface EventsWaker {
  readonly draining: boolean;
  /** Catches `repo` up for the spec's webhook; absent when `events.webhook_url` is not set. */
  wake?(repo: string): Promise<WakeResult>;
  /** Starts catching `repo` up for its per-repository webhooks; absent without them. */
  wakeWebhooks?(repo: string): void;
  /** Starts raising `repo`'s push mark on its Repository resource; absent without the Kubernetes directory. */
  wakeMarks?(repo: string): void;
}

const Seq = Type.Integer({ minimum: 0 });

export const NotifyResult = Type.Object({
  repo: Type.String({ description: '`owner/repo`' }),
  from_seq: Type.Integer({ minimum: 1, description: 'The first seq this wake-up had to deliver: the cursor as found, plus one.' }),
  head_seq: Seq,
  emitted: Type.Integer({ minimum: 0, description: 'Events the webhook acknowledged (2xx) in this wake-up.' }),
  gap: Type.Optional(
    Type.Object(
      { from_seq: Seq, to_seq: Seq },
      { description: 'Entries log retention retired before they were delivered: skipped, counted in events_bridge_gap_total. Backfill with `cw-git wal ls`.' },
    ),
  ),
});
type NotifyResult = Static<typeof NotifyResult>;

const NotifyBody = Type.Union(
  [
    Type.Object({ Records: Type.Array(Type.Unknown()) }, { description: 'A storage notification (S3 event format, as MinIO and S3 send): `Records[].s3.object.key`, URL-encoded.' }),
    Type.Object({ key: Type.String() }, { description: 'An object key, such as `repos/acme/site/manifest.json`.' }),
    Type.Object({ repo: Type.String() }, { description: 'A repository, `owner/repo`.' }),
  ],
  { description: 'Only keys `repos/<owner>/<repo>/manifest.json` wake a repository; other keys are ignored.' },
);

const FailedBody = Type.Object(
  {
    ...ErrorBodySchema.properties,
    results: Type.Array(NotifyResult, { description: 'The catch-ups that ran, as in the 200 answer (a failed one may have delivered earlier batches).' }),
    failed: Type.Array(Type.Object({ repo: Type.String(), reason: Type.String(), retry_in_ms: Type.Optional(Type.Integer({ minimum: 0 })) })),
  },
  { description: 'A delivery failed (`delivery_failed`) or the instance is shutting down (`draining`); `Retry-After` says when to come back.' },
);

function resultOf(result: WakeResult): NotifyResult | undefined {
  const report = result.report;
  if (!report) return undefined;
  return {
    repo: report.repo,
    from_seq: report.fromSeq,
    head_seq: report.headSeq,
    emitted: report.emitted,
    ...(report.gap ? { gap: { from_seq: report.gap.fromSeq, to_seq: report.gap.toSeq } } : {}),
  };
}

/** Registers the route; `waker` is absent on an instance that does not deliver events (answers 404). */
export function eventsNotifyRoute(app: FastifyInstance, waker: EventsWaker | undefined): void {
  app.post(
    '/_events/notify',
    {
      // A wake-up makes this instance post to the webhook: not for read-only tokens.
      config: { scope: 'write' },
      schema: {
        summary: 'Wake the events bridge for the repositories a storage notification, {key} or {repo} names; answers once they are delivered',
        body: NotifyBody,
        response: {
          200: Type.Array(NotifyResult, { description: 'One item per repository woken (a repository that does not exist is left out).' }),
          400: Type.Object(ErrorBodySchema.properties, { description: 'Not one of the three bodies (`invalid_request`).' }),
          404: Type.Object(ErrorBodySchema.properties, {
            description:
              'This instance does not deliver events (`events_not_enabled`): no `events` role, or neither `events.webhook_url` nor per-repository webhooks (`kubernetes.webhook_namespace`).',
          }),
          503: FailedBody,
        },
      },
    },
    async (request, reply) => {
      if (!waker) {
        return sendError(
          reply,
          404,
          'events_not_enabled',
          'This instance does not deliver events: it lacks the events role (server.roles), or both events.webhook_url and kubernetes.webhook_namespace.',
        );
      }
      const wanted = repositoriesToWake(request.body);
      if ('error' in wanted) return sendError(reply, 400, 'invalid_request', wanted.error);
      if (waker.draining) return sendError(reply, 503, 'draining', 'This instance is shutting down; retry.', { 'retry-after': '15' }, { results: [], failed: [] });
      for (const repo of wanted.repos) {
        waker.wakeMarks?.(repo);
        waker.wakeWebhooks?.(repo);
      }
      const wake = waker.wake?.bind(waker);
      if (!wake) return reply.send([]);
      const woken = await Promise.all(wanted.repos.map((repo) => wake(repo)));
      const results = woken.flatMap((r) => resultOf(r) ?? []);
      const failed = woken.filter((r) => r.outcome !== 'delivered' && r.outcome !== 'gone');
      if (failed.length === 0) return reply.send(results);
      const retryMs = Math.max(1000, ...failed.map((r) => r.retryInMs ?? 0));
      const first = failed[0] as WakeResult;
      return sendError(
        reply,
        503,
        'delivery_failed',
        `Events of ${failed.length === 1 ? first.repo : `${failed.length} repositories`} were not delivered: ${first.reason ?? first.outcome}.`,
        { 'retry-after': String(Math.min(300, Math.ceil(retryMs / 1000))) },
        { results, failed: failed.map((r) => ({ repo: r.repo, reason: r.reason ?? r.outcome, ...(r.retryInMs !== undefined ? { retry_in_ms: r.retryInMs } : {}) })) },
      );
    },
  );
}
