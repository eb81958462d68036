import type { KindDescriptor } from '../../src/apis/kind-descriptor.ts';
import { GROUP, VERSION } from '../../src/apis/v1alpha1/group-version.ts';
import { requireBounds } from './bounds.ts';
import type { CustomResourceDefinition, JsonSchemaProps } from './crd-types.ts';
import { printerColumns } from './printer-columns.ts';
import { CrdSchemaError } from './schema-error.ts';
import { toStructuralSchema } from './structural-schema.ts';

/** Where a kind is served. */
export interface GroupVersion {
  readonly group: string;
  readonly version: string;
}

const API_VERSION_FIELD: JsonSchemaProps = {
  type: 'string',
  description:
    'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values.',
};

const KIND_FIELD: JsonSchemaProps = {
  type: 'string',
  description: 'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. In CamelCase.',
};

/** Name constraints are the only ones Kubernetes allows under metadata. */
const NAME_KEYWORDS = new Set(['type', 'description', 'minLength', 'maxLength', 'pattern']);

/**
 * The `apiextensions.k8s.io/v1` CustomResourceDefinition of one kind: structural schema from its
 * TypeBox schemas, status subresource (when it has a status), printer columns, short names and
 * categories. Pure: the same descriptor always yields an equal object.
 *
 * @throws {CrdSchemaError} when a schema, name or column cannot be expressed in a CRD.
 */
export function emitCrd(kind: KindDescriptor, gv: GroupVersion = { group: GROUP, version: VERSION }): CustomResourceDefinition {
  checkNames(kind);
  const spec = objectSchema(kind.spec, 'spec');
  const status = kind.status === undefined ? undefined : objectSchema(kind.status, 'status');
  const metadata: JsonSchemaProps = { type: 'object' };
  if (kind.name !== undefined) metadata.properties = { name: nameSchema(kind.name) };

  const root: JsonSchemaProps = {
    type: 'object',
    description: kind.description,
    properties: {
      apiVersion: API_VERSION_FIELD,
      kind: KIND_FIELD,
      metadata,
      spec,
      ...(status === undefined ? {} : { status }),
    },
    required: ['spec'],
    ...(kind.objectRules?.length ? { 'x-kubernetes-validations': kind.objectRules.map((r) => ({ ...r })) } : {}),
  };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${kind.plural}.${gv.group}`, labels: { 'app.kubernetes.io/part-of': 'cloudwright' } },
    spec: {
      group: gv.group,
      names: {
        kind: kind.kind,
        listKind: `${kind.kind}List`,
        plural: kind.plural,
        singular: kind.singular,
        shortNames: [...kind.shortNames],
        categories: [...kind.categories],
      },
      scope: kind.scope,
      versions: [
        {
          name: gv.version,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: root },
          ...(status === undefined ? {} : { subresources: { status: {} } }),
          additionalPrinterColumns: printerColumns(kind.printerColumns, root),
        },
      ],
    },
  };
}

function objectSchema(schema: unknown, path: string): JsonSchemaProps {
  const out = toStructuralSchema(schema, path);
  if (out.type !== 'object' || out.additionalProperties !== undefined) throw new CrdSchemaError(path, 'must be a Type.Object');
  if (out.nullable) throw new CrdSchemaError(path, 'must not be nullable');
  requireBounds(out, path);
  return out;
}

function nameSchema(schema: unknown): JsonSchemaProps {
  const out = toStructuralSchema(schema, 'metadata.name');
  const extra = Object.keys(out).filter((k) => !NAME_KEYWORDS.has(k));
  if (out.type !== 'string' || extra.length > 0) {
    throw new CrdSchemaError('metadata.name', `must be a string schema with only length and pattern constraints (found ${extra.join(', ') || out.type})`);
  }
  requireBounds(out, 'metadata.name');
  return out;
}

/** The kube-apiserver's rules for CRD names, checked early so the error names the kind. */
function checkNames(kind: KindDescriptor): void {
  const where = `kind ${kind.kind}`;
  if (!/^[A-Z][A-Za-z0-9]*$/.test(kind.kind)) throw new CrdSchemaError(where, 'kind must be CamelCase');
  for (const [field, value] of [
    ['plural', kind.plural],
    ['singular', kind.singular],
    ...kind.shortNames.map((s) => ['shortNames', s] as const),
    ...kind.categories.map((c) => ['categories', c] as const),
  ] as const) {
    if (!/^[a-z][a-z0-9]*$/.test(value)) throw new CrdSchemaError(where, `${field} ${JSON.stringify(value)} must be lowercase alphanumeric`);
  }
  if (kind.singular !== kind.kind.toLowerCase()) throw new CrdSchemaError(where, 'singular must be the lowercase kind');
}
