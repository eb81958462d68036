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
