import { Type, type Static } from 'typebox';
import type { CustomResource, KindDescriptor } from '../kind-descriptor.ts';
import { Conditions, ObservedGeneration } from './conditions.ts';
import { CATEGORY } from './group-version.ts';
import { DnsSubdomain, Timestamp } from './strings.ts';

// A per-repository webhook of the repository service (docs/repository-events.md, "Per-repository webhooks").
// The spec is the user's; cw-git's events bridge is the one writer of the status. Lives in cw-git's
// `kubernetes.webhook_namespace` (the chart's `<release namespace>-webhooks`), beside the Secret holding its
// signing key and apart from every other Secret.

// `owner/name`: two segments of the repository store's rule (repository.ts says it in full).
const SEGMENT = '[A-Za-z0-9_](\\.?[A-Za-z0-9_-])*';

/** The repository whose events the webhook receives. */
export const WebhookRepository = Type.String({
  minLength: 3,
  maxLength: 201,
  pattern: `^${SEGMENT}/${SEGMENT}$`,
  description: 'The repository, owner/name (case-sensitive), as in its URL.',
  'x-kubernetes-validations': [{ rule: "!self.endsWith('.git') && !self.contains('.git/')", message: 'a segment must not end with .git (the URL adds it)' }],
});

// An absolute http(s) URL whose authority holds no user information ('@'): a webhook URL carries no credentials.
// RE2 and JavaScript read it alike.
const WEBHOOK_URL_PATTERN = '^https?://[^/?#@\\s]+([/?#][^\\s]*)?$';

/** Where the events are posted. */
export const WebhookUrl = Type.String({
  minLength: 8,
  maxLength: 2048,
  pattern: WEBHOOK_URL_PATTERN,
  description:
    'Where the events are posted: an absolute http or https URL without credentials. Its host must not resolve to an internal address ' + "unless cw-git's events.allow_private_targets says so.",
});

/** A key of a Secret's data. */
const SecretKey = Type.String({ minLength: 1, maxLength: 253, pattern: '^[-._a-zA-Z0-9]+$', description: "A key of the Secret's data." });

export const WebhookSecretRef = Type.Object(
  {
    name: DnsSubdomain({ description: 'The Secret, in the namespace of this resource. It must carry the label cloudwright.dev/webhook-secret: "true".' }),
    key: SecretKey,
  },
  { description: 'The signing key: one key of a Secret in this namespace. Never shown in the status, logs or the delivery log.' },
);

export const WebhookAction = Type.Union([Type.Literal('create'), Type.Literal('update'), Type.Literal('delete')], { description: 'A ref event action.' });
export type WebhookAction = Static<typeof WebhookAction>;

/** A full ref name with `*` (any characters but `/`) and `**` (any characters) as wildcards. */
export const RefPattern = Type.String({
  minLength: 1,
  maxLength: 256,
  pattern: '^refs/[^\\s\\x00-\\x1F\\x7F]*$',
  description: 'A full ref name pattern: * matches any characters but /, ** any characters. refs/heads/* (branches one level deep), refs/heads/** (every branch), refs/tags/v*.',
});

export const WebhookEventFilter = Type.Object(
  {
    actions: Type.Optional(Type.Array(WebhookAction, { minItems: 1, maxItems: 3, uniqueItems: true, description: 'The actions delivered; absent: all three.' })),
    refs: Type.Optional(Type.Array(RefPattern, { minItems: 1, maxItems: 32, uniqueItems: true, description: 'Ref name patterns; an event is delivered when its ref matches one. Absent: every ref.' })),
  },
  { description: 'Which events are delivered: those whose action is listed and whose ref matches a pattern (both must hold). Absent: every event.' },
);
export type WebhookEventFilter = Static<typeof WebhookEventFilter>;

export const WebhookSignatureScheme = Type.Union([Type.Literal('service'), Type.Literal('standard-webhooks')], {
  description:
    'How posts are signed: service (X-Service-Signature, sha256= hex HMAC of the body, as the global webhook) or standard-webhooks ' +
    '(webhook-id, webhook-timestamp, webhook-signature: v1,<base64 HMAC of id.timestamp.body>, with a whsec_<base64> secret).',
});
export type WebhookSignatureScheme = Static<typeof WebhookSignatureScheme>;

export const RepositoryWebhookSpec = Type.Object({
  repository: WebhookRepository,
  url: WebhookUrl,
  secretRef: WebhookSecretRef,
  events: Type.Optional(WebhookEventFilter),
  signature: Type.Optional(Type.With(WebhookSignatureScheme, { default: 'service' })),
  active: Type.Optional(
    Type.Boolean({
      default: true,
      description: 'false pauses delivery: the webhook keeps its place in the log, and setting it back to true delivers what was published meanwhile.',
    }),
  ),
});
export type RepositoryWebhookSpec = Static<typeof RepositoryWebhookSpec>;

/** A WAL sequence number as a decimal string (a 64-bit counter). */
const Seq = (description: string) => Type.String({ maxLength: 20, pattern: '^(0|[1-9][0-9]*)$', description });

export const WebhookDeliveryStatus = Type.Union([Type.Literal('succeeded'), Type.Literal('failed')], { description: 'succeeded (a 2xx answer) or failed.' });

export const RepositoryWebhookStatus = Type.Object({
  conditions: Type.Optional(Conditions),
  observedGeneration: Type.Optional(ObservedGeneration),
  urlHost: Type.Optional(Type.String({ maxLength: 253, description: "The URL's host (the URL itself may carry a token in its path)." })),
  consecutiveFailures: Type.Optional(Type.Integer({ minimum: 0, format: 'int64', description: 'Failed deliveries since the last one that succeeded (redeliveries not counted).' })),
  lastDelivery: Type.Optional(
    Type.Object(
      {
        id: Type.Integer({ minimum: 1, format: 'int64', description: 'The record in the delivery log (GET /{owner}/{repo}/api/hooks/{name}/deliveries/{id}).' }),
        deliveryId: Type.String({ maxLength: 64, description: 'X-Service-Delivery (and webhook-id): the SHA-1 of the body.' }),
        time: Timestamp({ description: 'When the post started.' }),
        status: WebhookDeliveryStatus,
        seq: Seq('The last log entry the post covered.'),
        httpStatus: Type.Optional(Type.Integer({ minimum: 100, maximum: 599, description: "The receiver's answer, when there was one." })),
      },
      { description: 'The last delivery (redeliveries aside).' },
    ),
  ),
});
export type RepositoryWebhookStatus = Static<typeof RepositoryWebhookStatus>;

/** Condition types of a RepositoryWebhook. */
export const RepositoryWebhookConditions = {
  /** cw-git delivers to it: its Secret is found and usable, its URL allowed, it is active. */
  Ready: 'Ready',
  /** How the last delivery ended. */
  LastDeliverySucceeded: 'LastDeliverySucceeded',
} as const;

/** Reasons of `Ready` (stable: alerts key on them). */
export const RepositoryWebhookReasons = {
  /** True: events are delivered. */
  Active: 'Active',
  /** False: `spec.active` is false. */
  Inactive: 'Inactive',
  /** False: the Secret (labelled for webhooks) or its key does not exist. */
  SecretNotFound: 'SecretNotFound',
  /** False: the Secret's value cannot sign (empty, or not a whsec_ key of 24 to 64 bytes for standard-webhooks). */
  InvalidSecret: 'InvalidSecret',
  /** False: the URL's host resolves to an address the target policy refuses. */
  TargetRefused: 'TargetRefused',
  /** False: the repository does not exist (yet). */
  RepositoryNotFound: 'RepositoryNotFound',
} as const;

/** Reasons of `LastDeliverySucceeded`. */
export const WebhookDeliveryReasons = {
  /** Unknown: nothing delivered yet. */
  NoDeliveryYet: 'NoDeliveryYet',
  /** True: the receiver answered 2xx. */
  Delivered: 'Delivered',
  /** False: the receiver answered another status (a redirect included: never followed). */
  Rejected: 'Rejected',
  /** False: no answer within 10 s. */
  Timeout: 'Timeout',
  /** False: the host did not resolve, refused or reset the connection. */
  Unreachable: 'Unreachable',
  /** False: the host resolved to an address the target policy refuses; nothing was sent. */
  TargetRefused: 'TargetRefused',
} as const;

/** The label a Secret must carry for a webhook to use it (cw-git reads no other Secret). */
export const WEBHOOK_SECRET_LABEL = 'cloudwright.dev/webhook-secret';

export type RepositoryWebhook = CustomResource<'RepositoryWebhook', RepositoryWebhookSpec, RepositoryWebhookStatus>;

/**
 * A webhook of one repository: the repository's ref events are posted to `url`, signed with a key from a Secret,
 * filtered by action and ref, with a cursor of its own and a delivery log in the bucket. cw-git (the events
 * role, with `kubernetes.webhook_namespace` set) delivers it and writes its status.
 */
export const RepositoryWebhookKind: KindDescriptor<'RepositoryWebhook', typeof RepositoryWebhookSpec, typeof RepositoryWebhookStatus> = {
  kind: 'RepositoryWebhook',
  plural: 'repositorywebhooks',
  singular: 'repositorywebhook',
  shortNames: ['cwhook'],
  scope: 'Namespaced',
  categories: [CATEGORY],
  description: "A webhook receiving one repository's ref events, delivered and reported by cw-git's events bridge.",
  spec: RepositoryWebhookSpec,
  status: RepositoryWebhookStatus,
  printerColumns: [
    { name: 'Repository', type: 'string', jsonPath: '.spec.repository', description: 'The repository, owner/name.' },
    { name: 'URL Host', type: 'string', jsonPath: '.status.urlHost', description: "The URL's host." },
    { name: 'Active', type: 'boolean', jsonPath: '.spec.active', description: 'false: paused.' },
    { name: 'Last Delivery', type: 'string', jsonPath: '.status.lastDelivery.status', description: 'succeeded or failed.' },
    { name: 'Consecutive Failures', type: 'integer', jsonPath: '.status.consecutiveFailures', description: 'Failed deliveries since the last success.' },
    { name: 'Signature', type: 'string', jsonPath: '.spec.signature', description: 'service or standard-webhooks.', priority: 1 },
  ],
};
