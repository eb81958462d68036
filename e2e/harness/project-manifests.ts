// A project's manifests as the GitOps tests declare them (e2e/gitops.test.ts applies them with kubectl,
// e2e/flux-gitops.test.ts through Flux), and the pipeline's upload their Build records.
import { createHash } from 'node:crypto';
import { inject } from 'vitest';
import { S3ObjectStore } from '../../src/object-store/s3-object-store.ts';
import { artifactKey, buildIdFor } from '../../src/platform/artifact-keys.ts';
import { packWorker } from './runtime-stack.ts';

export interface UploadedBuild {
  readonly id: string;
  readonly digest: string;
  readonly size: number;
  readonly key: string;
}

/** The pipeline's upload: `source` packed as a worker and stored at its key in the run's bucket, as no API call does. */
export async function uploadBuild(namespace: string, app: string, source: string): Promise<UploadedBuild> {
  const artifact = packWorker(source);
  const digest = createHash('sha256').update(artifact).digest('hex');
  const id = buildIdFor(digest);
  const key = artifactKey(namespace, app, id);
  await new S3ObjectStore({ config: inject('s3'), bucket: inject('bucket') }).put(key, artifact);
  return { id, digest, size: artifact.length, key };
}

/** The Build recording an uploaded artifact. */
export const buildManifest = (namespace: string, app: string, build: UploadedBuild): string => `apiVersion: cloudwright.dev/v1alpha1
kind: Build
metadata: { name: ${app}-${build.id}, namespace: ${namespace} }
spec: { app: ${app}, buildId: ${build.id}, digest: ${build.digest}, size: ${build.size}, objectKey: ${build.key} }
`;

/** The ProjectDomain `shop` for `domain` and its DnsRecord `api` (A 192.0.2.10, TTL 300). */
export const domainManifests = (namespace: string, domain: string): string => `apiVersion: cloudwright.dev/v1alpha1
kind: ProjectDomain
metadata: { name: shop, namespace: ${namespace} }
spec: { domain: ${domain} }
---
apiVersion: cloudwright.dev/v1alpha1
kind: DnsRecord
metadata: { name: api, namespace: ${namespace} }
spec: { domainRef: { name: shop }, name: api, type: A, values: [192.0.2.10], ttl: 300 }
`;

/** A managed-mode AppHostname of `app` with its finalize intent. */
export const hostnameManifest = (namespace: string, app: string, host: string): string => `apiVersion: cloudwright.dev/v1alpha1
kind: AppHostname
metadata: { name: ${host}, namespace: ${namespace} }
spec: { appRef: { name: ${app} }, hostname: ${host}, dnsMode: managed_project_domain, finalize: true }
`;
