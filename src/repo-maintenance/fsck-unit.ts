// fsck: `git fsck` of the published state (the head's refs over its live packs), in the maintainer's working
// copy. The result is recorded in the status and as `service_repo_missing_objects{repo}`.
import { runGit } from '../git/run-git.ts';
import type { RepoHead } from '../repo-store/head-cache.ts';
import type { MaintenanceContext } from './context.ts';
import { UnitInterruptedError, type UnitContext, type UnitResult } from './operation.ts';
import type { FsckRecord, MaintenanceStatus } from './status.ts';
import { syncWorkingCopy } from './working-copy.ts';

/** Problem lines kept in the record. */
const PROBLEMS_KEPT = 20;
const OID = '([0-9a-f]{40}|[0-9a-f]{64})';
// The shapes of git fsck's lines that name an object the repository needs and does not have.
const MISSING = [new RegExp(`^missing \\w+ ${OID}`), new RegExp(`invalid sha(?:1|256) pointer ${OID}`), new RegExp(`^broken link from .* to\\s+\\w+ ${OID}`)];

export async function runFsck(
  ctx: MaintenanceContext,
  repo: string,
  head: RepoHead,
  unit: UnitContext,
  status: MaintenanceStatus,
): Promise<{ result: UnitResult; status: MaintenanceStatus; record: FsckRecord }> {
  const problems: string[] = [];
  unit.progress(0, 2, 'fetching packs');
  const dir = await syncWorkingCopy(ctx, repo, head, { onUnavailable: (sha256, error) => problems.push(`pack ${sha256}: ${error.message}`) });
  if (unit.signal.aborted) throw new UnitInterruptedError();
  unit.progress(1, 2, 'git fsck');
  const fsck = await runGit(['-C', dir, 'fsck', '--no-dangling', '--no-progress'], { okCodes: [0, 1, 2, 3, 4, 5, 6, 7], signal: unit.signal }).catch((err: unknown) => {
    if (unit.signal.aborted) throw new UnitInterruptedError();
    throw err;
  });
  const missing = new Set<string>();
  for (const line of `${fsck.stdout.toString()}\n${fsck.stderr}`.split('\n')) {
    const text = line.trim();
    if (!text || text.startsWith('notice:') || text.startsWith('Checking')) continue;
    problems.push(text);
    for (const pattern of MISSING) {
      const oid = pattern.exec(text)?.[1];
      if (oid) missing.add(oid);
    }
  }
  for (const line of problems.slice(0, PROBLEMS_KEPT)) unit.log(line);
  const clean = fsck.code === 0 && problems.length === 0;
  const record: FsckRecord = { at: ctx.now().toISOString(), seq: head.seq, outcome: 'succeeded', missingObjects: missing.size, problems: problems.slice(0, PROBLEMS_KEPT) };
  unit.progress(2, 2, 'done');
  const summary = clean ? `git fsck of seq ${head.seq}: clean` : `git fsck of seq ${head.seq}: ${missing.size} missing objects, ${problems.length} problems`;
  unit.log(summary);
  return { result: { summary }, status: { ...status, fsck: record }, record };
}
