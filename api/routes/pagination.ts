import { Type } from 'typebox';

export const PAGE_DEFAULT = 100;
export const PAGE_MAX = 1000;

/** The query of every paginated list route: `limit` and the `cursor` its previous page answered as `next`. */
export const PageQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_MAX, description: `Items per page (default ${PAGE_DEFAULT}, at most ${PAGE_MAX}).` })),
    cursor: Type.Optional(
      Type.String({ pattern: '^[A-Za-z0-9_-]+$', maxLength: 1024, description: 'The `next` of the previous page, as it was (opaque): the page continues after the item it names.' }),
    ),
  },
  { additionalProperties: false },
);
export type PageQuery = { limit?: number; cursor?: string };

/** The field every paginated answer adds beside its list. */
export const nextField = {
  next: Type.Unsafe<string | null>({
    type: ['string', 'null'],
    description: 'An opaque cursor: pass it as `cursor` for the next page; null on the last page.',
  }),
};

/**
 * One page of `items` in the order of `keyOf` (tuples compared field by field), after the item the cursor
 * names. The cursor carries that item's key, not a position, so the pages of a list that changes between
 * requests neither skip nor repeat an item that was there throughout (keyset pagination).
 */
export function pageOf<T>(items: readonly T[], keyOf: (item: T) => readonly string[], query: PageQuery): { items: T[]; next: string | null } {
  const limit = query.limit ?? PAGE_DEFAULT;
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  const sorted = items.map((item) => ({ item, key: keyOf(item) })).sort((a, b) => compareKeys(a.key, b.key));
  const start = after === undefined ? 0 : sorted.findIndex(({ key }) => compareKeys(key, after) > 0);
  const page = start === -1 ? [] : sorted.slice(start, start + limit);
  const last = page.at(-1);
  const more = start !== -1 && start + limit < sorted.length;
  return { items: page.map(({ item }) => item), next: more && last ? encodeCursor(last.key) : null };
}

// Code-unit order, not localeCompare: a total order that never calls two different keys equal, whatever the locale.
function compareKeys(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? '';
    const y = b[i] ?? '';
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

// The key's fields joined by NUL (which no id or name holds), in base64url. Every string the query's pattern
// admits decodes to some key, so no cursor is refused: one the API did not answer continues after whatever
// key it spells.
const encodeCursor = (key: readonly string[]) => Buffer.from(key.join('\0')).toString('base64url');
const decodeCursor = (cursor: string) => Buffer.from(cursor, 'base64url').toString('utf8').split('\0');
