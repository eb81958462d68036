// Test helper: two cw-git apps on one memory bucket, as two instances behind a load balancer. Instance `a` holds
// its first log entry write until the test lets it go, so a write through `b` can land between `a`'s read of the
// head and its publish: the race of two writers that built on the same head.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { Registry } from 'prom-client';
import { MemoryObjectStore } from '../../../src/object-store/memory-object-store.ts';
import type { ObjectStore } from '../../../src/object-store/object-store.ts';
import { GateStore } from '../../../src/object-store/testing/gate-object-store.ts';
import { RepoStore } from '../../../src/repo-store/index.ts';
import { buildGitServer } from '../../app.ts';
import { mintToken } from '../../auth/index.ts';
import type { ProjectTokens } from '../../auth/project-tokens.ts';
import { DrainState } from '../../drain.ts';
import { ServiceMetrics } from '../../metrics.ts';
import { RepoCache } from '../../plumbing/repo-cache.ts';
import { BucketRepositoryDirectory } from '../../repositories/bucket-repository-directory.ts';

const SECRET = 'two-instances-secret-of-32-bytes!!';
const WRITE = { authorization: `Bearer ${mintToken({ sub: 'ada', scopes: ['read', 'write'] }, SECRET)}` };

/** A JSON request with a write token. */
export type Call = (method: InjectOptions['method'], url: string, body?: unknown) => Promise<LightMyRequestResponse>;

export interface TwoInstances {
  readonly bucket: MemoryObjectStore;
  /** Instance `a`: its first log entry write waits for `gate.release()`; `gate.reached` when it is there. */
  readonly a: Call;
  readonly b: Call;
  readonly gate: GateStore;
  close(): Promise<void>;
}

/**
 * What both instances are built with: the JSON API's allow-lists, the store's ref limit (`quota.repository_max_refs`),
 * and the platform's project git tokens (`kubernetes.project_tokens`).
 */
export interface InstanceOptions {
  readonly initializeSources?: readonly string[];
  readonly importSources?: readonly string[];
  readonly maxRefs?: number;
  readonly projectTokens?: ProjectTokens;
}

export async function twoInstances(options: InstanceOptions = {}): Promise<TwoInstances> {
  const bucket = new MemoryObjectStore();
  const gate = new GateStore(bucket, (key) => key.includes('/log/'));
  const root = await mkdtemp(join(tmpdir(), 'cw-two-'));
  const a = await instance(gate, join(root, 'a'), options);
  const b = await instance(bucket, join(root, 'b'), options);
  return {
    bucket,
    gate,
    a: caller(a),
    b: caller(b),
    close: async () => {
      gate.release();
      await Promise.all([a.close(), b.close()]);
      await rm(root, { recursive: true, force: true });
    },
  };
}

async function instance(objects: ObjectStore, dir: string, { maxRefs, projectTokens, ...options }: InstanceOptions): Promise<FastifyInstance> {
  const repos = new RepoStore({ store: objects, registry: new Registry(), ...(maxRefs === undefined ? {} : { maxRefs }) });
  return buildGitServer({
    repos,
    objects,
    cache: new RepoCache({ repos, dir }),
    directory: new BucketRepositoryDirectory(repos),
    auth: { tokenSecret: SECRET, ...(projectTokens ? { projectTokens } : {}) },
    metrics: new ServiceMetrics(new Registry()),
    drain: new DrainState(),
    ...options,
  });
}

function caller(app: FastifyInstance): Call {
  return (method, url, body) => app.inject({ method, url, headers: WRITE, ...(body === undefined ? {} : { payload: body as InjectOptions['payload'] }) });
}
