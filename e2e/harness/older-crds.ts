// CRDs as an older release shipped them, in groups of their own, installed with ours before any test: a test of how
// a newer process meets an older CRD (an upgrade applied out of order) uses them without defining a CRD mid-run,
// which makes the control plane's quota controller rediscover every resource while other tests count on it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { KubeObject, ResourceRef } from '../../src/kube/index.ts';
import { repoRoot } from './tools.ts';

interface ObjectSchema {
  properties: Record<string, ObjectSchema>;
}

interface CrdSchema extends KubeObject {
  spec: { group: string; versions: Array<{ name: string; schema: { openAPIV3Schema: ObjectSchema } }>; names: { plural: string; kind: string } };
}

const OLDER_REPORTS_GROUP = 'old-reports.test.cloudwright.dev';

/** The RuntimeReplicaReports of a CRD from before reports had a mark (`acted`, `defaultHost`). */
export const OLDER_REPORTS: ResourceRef = { group: OLDER_REPORTS_GROUP, version: 'v1alpha1', plural: 'runtimereplicareports', kind: 'RuntimeReplicaReport', namespaced: true };

const OLDER_SOURCE_BUILDS_GROUP = 'old-source-builds.test.cloudwright.dev';

/** The SourceBuilds of a CRD from before builds recorded a trimmed log (`status.logTrimmedAt`). */
export const OLDER_SOURCE_BUILDS: ResourceRef = { group: OLDER_SOURCE_BUILDS_GROUP, version: 'v1alpha1', plural: 'sourcebuilds', kind: 'SourceBuild', namespaced: true };

/** Every older CRD, to install beside ours. */
export function olderCrds(): CrdSchema[] {
  return [
    older(OLDER_REPORTS, (schema) => {
      delete schema.properties.spec?.properties.acted;
      delete schema.properties.spec?.properties.defaultHost;
    }),
    older(OLDER_SOURCE_BUILDS, (schema) => {
      delete schema.properties.status?.properties.logTrimmedAt;
    }),
  ];
}

/** Our CRD of `resource`'s plural, in `resource`'s group, its schema changed by `strip`. */
function older(resource: ResourceRef, strip: (schema: ObjectSchema) => void): CrdSchema {
  const file = `crds/${resource.plural}.cloudwright.dev.yaml`;
  const crd = parse(readFileSync(join(repoRoot, file), 'utf8')) as CrdSchema;
  const version = crd.spec.versions.find((v) => v.name === resource.version);
  if (!version) throw new Error(`${file} has no version ${resource.version}`);
  strip(version.schema.openAPIV3Schema);
  return { ...crd, metadata: { name: `${crd.spec.names.plural}.${resource.group}` }, spec: { ...crd.spec, group: resource.group } };
}
