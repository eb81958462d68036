import { API_VERSION } from '../../../src/apis/v1alpha1/group-version.ts';
import { DATABASE_LABEL, type Database } from '../../../src/apis/v1alpha1/database.ts';
import { isAlreadyExists, isControlledBy, statusCodeOf, type ObjectClient, type SecretObject } from '../../../src/kube/index.ts';

/** What `ensureOwnedSecret` found: the Secret (owned by the Database), one of that name that is someone else's, or no right to Secrets there. */
export type OwnedSecret = { kind: 'owned'; secret: SecretObject } | { kind: 'conflict' | 'forbidden' };

/** Whether `secret` is controlled by `db` (the same uid: a Database deleted and made again owns none of the old). */
export function ownedBy(secret: SecretObject | undefined, db: Database): boolean {
  return isControlledBy(secret, db.metadata?.uid);
}

/**
 * The Secret `name` in `db`'s namespace, created with `data()` (plain text, encoded here) and `annotations()` when
 * absent, owned by `db` so it goes with it. Read with a GET, never watched: the operator may not list Secrets
 * across namespaces.
 */
export async function ensureOwnedSecret(
  client: ObjectClient<SecretObject>,
  db: Database,
  name: string,
  data: () => Record<string, string>,
  annotations: () => Record<string, string> = () => ({}),
): Promise<OwnedSecret> {
  const namespace = db.metadata?.namespace ?? '';
  let secret: SecretObject | undefined;
  try {
    secret = await client.get(namespace, name);
    if (secret && staleFor(secret, db)) {
      // Left by an earlier Database of this name (deleted and made again before the garbage collector came): its
      // tokens are no longer accepted anywhere, so it goes now rather than block the new Database.
      await client.delete(namespace, name, { preconditions: { uid: secret.metadata?.uid } });
      secret = undefined;
    }
    if (!secret) {
      try {
        secret = await client.create(newSecret(db, name, data(), annotations()));
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
        secret = await client.get(namespace, name);
      }
    }
  } catch (err) {
    // No binding in this namespace: the Project controller writes one into project namespaces only.
    if (statusCodeOf(err) === 403) return { kind: 'forbidden' };
    throw err;
  }
  return secret && ownedBy(secret, db) ? { kind: 'owned', secret } : { kind: 'conflict' };
}

/** Controlled by another Database of `db`'s name (a deleted one: names are unique in a namespace). */
function staleFor(secret: SecretObject, db: Database): boolean {
  const ref = secret.metadata?.ownerReferences?.find((r) => r.controller === true);
  return ref?.kind === 'Database' && ref.name === db.metadata?.name && ref.uid !== db.metadata?.uid;
}

function newSecret(db: Database, name: string, data: Record<string, string>, annotations: Record<string, string>): SecretObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: {
      name,
      namespace: db.metadata?.namespace ?? '',
      labels: { [DATABASE_LABEL]: db.metadata?.name ?? '' },
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
      ownerReferences: [{ apiVersion: API_VERSION, kind: 'Database', name: db.metadata?.name ?? '', uid: db.metadata?.uid ?? '', controller: true, blockOwnerDeletion: true }],
    },
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'utf8').toString('base64')])),
  };
}
