import { Type, type Static } from 'typebox';
import type { CustomResource, KindDescriptor } from '../kind-descriptor.ts';
import { CATEGORY } from './group-version.ts';
import { DnsLabel, immutable } from './strings.ts';

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
  objectKey: Type.String({ minLength: 1, maxLength: 1024, description: 'Where the artifact is stored in the object store bucket.', ...immutable('objectKey') }),
});
export type BuildSpec = Static<typeof BuildSpec>;

export type Build = CustomResource<'Build', BuildSpec, undefined>;

/**
 * One uploaded artifact of a RuntimeApp, in the app's namespace, owned by the app (deleting the app lets
 * the garbage collector delete its builds). Immutable: it records what was durably stored; which build is
 * served is the app's `spec.activeBuildId`. Named `<app>-<buildId>`.
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
