// A tenant's slow migrations hold no reconcile worker: against the real apiserver, more apps than the RuntimeApp
// controller has workers wait on migrations that do not finish, and another app still has its status written.
// The migrations are applied through the controller's port (`applyMigrations`), held open by the test.
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Build } from '../../../src/apis/v1alpha1/build.ts';
import type { Database } from '../../../src/apis/v1alpha1/database.ts';
import type { RuntimeApp } from '../../../src/apis/v1alpha1/runtime-app.ts';
import { findCondition } from '../../../src/conditions/index.ts';
import { createInformer, eventWriter, objectClient, SECRETS, type Informer, type KubeObject, type SecretObject } from '../../../src/kube/index.ts';
import { testConnection, testNamespace } from '../../../src/kube/testing/test-kube.ts';
import { APP_TOKEN_KEYS } from '../../../src/platform/databases/app-tokens.ts';
import { BUILDS, DATABASES, RUNTIME_APPS } from '../../../src/platform/resources.ts';
import type { MigrationOutcome } from '../../../src/platform/databases/migrations/migrator.ts';
import { eventually } from '../../../e2e/harness/runtime-stack.ts';
import type { Controller } from '../../../src/controller-runtime/controller.ts';
import { EventRecorder } from '../../../src/controller-runtime/events.ts';
import { silentLogger } from '../../../src/logging/log.ts';
import { runtimeAppController } from './controller.ts';

const conn = testConnection();
const apps = objectClient<RuntimeApp>(conn, RUNTIME_APPS);
const builds = objectClient<Build>(conn, BUILDS);
/** More than the controller's eight workers. */
const SLOW_APPS = 10;
const CHECKSUM = 'c'.repeat(64);

let attacker: { name: string; remove: () => Promise<void> };
let victim: { name: string; remove: () => Promise<void> };
let informers: Informer<KubeObject>[] = [];
let controller: Controller<KubeObject>;
/** Runs under way; the most seen at once; and the hand that ends them. */
let running = 0;
let mostAtOnce = 0;
let release: () => void = () => {};
const released = new Promise<void>((resolve) => (release = resolve));

async function databaseIn(namespace: string): Promise<void> {
  await objectClient<SecretObject>(conn, SECRETS).create({
    metadata: { name: 'main-app-tokens', namespace },
    data: { [APP_TOKEN_KEYS.full]: Buffer.from('token').toString('base64'), [APP_TOKEN_KEYS['read-only']]: Buffer.from('ro').toString('base64') },
  });
  const databases = objectClient<Database>(conn, DATABASES);
  await databases.create({ metadata: { name: 'main', namespace }, spec: {} });
  await databases.patchStatus(namespace, 'main', { status: { url: 'http://127.0.0.1:9/v1/t-main', appTokenSecretName: 'main-app-tokens' } });
}

async function appWithMigrations(namespace: string, name: string): Promise<void> {
  await builds.create({
    metadata: { name: `${name}-b-1`, namespace },
    spec: {
      app: name,
      buildId: 'b-1',
      digest: 'a'.repeat(64),
      size: 1,
      objectKey: `apps/${namespace}/${name}/builds/b-1.tar.zst`,
      migrations: { database: 'main', files: [{ name: '0001_slow.sql', checksum: 'd'.repeat(64), sql: 'SELECT 1;' }] },
    },
  });
  await apps.create({ metadata: { name, namespace }, spec: { displayName: name, activeBuildId: 'b-1', migrations: { buildId: 'b-1', database: 'main', checksum: CHECKSUM } } });
}

beforeAll(async () => {
  attacker = await testNamespace(conn, 'slowmig');
  victim = await testNamespace(conn, 'victim');
  const appInformer = createInformer<RuntimeApp>(conn, RUNTIME_APPS);
  const buildInformer = createInformer<Build>(conn, BUILDS);
  informers = [appInformer, buildInformer] as unknown as Informer<KubeObject>[];
  const applyMigrations = async (_connection: unknown, files: readonly { name: string }[]): Promise<MigrationOutcome> => {
    mostAtOnce = Math.max(mostAtOnce, ++running);
    await released;
    running--;
    return { applied: files.map((f) => f.name) };
  };
  controller = runtimeAppController({
    kube: conn,
    apps: appInformer,
    builds: buildInformer,
    applyMigrations,
    events: new EventRecorder({ writer: eventWriter(conn), component: 'migration-runs-test' }),
    registry: new Registry(),
    log: silentLogger,
  }) as unknown as Controller<KubeObject>;
  for (const informer of informers) informer.start();
  await controller.start();
  await databaseIn(attacker.name);
});

afterAll(async () => {
  release();
  await controller?.stop();
  for (const informer of informers) informer.stop();
  await Promise.all([attacker?.remove(), victim?.remove()]);
});

describe('migrations of one project that do not finish', () => {
  it("hold no reconcile worker: another project's app is reconciled meanwhile, and they run one at a time", { timeout: 60_000 }, async () => {
    for (let i = 0; i < SLOW_APPS; i++) await appWithMigrations(attacker.name, `slow-${i}`);
    await eventually(
      'every slow app Pending, applying',
      async () => Promise.all(Array.from({ length: SLOW_APPS }, (_, i) => apps.get(attacker.name, `slow-${i}`))),
      (list) => list.every((a) => a?.status?.migrations?.phase === 'Pending' && /Applying 1 migration file/.test(a.status.migrations.message ?? '')),
    );
    // With eight workers each held by a run, this app would wait for them.
    await apps.create({ metadata: { name: 'bystander', namespace: victim.name }, spec: { displayName: 'bystander' } });
    const bystander = await eventually(
      'the other project’s app reconciled',
      () => apps.get(victim.name, 'bystander'),
      (a) => findCondition(a?.status?.conditions, 'Ready') !== undefined,
    );
    expect(findCondition(bystander?.status?.conditions, 'Ready')?.status).toBe('False');
    expect(mostAtOnce).toBe(1); // one project's runs take their turns

    release();
    const done = await eventually(
      'every slow app Applied',
      async () => Promise.all(Array.from({ length: SLOW_APPS }, (_, i) => apps.get(attacker.name, `slow-${i}`))),
      (list) => list.every((a) => a?.status?.migrations?.phase === 'Applied'),
    );
    expect(done.map((a) => a?.status?.migrations?.applied)).toEqual(Array.from({ length: SLOW_APPS }, () => ['0001_slow.sql']));
  });
});
