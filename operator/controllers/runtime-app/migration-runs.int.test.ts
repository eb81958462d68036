// Migrations applied in the background of the RuntimeApp controller, against the real apiserver: a tenant's slow
// migrations hold no reconcile worker, a run the app moved away from applies nothing, an unreachable database is
// tried again on a timer (not in a loop), and stop waits for a run applying files. The migrations are applied
// through the controller's port (`applyMigrations`): a fake database that records files as the migrator does and
// holds the files the test names until it lets them go.
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
import { MigrationTargetError, type MigrationOutcome } from '../../../src/platform/databases/migrations/migrator.ts';
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
/** The controller here sees this file's objects only: other files' operators share the apiserver. */
const SUITE = { 'test.cloudwright.dev/suite': 'migration-runs' };
const labelSelector = 'test.cloudwright.dev/suite=migration-runs';

let attacker: { name: string; remove: () => Promise<void> };
/** Another project of the user who created the attacker's. */
let sibling: { name: string; remove: () => Promise<void> };
let victim: { name: string; remove: () => Promise<void> };
let informers: Informer<KubeObject>[] = [];
let controller: Controller<KubeObject>;
/** Files applied, per call; the fake database's record of applied files; runs under way and the most at once. */
const calls: string[][] = [];
const recorded = new Set<string>();
let running = 0;
let mostAtOnce = 0;
/** Files whose apply waits until the test lets them go. */
const holds = new Map<string, { release: () => void; held: Promise<void> }>();
function hold(file: string): void {
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  holds.set(file, { release, held });
}
const letGo = (file: string) => holds.get(file)?.release();

async function databaseIn(namespace: string): Promise<void> {
  await objectClient<SecretObject>(conn, SECRETS).create({
    metadata: { name: 'main-app-tokens', namespace },
    data: { [APP_TOKEN_KEYS.full]: Buffer.from('token').toString('base64'), [APP_TOKEN_KEYS['read-only']]: Buffer.from('ro').toString('base64') },
  });
  const databases = objectClient<Database>(conn, DATABASES);
  await databases.create({ metadata: { name: 'main', namespace }, spec: {} });
  await databases.patchStatus(namespace, 'main', { status: { url: 'http://127.0.0.1:9/v1/t-main', appTokenSecretName: 'main-app-tokens' } });
}

async function build(namespace: string, app: string, buildId: string, files: string[]): Promise<void> {
  await builds.create({
    metadata: { name: `${app}-${buildId}`, namespace, labels: SUITE },
    spec: {
      app,
      buildId,
      digest: 'a'.repeat(64),
      size: 1,
      objectKey: `apps/${namespace}/${app}/builds/${buildId}.tar.zst`,
      ...(files.length > 0 ? { migrations: { database: 'main', files: files.map((name) => ({ name, checksum: 'd'.repeat(64), sql: 'SELECT 1;' })) } } : {}),
    },
  });
}

async function appWithMigrations(namespace: string, name: string, file: string, checksum = CHECKSUM): Promise<void> {
  await build(namespace, name, 'b-1', [file]);
  await apps.create({ metadata: { name, namespace, labels: SUITE }, spec: { displayName: name, activeBuildId: 'b-1', migrations: { buildId: 'b-1', database: 'main', checksum } } });
}

const migrationsOf = (name: string) => apps.get(attacker.name, name).then((a) => a?.status?.migrations);
/** How many times the fake database was asked to apply `file`. */
const attemptsOf = (file: string) => calls.filter((c) => c.includes(file)).length;

/** An app whose one migration file is held, once its run is applying it (the only run under way). */
async function appApplyingHeld(name: string, file: string): Promise<void> {
  hold(file);
  await appWithMigrations(attacker.name, name, file);
  await eventually(
    `${name} applying`,
    () => Promise.resolve(running),
    (n) => n === 1,
  );
}

beforeAll(async () => {
  attacker = await testNamespace(conn, 'slowmig');
  victim = await testNamespace(conn, 'victim');
  sibling = await testNamespace(conn, 'slowmig2');
  const appInformer = createInformer<RuntimeApp>(conn, RUNTIME_APPS, { labelSelector });
  const buildInformer = createInformer<Build>(conn, BUILDS, { labelSelector });
  informers = [appInformer, buildInformer] as unknown as Informer<KubeObject>[];
  const applyMigrations = async (_connection: unknown, files: readonly { name: string }[]): Promise<MigrationOutcome> => {
    calls.push(files.map((f) => f.name));
    if (files.some((f) => f.name.includes('unreachable'))) throw new MigrationTargetError('connect ECONNREFUSED', false);
    mostAtOnce = Math.max(mostAtOnce, ++running);
    try {
      for (const file of files) await holds.get(file.name)?.held;
      const applied = files.map((f) => f.name).filter((name) => !recorded.has(name));
      for (const name of applied) recorded.add(name);
      return { applied };
    } finally {
      running--;
    }
  };
  controller = runtimeAppController({
    kube: conn,
    apps: appInformer,
    builds: buildInformer,
    applyMigrations,
    accounts: { of: (project) => (project === attacker.name || project === sibling.name ? 'user:mallory' : `project:${project}`), waitForSync: () => Promise.resolve() },
    events: new EventRecorder({ writer: eventWriter(conn), component: 'migration-runs-test' }),
    registry: new Registry(),
    log: silentLogger,
  }) as unknown as Controller<KubeObject>;
  for (const informer of informers) informer.start();
  await controller.start();
  await databaseIn(attacker.name);
  await databaseIn(sibling.name);
});

afterAll(async () => {
  for (const { release } of holds.values()) release();
  await controller?.stop();
  for (const informer of informers) informer.stop();
  await Promise.all([attacker?.remove(), victim?.remove(), sibling?.remove()]);
});

describe('migrations applied in the background', () => {
  it("hold no reconcile worker: another project's app is reconciled meanwhile, and one project's run one at a time", { timeout: 60_000 }, async () => {
    for (let i = 0; i < SLOW_APPS; i++) {
      hold(`0001_slow${i}.sql`);
      await appWithMigrations(attacker.name, `slow-${i}`, `0001_slow${i}.sql`);
    }
    await eventually(
      'every slow app Pending, applying',
      () => Promise.all(Array.from({ length: SLOW_APPS }, (_, i) => migrationsOf(`slow-${i}`))),
      (list) => list.every((m) => m?.phase === 'Pending' && /Applying 1 migration file/.test(m.message ?? '')),
    );
    // With eight workers each held by a run, this app would wait for them.
    await apps.create({ metadata: { name: 'bystander', namespace: victim.name, labels: SUITE }, spec: { displayName: 'bystander' } });
    const bystander = await eventually(
      'the other project’s app reconciled',
      () => apps.get(victim.name, 'bystander'),
      (a) => findCondition(a?.status?.conditions, 'Ready') !== undefined,
    );
    expect(findCondition(bystander?.status?.conditions, 'Ready')?.status).toBe('False');
    expect(mostAtOnce).toBe(1); // one project's runs take their turns

    for (let i = 0; i < SLOW_APPS; i++) letGo(`0001_slow${i}.sql`);
    const done = await eventually(
      'every slow app Applied',
      () => Promise.all(Array.from({ length: SLOW_APPS }, (_, i) => migrationsOf(`slow-${i}`))),
      (list) => list.every((m) => m?.phase === 'Applied'),
    );
    // Each outcome recorded once, with the file its run applied.
    expect(done.map((m) => m?.applied)).toEqual(Array.from({ length: SLOW_APPS }, (_, i) => [`0001_slow${i}.sql`]));
  });

  it('applies nothing of a build the app was rolled back from while its run waited for its turn', { timeout: 60_000 }, async () => {
    await appApplyingHeld('blocker', '0001_blocker.sql');
    await build(attacker.name, 'shop', 'b-1', []);
    await build(attacker.name, 'shop', 'b-2', ['0002_shop_drop_legacy.sql']);
    await apps.create({
      metadata: { name: 'shop', namespace: attacker.name, labels: SUITE },
      spec: { displayName: 'shop', activeBuildId: 'b-2', migrations: { buildId: 'b-2', database: 'main', checksum: 'e'.repeat(64) } },
    });
    await eventually(
      'shop waiting for its turn',
      () => migrationsOf('shop'),
      (m) => /Applying/.test(m?.message ?? ''),
    );
    const shop = await apps.get(attacker.name, 'shop');
    await apps.replace({ ...shop!, spec: { displayName: 'shop', activeBuildId: 'b-1' } });
    await eventually(
      'shop without migrations',
      () => migrationsOf('shop'),
      (m) => m === undefined,
    );
    letGo('0001_blocker.sql');
    await eventually(
      'the blocker applied',
      () => migrationsOf('blocker'),
      (m) => m?.phase === 'Applied',
    );
    await eventually(
      'the project’s queue empty',
      () => Promise.resolve(running),
      (n) => n === 0,
    );
    expect(calls.flat()).not.toContain('0002_shop_drop_legacy.sql');
  });

  it('tries an unreachable database again on a timer, the status written once, not in a loop', { timeout: 60_000 }, async () => {
    await appWithMigrations(attacker.name, 'unreachable', '0001_unreachable.sql');
    const first = await eventually(
      'Pending, unreachable',
      () => apps.get(attacker.name, 'unreachable'),
      (a) => /could not be reached/.test(a?.status?.migrations?.message ?? ''),
    );
    const attemptsBefore = attemptsOf('0001_unreachable.sql');
    await new Promise((resolve) => setTimeout(resolve, 6000)); // a bit more than one retry's wait (5 s)
    const attempts = attemptsOf('0001_unreachable.sql') - attemptsBefore;
    expect(attempts).toBeGreaterThanOrEqual(1);
    expect(attempts).toBeLessThanOrEqual(2);
    expect((await apps.get(attacker.name, 'unreachable'))?.status?.migrations?.message).toBe(first?.status?.migrations?.message);
  });

  it("takes one turn for all of a user's projects: another project's run waits for the first's", { timeout: 60_000 }, async () => {
    await appApplyingHeld('first', '0001_first.sql');
    await build(sibling.name, 'other', 'b-1', ['0001_other.sql']);
    await apps.create({
      metadata: { name: 'other', namespace: sibling.name, labels: SUITE },
      spec: { displayName: 'other', activeBuildId: 'b-1', migrations: { buildId: 'b-1', database: 'main', checksum: CHECKSUM } },
    });
    const migrationsOfOther = () => apps.get(sibling.name, 'other').then((a) => a?.status?.migrations);
    await eventually('the other project’s run waiting', migrationsOfOther, (m) => m?.phase === 'Pending' && /Applying/.test(m.message ?? ''));
    // Per project, it would have been applied at once (its file is not held).
    expect(attemptsOf('0001_other.sql')).toBe(0);
    letGo('0001_first.sql');
    await eventually('the other project’s run applied', migrationsOfOther, (m) => m?.phase === 'Applied');
    expect(mostAtOnce).toBe(1);
  });

  it('stops only once a run applying files has settled', { timeout: 60_000 }, async () => {
    await appApplyingHeld('late', '0001_late.sql');
    let stopped = false;
    const stopping = controller.stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stopped).toBe(false);
    letGo('0001_late.sql');
    await stopping;
    expect(running).toBe(0);
  });
});
