import { createHash } from 'node:crypto';
import type { RepoPath } from '../../src/repo-store/index.ts';

// Room for a readable prefix, a dash and the hash within a DNS-1123 label (63), which keeps `kubectl get`
// columns narrow although a resource name could be a 253-character subdomain.
const READABLE = 50;
const HASH_HEX = 10;

/**
 * The `Repository` resource name the directory uses for `owner/name`: lowercase, every run of characters
 * outside [a-z0-9] turned into one `-`, cut to 50 characters, then `-` and 10 hex digits of the SHA-256 of
 * the exact `owner/name`. Deterministic, so a second create of the same name meets the first; the hash
 * keeps names apart that differ only in case or punctuation (`Acme/App` vs `acme/app`, `a.b/c` vs `a-b/c`).
 */
export function repositoryResourceName(repo: RepoPath): string {
  const readable = `${repo.owner}-${repo.name}`
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, READABLE)
    .replace(/^-+|-+$/g, '');
  const hash = createHash('sha256').update(repo.full).digest('hex').slice(0, HASH_HEX);
  return readable ? `${readable}-${hash}` : hash;
}
