// One page of a repository's branches or tags, cut from the head's refs alone (no git process): the JSON API's
// `GET /refs/{kind}`. Names are short (`feature/x`, not `refs/heads/feature/x`) and in git's byte order.
import { compareRefNames } from '../../../src/repo-store/refs.ts';

export type RefKind = 'branches' | 'tags';

export const REF_KIND_PREFIX: Readonly<Record<RefKind, string>> = { branches: 'refs/heads/', tags: 'refs/tags/' };

export interface RefPageQuery {
  /**
   * A plain string prefix of the short name, as git's `ref-prefix` and GitHub's matching-refs: `v1.` keeps
   * `v1.2.3`, `feature` keeps `feature/x` and `features`. Whole segments only: end it with `/` (`feature/`).
   */
  readonly prefix?: string;
  /** A case-insensitive substring of the short name. */
  readonly q?: string;
  /** Exclusive cursor: the last name of the previous page. */
  readonly after?: string;
  /** Page size. */
  readonly n: number;
}

export interface RefPage {
  readonly refs: { readonly name: string; readonly sha: string }[];
  /** Whether refs matching the query follow the last one of this page. */
  readonly more: boolean;
}

/** The page of `kind` refs in `refs` (full name → oid, in any order) that `query` selects. */
export function pageRefs(refs: ReadonlyMap<string, string>, kind: RefKind, query: RefPageQuery): RefPage {
  const base = REF_KIND_PREFIX[kind];
  const prefix = query.prefix ?? '';
  const needle = query.q?.toLowerCase();
  const names: string[] = [];
  for (const ref of refs.keys()) {
    if (!ref.startsWith(base)) continue;
    const name = ref.slice(base.length);
    if (!name.startsWith(prefix)) continue;
    if (needle && !name.toLowerCase().includes(needle)) continue;
    if (query.after !== undefined && compareRefNames(name, query.after) <= 0) continue;
    names.push(name);
  }
  names.sort(compareRefNames);
  return {
    refs: names.slice(0, query.n).map((name) => ({ name, sha: refs.get(base + name) as string })),
    more: names.length > query.n,
  };
}
