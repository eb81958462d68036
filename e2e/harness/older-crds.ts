// CRDs as an older release shipped them, in groups of their own, installed with ours before any test: a test of how
// a newer process meets an older CRD (an upgrade applied out of order) uses them without defining a CRD mid-run,
// which makes the control plane's quota controller rediscover every resource while other tests count on it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { KubeObject, ResourceRef } from '../../src/kube/index.ts';
import { repoRoot } from './tools.ts';

interface CrdSchema extends KubeObject {
  spec: { group: string; versions: Array<{ name: string; schema: { openAPIV3Schema: { properties: { spec: { properties: Record<string, unknown> } } } } }>; names: { plural: string; kind: string } };
}

const OLDER_REPORTS_GROUP = 'old-reports.test.cloudwright.dev';

/** The RuntimeReplicaReports of a CRD from before reports had a mark (`acted`, `defaultHost`). */
export const OLDER_REPORTS: ResourceRef = { group: OLDER_REPORTS_GROUP, version: 'v1alpha1', plural: 'runtimereplicareports', kind: 'RuntimeReplicaReport', namespaced: true };

/** Every older CRD, to install beside ours. */
export function olderCrds(): CrdSchema[] {
  const crd = parse(readFileSync(join(repoRoot, 'crds', 'runtimereplicareports.cloudwright.dev.yaml'), 'utf8')) as CrdSchema;
  const version = crd.spec.versions.find((v) => v.name === OLDER_REPORTS.version);
  if (!version) throw new Error(`crds/runtimereplicareports.cloudwright.dev.yaml has no version ${OLDER_REPORTS.version}`);
  const specProperties = version.schema.openAPIV3Schema.properties.spec.properties;
  delete specProperties.acted;
  delete specProperties.defaultHost;
  const older: CrdSchema = { ...crd, metadata: { name: `${crd.spec.names.plural}.${OLDER_REPORTS_GROUP}` }, spec: { ...crd.spec, group: OLDER_REPORTS_GROUP } };
  return [older];
}
