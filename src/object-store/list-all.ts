import type { ObjectInfo, ObjectStore } from './object-store.ts';

/** Every object under `prefix`, page after page. Never on a hot path: a LIST walks the prefix. */
export async function* listAll(store: ObjectStore, prefix: string): AsyncGenerator<ObjectInfo> {
  let startAfter: string | undefined;
  do {
    const page = await store.list(prefix, startAfter === undefined ? {} : { startAfter });
    yield* page.items;
    startAfter = page.next;
  } while (startAfter !== undefined);
}

/** Every "directory" directly under `prefix` (`listPrefixes`), page after page. */
export async function* listAllPrefixes(store: ObjectStore, prefix: string): AsyncGenerator<string> {
  let after: string | undefined;
  do {
    const page = await store.listPrefixes(prefix, after === undefined ? {} : { after });
    yield* page.prefixes;
    after = page.next;
  } while (after !== undefined);
}
