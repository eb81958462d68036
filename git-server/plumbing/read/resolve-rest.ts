// The `{rest}` of `/resolve/{rest}`, `/tree/{rest}` and `/blob/{rest}`: a revision, then optionally `/` and a path,
// in one string (`feature/login/src/app.js`). Ref names contain slashes too, so the split is decided by the refs
// that exist: the longest branch or tag name that is a whole-segment prefix wins, a branch beating a tag of the
// same name; failing that, the first segment may be a full or abbreviated object id. Pure.

/** What `{rest}` addresses: a ref (full name) or an object id (as typed, lowercased), and the path after it. */
export type RestTarget = { readonly ref: string; readonly path: string } | { readonly oid: string; readonly path: string };

const BRANCH = 'refs/heads/';
const TAG = 'refs/tags/';
/** Abbreviated (git's minimum is 4) up to a full sha256 object id. */
const OID = /^[0-9a-fA-F]{4,64}$/;

/**
 * Splits `rest` (no leading `/`) against `refs` (full ref names). Undefined when it starts with no ref or oid.
 * git's own `<revision>:<path>` form (`main:src/app.js`) is taken too: the revision is then everything before the
 * first colon (ref names cannot contain one).
 */
export function splitRest(rest: string, refs: Iterable<string>): RestTarget | undefined {
  const colon = rest.indexOf(':');
  if (colon > 0) {
    // Only when what is before the colon is a revision alone: a file name may hold a colon too.
    const target = splitRest(rest.slice(0, colon), refs);
    if (target && target.path === '') return { ...target, path: rest.slice(colon + 1) };
  }
  let best: { ref: string; length: number; branch: boolean } | undefined;
  for (const ref of refs) {
    const branch = ref.startsWith(BRANCH);
    if (!branch && !ref.startsWith(TAG)) continue;
    const name = ref.slice(branch ? BRANCH.length : TAG.length);
    if (rest !== name && !rest.startsWith(`${name}/`)) continue;
    if (!best || name.length > best.length || (name.length === best.length && branch && !best.branch)) best = { ref, length: name.length, branch };
  }
  if (best) return { ref: best.ref, path: rest.slice(best.length + 1) };
  const slash = rest.indexOf('/');
  const first = slash === -1 ? rest : rest.slice(0, slash);
  if (OID.test(first)) return { oid: first.toLowerCase(), path: slash === -1 ? '' : rest.slice(slash + 1) };
  return undefined;
}

/** The first path segment of `rest`: what an error names when nothing matched. */
export function firstSegment(rest: string): string {
  return rest.split('/', 1)[0] ?? '';
}
