import { Type, type Static } from 'typebox';
import { Timestamp } from './strings.ts';

// The exact shape and validation of metav1.Condition, so generic Kubernetes tooling (kubectl wait,
// kstatus, Argo CD health checks) reads our status like any built-in object's.

/** `True`, `False` or `Unknown`. */
export const ConditionStatus = Type.Union([Type.Literal('True'), Type.Literal('False'), Type.Literal('Unknown')], {
  description: 'Status of the condition: True, False or Unknown.',
});
export type ConditionStatus = Static<typeof ConditionStatus>;

/** `metadata.generation` a controller last acted on. */
export const ObservedGeneration = Type.Integer({
  minimum: 0,
  format: 'int64',
  description: 'The metadata.generation the controller last reconciled.',
});

/** One `metav1.Condition`. */
export const Condition = Type.Object(
  {
    type: Type.String({
      minLength: 1,
      maxLength: 316,
      pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
      description: 'Type of condition in CamelCase, for example Ready.',
    }),
    status: ConditionStatus,
    observedGeneration: Type.Optional(ObservedGeneration),
    lastTransitionTime: Timestamp({ description: 'When the status last changed (not when it was last checked).' }),
    reason: Type.String({
      minLength: 1,
      maxLength: 1024,
      pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$',
      description: 'Programmatic identifier of the cause, a CamelCase constant.',
    }),
    message: Type.String({
      maxLength: 32768,
      description: 'Human-readable detail; stable across reconciles (no request ids or timestamps).',
    }),
  },
  { description: 'One aspect of the current state (metav1.Condition).' },
);
export type Condition = Static<typeof Condition>;

/**
 * `status.conditions`: a list map keyed by `type`, so server-side apply by different field managers
 * merges entries instead of replacing the list.
 */
export const Conditions = Type.Array(Condition, {
  maxItems: 32,
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['type'],
  description: 'Latest observations of the object, one per condition type; Ready summarises them.',
});

/** The condition type every reconciled kind reports; `kubectl get` shows it. */
export const READY = 'Ready';
