import { createHash } from 'node:crypto';
import { PREVIEW_DATABASE_OF_LABEL, PREVIEW_OF_LABEL, type AppSource } from '../../../src/apis/v1alpha1/app-source.ts';
import type { Database } from '../../../src/apis/v1alpha1/database.ts';
import type { RuntimeApp } from '../../../src/apis/v1alpha1/runtime-app.ts';
import { isAlreadyExists, type ObjectClient } from '../../../src/kube/index.ts';
import { PROJECT_LABEL } from '../../../src/platform/resources.ts';

const MAX_LABEL = 63;

/**
 * The preview `previewApp`'s copy of `database`: `<database>--<previewApp>`, or, when that is no DNS label, as much
 * of it as fits and a short hash of both, which keeps copies of different previews apart.
 */
export function forkName(previewApp: string, database: string): string {
  const whole = `${database}--${previewApp}`;
  if (whole.length <= MAX_LABEL) return whole;
  const hash = createHash('sha256').update(`${database}/${previewApp}`).digest('hex').slice(0, 8);
  return `${whole.slice(0, MAX_LABEL - hash.length - 1).replace(/-+$/, '')}-${hash}`;
}

/**
 * Where a copy starts: now, so it holds every commit acknowledged before the preview was made (cw-db waits for a
 * point its clock has not reached yet, when the clocks differ a little); never before the original's restore
 * window, which a clock behind cw-db's could ask for.
 */
export function copyRestorePoint(original: Database, now: Date): string {
  const earliest = Date.parse(original.status?.restoreWindow?.earliest ?? '');
  return new Date(Math.max(now.getTime(), Number.isNaN(earliest) ? 0 : earliest)).toISOString();
}

/** What a preview links in place of the production app's databases. */
export interface PreviewDatabasePlan {
  databaseEnvironment?: NonNullable<RuntimeApp['spec']['databaseEnvironment']>;
  /** The preview's plain environment, a variable holding a copied database's URL given the copy's (left out until it has one). */
  environment: Record<string, string>;
  /** Each copy: its name and the database it copies. */
  forks: { name: string; from: string }[];
}

/** Whether `db` is the preview's own copy, usable: made for it (its label) and not failed. */
function isUsableCopy(db: Database | undefined, previewApp: string): boolean {
  return db?.metadata?.labels?.[PREVIEW_DATABASE_OF_LABEL] === previewApp && db.status?.state !== 'failed' && !db.metadata.deletionTimestamp;
}

/**
 * With `previewDatabases: Fork`, each database the production app links becomes the preview's own copy under the
 * same variable, linked only once the copy exists as the preview's (never a database of that name made otherwise,
 * never one that failed). `None` (or nothing linked): the preview links nothing, and its environment is as given.
 */
export function planPreviewDatabases(
  source: AppSource,
  app: RuntimeApp,
  previewApp: string,
  environment: Record<string, string>,
  databaseOf: (name: string) => Database | undefined,
): PreviewDatabasePlan {
  const linked = Object.entries(app.spec.databaseEnvironment ?? {});
  if (source.spec.previewDatabases !== 'Fork' || linked.length === 0) return { environment, forks: [] };
  const copies = new Map(linked.map(([, entry]) => [entry.database, forkName(previewApp, entry.database)]));
  // Original → copy, for the copies that may be linked now.
  const usable = new Map([...copies].filter(([, name]) => isUsableCopy(databaseOf(name), previewApp)));
  const databaseEnvironment = Object.fromEntries(
    linked.flatMap(([key, entry]) => {
      const copy = usable.get(entry.database);
      return copy ? [[key, { ...entry, database: copy }]] : [];
    }),
  );
  const urls = new Map<string, string | undefined>();
  for (const [from, name] of copies) {
    const url = databaseOf(from)?.status?.url;
    if (url) urls.set(url, usable.has(from) ? databaseOf(name)?.status?.url : undefined);
  }
  const withCopies: Record<string, string> = {};
  for (const [key, value] of Object.entries(environment)) {
    // A variable is plain or linked, never both (RuntimeApp's rule); one the app links stays out until its copy is.
    if (key in (app.spec.databaseEnvironment ?? {})) continue;
    if (!urls.has(value)) withCopies[key] = value;
    else if (urls.get(value)) withCopies[key] = urls.get(value) ?? '';
  }
  return {
    ...(Object.keys(databaseEnvironment).length > 0 ? { databaseEnvironment } : {}),
    environment: withCopies,
    forks: [...copies].map(([from, name]) => ({ name, from })),
  };
}

/**
 * Creates the copies `plan` names that do not exist yet, each owned by the preview app (it goes with it) and
 * starting from its database as it is now. Answers why a copy cannot be made, when one cannot.
 */
export async function ensureForks(
  client: ObjectClient<Database>,
  plan: PreviewDatabasePlan,
  preview: RuntimeApp,
  source: AppSource,
  databaseOf: (name: string) => Database | undefined,
  now: Date,
): Promise<string | undefined> {
  const namespace = preview.metadata?.namespace ?? '';
  for (const fork of plan.forks) {
    const existing = databaseOf(fork.name);
    if (existing) {
      if (existing.metadata?.labels?.[PREVIEW_DATABASE_OF_LABEL] !== preview.metadata?.name) return `a database named ${fork.name} exists already, so the preview has no copy of ${fork.from}`;
      if (existing.status?.state === 'failed') return `the preview's copy of ${fork.from} failed: ${existing.status.conditions?.find((c) => c.status === 'False')?.message ?? 'see the Database'}`;
      continue;
    }
    const original = databaseOf(fork.from);
    if (!original) return `the app links database ${fork.from}, which does not exist, so the preview has no copy of it`;
    try {
      await client.create({
        metadata: {
          name: fork.name,
          namespace,
          labels: { [PROJECT_LABEL]: namespace, [PREVIEW_OF_LABEL]: source.metadata?.name ?? '', [PREVIEW_DATABASE_OF_LABEL]: preview.metadata?.name ?? '' },
          ownerReferences: [{ apiVersion: 'cloudwright.dev/v1alpha1', kind: 'RuntimeApp', name: preview.metadata?.name ?? '', uid: preview.metadata?.uid ?? '', blockOwnerDeletion: true }],
        },
        spec: {
          displayName: fork.name,
          ...(original.spec.durability ? { durability: original.spec.durability } : {}),
          ...(original.spec.limits ? { limits: original.spec.limits } : {}),
          restoreFrom: { database: fork.from, timestamp: copyRestorePoint(original, now) },
        },
      });
    } catch (err) {
      if (isAlreadyExists(err)) continue; // the cache is behind: the next pass checks whose it is
      if (err instanceof Error && /exceeded quota/.test(err.message)) return `the project has as many databases as its quota allows, so the preview has no copy of ${fork.from}`;
      throw err;
    }
  }
  return undefined;
}
