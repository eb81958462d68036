// What `POST /_events/notify` may carry (spec "Wake-ups"): a storage notification (`Records[]`, the S3 event
// format MinIO and S3 send, object keys URL-encoded), `{key}` (an object key) or `{repo}` (`owner/repo`). Only
// manifest writes wake a repository: every publish ends with one, and nothing else needs the bridge.
import { parseRepoPath } from '../../src/repo-store/repo-path.ts';

const MANIFEST_KEY = /^repos\/([^/]+)\/([^/]+)\/manifest\.json$/;

/** The repository whose manifest `key` is, or `undefined` for any other key. */
export function repoOfManifestKey(key: string): string | undefined {
  const match = MANIFEST_KEY.exec(key);
  if (!match) return undefined;
  try {
    return parseRepoPath(`${match[1]}/${match[2]}`).full;
  } catch {
    return undefined;
  }
}

/** An S3 event key (URL-encoded, a space as `+`), decoded; `undefined` when it is not valid encoding. */
function decodeEventKey(key: string): string | undefined {
  try {
    return decodeURIComponent(key.replace(/\+/g, '%20'));
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The repositories a notify body names, each once, in order; or why the body is not one of the three shapes. */
export function repositoriesToWake(body: unknown): { readonly repos: readonly string[] } | { readonly error: string } {
  if (!isObject(body)) return { error: 'The body must be a JSON object: a storage notification with Records, {"key": …} or {"repo": …}.' };
  const repos = new Set<string>();
  if ('Records' in body) {
    if (!Array.isArray(body.Records)) return { error: 'Records must be an array of storage event records.' };
    for (const record of body.Records) {
      const s3 = isObject(record) && isObject(record.s3) ? record.s3 : undefined;
      const key = s3 && isObject(s3.object) && typeof s3.object.key === 'string' ? decodeEventKey(s3.object.key) : undefined;
      const repo = key === undefined ? undefined : repoOfManifestKey(key);
      if (repo) repos.add(repo);
    }
    return { repos: [...repos] };
  }
  if ('key' in body) {
    if (typeof body.key !== 'string') return { error: 'key must be an object key (a string).' };
    const repo = repoOfManifestKey(body.key);
    return { repos: repo ? [repo] : [] };
  }
  if ('repo' in body) {
    if (typeof body.repo !== 'string') return { error: 'repo must be a repository name, owner/repo.' };
    try {
      return { repos: [parseRepoPath(body.repo).full] };
    } catch (err) {
      return { error: (err as Error).message };
    }
  }
  return { error: 'Expected a storage notification with Records, {"key": …} or {"repo": …}.' };
}
