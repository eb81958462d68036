import type { TSchema } from 'typebox';
import type { KubeObject } from '../kube/types.ts';

/**
 * One `additionalPrinterColumns` entry of a kind, beyond the standard ones the CRD emitter adds
 * (Ready and Reason when the status has conditions, Age always).
 *
 * `jsonPath` must be a plain dotted path (`.spec.x`, `.status.y.z`) to a scalar field of the kind's
 * schema, or a condition's status or reason (`.status.conditions[?(@.type=="Healthy")].status`, a string
 * column); the emitter checks it, so a renamed field cannot leave a silently empty column behind.
 */
export interface PrinterColumn {
  readonly name: string;
  readonly type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  readonly jsonPath: string;
  readonly description: string;
  /** 0 shows in `kubectl get`, 1 only in `kubectl get -o wide`. */
  readonly priority?: 0 | 1;
}

/**
 * Everything needed to serve, watch and emit one custom resource kind: its names, its scope, its
 * columns and the TypeBox schemas of `spec` and `status`.
 *
 * The same schema values are used by the API server (validation, TS types) and by the CRD emitter
 * (`openAPIV3Schema`), so the two cannot disagree.
 */
export interface KindDescriptor<Kind extends string = string, Spec extends TSchema = TSchema, Status extends TSchema | undefined = TSchema | undefined> {
  readonly kind: Kind;
  /** Lowercase plural: the URL segment and the CRD name prefix (`<plural>.<group>`). */
  readonly plural: string;
  readonly singular: string;
  readonly shortNames: readonly string[];
  readonly scope: 'Namespaced' | 'Cluster';
  /** `kubectl get cloudwright` lists every kind in the category. */
  readonly categories: readonly string[];
  /** Shown by `kubectl explain <kind>`. */
  readonly description: string;
  /**
   * Extra constraints on `metadata.name` (a string schema), for kinds whose name is reused
   * elsewhere (a namespace name, a host label). Kubernetes allows only name constraints there.
   */
  readonly name?: TSchema;
  readonly spec: Spec;
  /** Absent for kinds nothing reconciles; they then get no status subresource. */
  readonly status: Status;
  readonly printerColumns: readonly PrinterColumn[];
  /**
   * CEL rules on the whole object (`x-kubernetes-validations` at the root), the only place a rule may read
   * `metadata.name`: for kinds whose name must be one of their spec's fields.
   */
  readonly objectRules?: readonly { readonly rule: string; readonly message: string }[];
}

/**
 * A typed custom resource object as read from or written to the API server. It is a {@link KubeObject},
 * so the kube client wrapper reads, writes and caches it; `apiVersion` and `kind` may be omitted on
 * writes because the client fills them in from the resource.
 */
export interface CustomResource<Kind extends string, Spec, Status = never> extends KubeObject {
  kind?: Kind;
  spec: Spec;
  status?: Status;
}
