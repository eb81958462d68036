import { describe, expect, it } from 'vitest';
import type { AppSource } from '../../../src/apis/v1alpha1/app-source.ts';
import type { Database } from '../../../src/apis/v1alpha1/database.ts';
import type { RuntimeApp } from '../../../src/apis/v1alpha1/runtime-app.ts';
import { copyRestorePoint, forkName, planPreviewDatabases } from './preview-databases.ts';

const source = (previewDatabases?: 'None' | 'Fork'): AppSource => ({
  apiVersion: 'cloudwright.dev/v1alpha1',
  kind: 'AppSource',
  metadata: { name: 'web', namespace: 'p' },
  spec: { app: 'web', repository: { owner: 'p', name: 'site' }, ...(previewDatabases ? { previewDatabases } : {}) },
});
const app: RuntimeApp = {
  apiVersion: 'cloudwright.dev/v1alpha1',
  kind: 'RuntimeApp',
  metadata: { name: 'web', namespace: 'p' },
  spec: { displayName: 'web', databaseEnvironment: { DB_TOKEN: { database: 'orders', access: 'full' }, RO_TOKEN: { database: 'orders' } } },
};
const PROD_URL = 'http://db.test/v1/t-orders';
const database = (name: string, url?: string): Database => ({
  apiVersion: 'cloudwright.dev/v1alpha1',
  kind: 'Database',
  metadata: { name, namespace: 'p' },
  spec: {},
  ...(url ? { status: { url } } : {}),
});

describe('forkName', () => {
  it('is <database>--<preview> when that is a DNS label', () => {
    expect(forkName('feature-x--web', 'orders')).toBe('orders--feature-x--web');
  });

  it('stays a DNS label when cut, and keeps copies of different previews apart', () => {
    const long = 'a-very-long-branch-name-that-fills-the-label-almost--web';
    const names = [forkName(long, 'orders-archive'), forkName(`${long.slice(0, -5)}x--web`, 'orders-archive')];
    for (const name of names) expect(name).toMatch(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/);
    expect(names[0]).not.toBe(names[1]);
  });
});

describe('planPreviewDatabases', () => {
  const none = () => undefined;

  it('links nothing when the source leaves previews without databases', () => {
    expect(planPreviewDatabases(source(), app, 'f--web', { DB_URL: PROD_URL }, none)).toEqual({ environment: { DB_URL: PROD_URL }, forks: [] });
    expect(planPreviewDatabases(source('None'), app, 'f--web', {}, none).forks).toEqual([]);
  });

  const copyOf = (name: string, labelled: string, status: Database['status']): Database => ({
    ...database(name),
    metadata: { name, namespace: 'p', labels: { 'cloudwright.dev/preview-database-of': labelled } },
    ...(status ? { status } : {}),
  });

  it('plans one copy per database, and links none until the copy exists as the preview’s', () => {
    const plan = planPreviewDatabases(source('Fork'), app, 'f--web', { DB_URL: PROD_URL, GREETING: 'hi' }, (name) => (name === 'orders' ? database('orders', PROD_URL) : undefined));
    expect(plan.forks).toEqual([{ name: 'orders--f--web', from: 'orders' }]);
    expect(plan.databaseEnvironment).toBeUndefined();
    // Never the original's URL: the preview's code must not be pointed at production's data.
    expect(plan.environment).toEqual({ GREETING: 'hi' });
  });

  it('links the copy under the same variables, its URL in the URL variable, once it is the preview’s and ready', () => {
    const dbs: Record<string, Database> = { orders: database('orders', PROD_URL), 'orders--f--web': copyOf('orders--f--web', 'f--web', { state: 'ready', url: 'http://db.test/v1/t-copy' }) };
    const plan = planPreviewDatabases(source('Fork'), app, 'f--web', { DB_URL: PROD_URL }, (name) => dbs[name]);
    expect(plan.databaseEnvironment).toEqual({ DB_TOKEN: { database: 'orders--f--web', access: 'full' }, RO_TOKEN: { database: 'orders--f--web' } });
    expect(plan.environment).toEqual({ DB_URL: 'http://db.test/v1/t-copy' });
  });

  it.each([
    ['a database of that name made otherwise', copyOf('orders--f--web', 'someone-else', { state: 'ready', url: 'http://db.test/v1/t-other' })],
    ['a copy that failed', copyOf('orders--f--web', 'f--web', { state: 'failed' })],
  ])('never links %s', (_, found) => {
    const dbs: Record<string, Database> = { orders: database('orders', PROD_URL), 'orders--f--web': found };
    const plan = planPreviewDatabases(source('Fork'), app, 'f--web', { DB_URL: PROD_URL }, (name) => dbs[name]);
    expect(plan.databaseEnvironment).toBeUndefined();
    expect(plan.environment).toEqual({});
  });

  it('drops a plain variable of the same name as a linked one (a variable is one or the other)', () => {
    const plan = planPreviewDatabases(source('Fork'), app, 'f--web', { DB_TOKEN: 'plain' }, none);
    expect(plan.environment).toEqual({});
  });
});

describe('copyRestorePoint', () => {
  const now = new Date('2030-01-01T00:00:10.000Z');
  const withWindow = (earliest: string): Database => ({ ...database('orders'), status: { restoreWindow: { earliest, latest: earliest } } });

  // A copy made a moment after production's first commits (a young database, a quick push) must hold them: a
  // point before now would miss whatever was acknowledged just before the preview, all of it for a new database.
  it.each([
    ['now, for an original whose window began before', withWindow('2030-01-01T00:00:09.900Z'), '2030-01-01T00:00:10.000Z'],
    ['now, for an original without a window yet', database('orders'), '2030-01-01T00:00:10.000Z'],
    ['the window’s start, when it began after now (the operator’s clock behind cw-db’s)', withWindow('2030-01-01T00:00:10.300Z'), '2030-01-01T00:00:10.300Z'],
  ])('is %s', (_, original, expected) => {
    expect(copyRestorePoint(original, now)).toBe(expected);
  });
});
