// The committed record of an import: one small JSON object in the bucket next to the repository
// (`repos/<owner>/<repo>/import/receipt.json`), written once with `If-None-Match: *` after the import's entry
// published. A crash between the two leaves an imported repository without a receipt: the retry (same key,
// same snapshot) finds the target's refs equal to the snapshot's and writes it then. The receipt names the
// repository incarnation, so one left by a deleted repository of the same name is never believed.
import type { ObjectStore } from '../../../src/object-store/object-store.ts';
import { importReceiptKey, parseRepoPath } from '../../../src/repo-store/index.ts';
import type { ImportSnapshot } from './import-snapshot.ts';

/** The receipt as `GET /import/receipt` and `POST /import` answer it. */
export interface ImportReceipt {
  readonly operation_key: string;
  /** The hash the import was requested with: the snapshot's `snapshot_hash`. */
  readonly request_hash: string;
  readonly snapshot: ImportSnapshot;
  /** The log entry that published the refs. */
  readonly seq: number;
  /** When the receipt was written (ISO 8601). */
  readonly imported_at: string;
}

interface StoredReceipt extends ImportReceipt {
  readonly repo_id: string;
}

/** Reads and writes the receipt of one repository incarnation. */
export class ImportReceipts {
  readonly #objects: ObjectStore;

  constructor(objects: ObjectStore) {
    this.#objects = objects;
  }

  /** The receipt of `repo` (incarnation `repoId`), or undefined. */
  async read(repo: string, repoId: string): Promise<ImportReceipt | undefined> {
    const stored = await this.#stored(repo);
    return stored?.repoId === repoId ? stored.receipt : undefined;
  }

  /** Writes the receipt unless one is there; answers the receipt that is (this one, or the one first written). */
  async write(repo: string, repoId: string, receipt: ImportReceipt): Promise<ImportReceipt> {
    const key = importReceiptKey(parseRepoPath(repo));
    const body = JSON.stringify({ ...receipt, repo_id: repoId } satisfies StoredReceipt);
    for (let attempt = 0; attempt < 3; attempt++) {
      const existing = attempt === 0 ? undefined : await this.#stored(repo);
      if (existing?.repoId === repoId) return existing.receipt;
      // None yet, or one of a deleted incarnation of the same name (replaced, by compare-and-swap).
      const put = await this.#objects.put(key, body, { contentType: 'application/json', ...(existing ? { ifMatch: existing.etag } : { ifNoneMatch: '*' }) });
      if (put.kind === 'written') return receipt;
    }
    throw new Error(`the import receipt of ${repo} kept changing while it was written`);
  }

  async #stored(repo: string): Promise<{ receipt: ImportReceipt; repoId: string; etag: string } | undefined> {
    const got = await this.#objects.get(importReceiptKey(parseRepoPath(repo)));
    if (got?.kind !== 'object') return undefined;
    const { repo_id: repoId, ...receipt } = JSON.parse(Buffer.from(got.body).toString('utf8')) as StoredReceipt;
    return { receipt, repoId, etag: got.etag };
  }
}
