import { Type, type Static } from 'typebox';
import type { CustomResource, KindDescriptor } from '../kind-descriptor.ts';
import { CATEGORY } from './group-version.ts';
import { BuildMigrations } from './migrations.ts';
import { MAX_APP_HOSTNAMES } from './runtime-app.ts';
import { DnsLabel, Hostname, immutable } from './strings.ts';

/**
 * The deploy options a build was last deployed with, as the app's spec took them: what a rollback to the
 * build applies again. Absent on a Build recorded before options were recorded (or written without them):
 * a rollback to it leaves the app's options as they are.
 */
export const BuildDeployOptions = Type.Object(
  {
    hostnames: Type.Optional(
      Type.Array(Hostname({ description: 'Host name.' }), {
        maxItems: MAX_APP_HOSTNAMES,
        uniqueItems: true,
        description: 'The deploy host names (the hostnames option, without the default host); absent or empty: none.',
      }),
    ),
    maxConcurrentRequests: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 10000, format: 'int32', description: 'The concurrency bound (the max_concurrent_requests option); absent: the runtime default.' }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'The deploy options of the latest deploy of this artifact (host names, concurrency bound): a rollback to the build applies them again. Absent: recorded before deploys recorded their options, and a rollback keeps the app’s.',
  },
);
export type BuildDeployOptions = Static<typeof BuildDeployOptions>;

export const BuildSpec = Type.Object({
  app: DnsLabel({ description: 'Name of the RuntimeApp the build belongs to.', ...immutable('app') }),
  buildId: DnsLabel({ description: 'The build id: b- and the first 16 hex digits of the artifact digest.', ...immutable('buildId') }),
  digest: Type.String({
    minLength: 64,
    maxLength: 64,
    pattern: '^[0-9a-f]{64}$',
    description: 'SHA-256 of the uploaded .tar.zst, lowercase hex.',
    ...immutable('digest'),
  }),
  size: Type.Integer({ minimum: 0, maximum: 1099511627776, format: 'int64', description: 'Size of the uploaded artifact in bytes.', ...immutable('size') }),
  unpackedSize: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 1099511627776,
      format: 'int64',
      description:
        'Bytes the build unpacks to (its modules and assets), as the API measured it on upload. What the project quota counts for this build; absent (a Build written by hand), its compressed size counts instead, and the runtime counts the real figure as it unpacks.',
      ...immutable('unpackedSize'),
    }),
  ),
  objectKey: Type.String({
    minLength: 1,
    maxLength: 1024,
    description:
      'Where the API stored the artifact in the object store bucket, for reading. The platform itself reads and deletes a build only at apps/<namespace>/<app>/builds/<buildId>.tar.zst, whatever this says.',
    ...immutable('objectKey'),
  }),
  deployOptions: Type.Optional(BuildDeployOptions),
  migrations: Type.Optional(BuildMigrations),
});
export type BuildSpec = Static<typeof BuildSpec>;

export type Build = CustomResource<'Build', BuildSpec, undefined>;

/**
 * One uploaded artifact of a RuntimeApp, in the app's namespace, owned by the app (deleting the app lets
 * the garbage collector delete its builds). Its artifact fields are immutable: they record what was durably
 * stored; `deployOptions` records the options the artifact was last deployed with. Which build is served is
 * the app's `spec.activeBuildId`. Named `<app>-<buildId>`.
 */
export const BuildKind: KindDescriptor<'Build', typeof BuildSpec, undefined> = {
  kind: 'Build',
  plural: 'builds',
  singular: 'build',
  shortNames: ['cwbuild'],
  scope: 'Namespaced',
  categories: [CATEGORY],
  description: 'An uploaded, durably stored artifact of a Cloudwright runtime app.',
  spec: BuildSpec,
  status: undefined,
  printerColumns: [
    { name: 'App', type: 'string', jsonPath: '.spec.app', description: 'The app the build belongs to.' },
    { name: 'Build', type: 'string', jsonPath: '.spec.buildId', description: 'Build id.' },
    { name: 'Size', type: 'integer', jsonPath: '.spec.size', description: 'Artifact size in bytes.' },
    { name: 'Unpacked', type: 'integer', jsonPath: '.spec.unpackedSize', description: 'Bytes the build unpacks to.' },
  ],
};
