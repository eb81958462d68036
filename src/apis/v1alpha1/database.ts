import { Type, type Static } from 'typebox';
import type { CustomResource, KindDescriptor } from '../kind-descriptor.ts';
import { Conditions, ObservedGeneration } from './conditions.ts';
import { CATEGORY } from './group-version.ts';
import { DisplayName, DnsLabel } from './strings.ts';

export const DatabaseSpec = Type.Object({
  displayName: DisplayName({ description: 'The name the database was created with.' }),
});
export type DatabaseSpec = Static<typeof DatabaseSpec>;

export const DatabaseStatus = Type.Object({
  conditions: Type.Optional(Conditions),
  observedGeneration: Type.Optional(ObservedGeneration),
  databaseId: Type.Optional(DnsLabel({ description: 'Public database id (REST database_id).' })),
  tenantId: Type.Optional(DnsLabel({ description: 'Tenant of the database engine; the last segment of url.' })),
  url: Type.Optional(Type.String({ format: 'uri', maxLength: 2048, description: 'SQL data endpoint, {db_url}/v1/<tenantId>.' })),
});
export type DatabaseStatus = Static<typeof DatabaseStatus>;

/** Condition types of a Database. */
export const DatabaseConditions = {
  /** The tenant exists in the database engine and url answers. */
  Ready: 'Ready',
} as const;

export type Database = CustomResource<'Database', DatabaseSpec, DatabaseStatus>;

/**
 * A SQL (libSQL) database of a project, in the project's namespace. Connection tokens are secrets and
 * never appear in the object: they are returned once by the API and kept, hashed, elsewhere.
 */
export const DatabaseKind: KindDescriptor<'Database', typeof DatabaseSpec, typeof DatabaseStatus> = {
  kind: 'Database',
  plural: 'databases',
  singular: 'database',
  shortNames: ['cwdb'],
  scope: 'Namespaced',
  categories: [CATEGORY],
  description: 'A Cloudwright SQL database served over Hrana (libSQL).',
  name: DnsLabel({ description: 'Database name.' }),
  spec: DatabaseSpec,
  status: DatabaseStatus,
  printerColumns: [
    { name: 'Database ID', type: 'string', jsonPath: '.status.databaseId', description: 'Public database id.' },
    { name: 'URL', type: 'string', jsonPath: '.status.url', description: 'SQL data endpoint.' },
  ],
};
