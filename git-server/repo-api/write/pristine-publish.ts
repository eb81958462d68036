// The publish of an initialize or an import: objects copied into a repository with no refs, in the request's write
// turn, published only while the target still has none.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PublishResult } from '../../../src/repo-store/publish.ts';
import { parseUrlRepoPath } from '../../../src/repo-store/index.ts';
import { principalOf } from '../../auth/index.ts';
import type { RepoApiDependencies } from '../dependencies.ts';
import type { RepoParams } from '../repo-read.ts';
import { publishWrite, type WriteRequest } from './publish-write.ts';
import { writeInTurn } from './write-turns.ts';

/** Thrown inside the build when the target has refs by then: the request is answered as a replay or 409. */
class TargetNotPristine extends Error {
  override readonly name = 'TargetNotPristine';
}

/**
 * Runs `build` and publishes what it wrote into the request's repository, in the request's write turn, only if the
 * repository has no refs (when it built and when it publishes: another initialize or import may land in between).
 * Undefined when it had refs by then: the caller answers as a replay or 409.
 */
export async function publishIntoPristine(deps: RepoApiDependencies, request: FastifyRequest, reply: FastifyReply, build: WriteRequest['build']): Promise<PublishResult | undefined> {
  const { owner, repo } = request.params as RepoParams;
  try {
    return await writeInTurn(deps, request, reply, (signal) =>
      publishWrite(deps, {
        repo: parseUrlRepoPath(owner, repo).full,
        principal: principalOf(request).name,
        requestId: request.id,
        signal,
        onlyIfNoRefs: true,
        build: async (context) => {
          if (context.head.refs.size > 0) throw new TargetNotPristine();
          return build(context);
        },
      }),
    );
  } catch (error) {
    if (error instanceof TargetNotPristine) return undefined;
    throw error;
  }
}
