// Ref writes (`write` scope): `PUT` and `DELETE /refs/{heads|tags}/{name}` move, create and delete branches and
// lightweight tags with an optional compare-and-swap on the old value; `POST /tags` creates an annotated tag.
// Each is one publishWrite: a `ref_update` log entry, as a push of the same change would be. Without
// `expected_old_oid` the client asked for no compare-and-swap: a write that loses the race to another is built
// again on the new head (as a forced commit is), until it lands or FORCE_DEADLINE_MS passes (503 `contention`).
import { gitDate, InvalidIdentityError } from '../../plumbing/write/git-ident.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { principalOf } from '../../auth/index.ts';
import { checkRevision, resolveCommit } from '../../plumbing/read/rev-parse.ts';
import { runGit } from '../../../src/git/run-git.ts';
import { isValidRefName, parseUrlRepoPath, PublishContentionError, zeroOid, type PublishResult, type RepoHead } from '../../../src/repo-store/index.ts';
import { isOid } from '../../../src/repo-store/refs.ts';
import type { RepoApiDependencies } from '../dependencies.ts';
import type { RepoParams } from '../repo-read.ts';
import { ErrorBodySchema, RepoParamsSchema, STORAGE_QUOTA_ERROR, WRITE_TURN_ERROR } from '../schemas.ts';
import { FORCE_DEADLINE_MS } from './commits-write.ts';
import { publishWrite, type WriteRequest } from './publish-write.ts';
import { writeInTurn } from './write-turns.ts';
import { InvalidWriteError, RefConflictBody, RefMismatchError, RefNameConflictError, RefNotFoundError } from './write-errors.ts';

const OID = Type.String({ pattern: '^(?:[0-9a-f]{40}|[0-9a-f]{64})$', description: 'A full object id (sha1 or sha256, lower-case hex).' });
const TARGET = Type.String({ minLength: 1, maxLength: 256, description: 'A revision naming a commit: a branch, a tag, an object id, `main~2`.' });

export const RefWriteParams = Type.Object({ ...RepoParamsSchema.properties, '*': Type.String({ minLength: 1, maxLength: 1000, description: 'The short name, e.g. `feature/x`.' }) });

export const RefWriteBody = Type.Object(
  {
    target: TARGET,
    expected_old_oid: Type.Optional({ ...OID, description: 'Where the ref must be now; the zero oid: it must not exist. Omitted: the ref is forced.' }),
  },
  { additionalProperties: false },
);
type RefWriteBody = Static<typeof RefWriteBody>;

export const RefDeleteQuery = Type.Object({ expected_old_oid: Type.Optional({ ...OID, description: 'Where the ref must be now; omitted: deleted wherever it is.' }) });
type RefDeleteQuery = Static<typeof RefDeleteQuery>;

const PERSON_TEXT = { minLength: 1, maxLength: 256, pattern: '^[^<>\\n\\r\\x00]+$' };

export const TagCreateBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 1000, description: 'The tag name, without `refs/tags/`.' }),
    target: TARGET,
    message: Type.String({ minLength: 1, maxLength: 65536, pattern: '^[^\\x00]*$' }),
    tagger: Type.Object(
      {
        name: Type.String(PERSON_TEXT),
        email: Type.String({ ...PERSON_TEXT, minLength: 0 }),
        when: Type.Optional(Type.String({ maxLength: 64, description: 'An RFC 3339 date and time with an offset (e.g. 2026-01-01T12:00:00Z), not before 1970; default now.' })),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
type TagCreateBody = Static<typeof TagCreateBody>;

export const RefWriteResult = Type.Object({
  ref: Type.String({ description: 'The full ref name.' }),
  oid: Type.String({ description: 'What the ref points at now: the tag object for an annotated tag.' }),
  peeled: Type.Optional(Type.String({ description: 'Annotated tags: the commit the tag names.' })),
  seq: Type.Integer({ description: 'The log entry (write-ahead log sequence number) that holds the change.' }),
});
type RefWriteResult = Static<typeof RefWriteResult>;

const KINDS = ['heads', 'tags'] as const;

export function refsWriteRoutes(scope: FastifyInstance, deps: RepoApiDependencies): void {
  for (const kind of KINDS) {
    const what = kind === 'heads' ? 'branch' : 'lightweight tag';
    scope.put(`/refs/${kind}/*`, {
      config: { scope: 'write' },
      schema: {
        summary: `Create or move a ${what}`,
        params: RefWriteParams,
        body: RefWriteBody,
        response: { 200: RefWriteResult, 201: RefWriteResult, 400: ErrorBodySchema, 403: ErrorBodySchema, 404: ErrorBodySchema, 409: RefConflictBody, ...WRITE_TURN_ERROR },
      },
      handler: async (request, reply) => {
        const ref = refOf(kind, request);
        const body = request.body as RefWriteBody;
        checkRevision(body.target); // before the turn: a 400 the request earns alone does not wait for one
        let created = false;
        let target = '';
        const result = await writeInTurn(deps, request, reply, (signal) =>
          publishRefWrite(deps, body.expected_old_oid === undefined, {
            ...writer(request, signal),
            build: async ({ dir, head }) => {
              target = await commitOf(dir, body.target);
              const current = head.refs.get(ref);
              const expected = expectedOld(head, body.expected_old_oid);
              // Stale is stale, even when the ref already points at the target (a create-only write used as a lock).
              if (expected !== undefined && expected !== (current ?? zeroOid(head.objectFormat))) throw new RefMismatchError(ref, current);
              const old = expected ?? current ?? zeroOid(head.objectFormat);
              created = /^0+$/.test(old);
              return [{ ref, old, new: target }];
            },
          }),
        );
        const seq = settled(result, ref);
        const answer: RefWriteResult = { ref, oid: target, seq };
        return reply.code(created && result.outcome === 'published' ? 201 : 200).send(answer);
      },
    });

    scope.delete(`/refs/${kind}/*`, {
      config: { scope: 'write' },
      schema: {
        summary: `Delete a ${what}`,
        params: RefWriteParams,
        querystring: RefDeleteQuery,
        response: { 204: Type.Null(), 400: ErrorBodySchema, 403: ErrorBodySchema, 404: ErrorBodySchema, 409: RefConflictBody, ...WRITE_TURN_ERROR },
      },
      handler: async (request, reply) => {
        const ref = refOf(kind, request);
        const { expected_old_oid: expected } = request.query as RefDeleteQuery;
        const result = await writeInTurn(deps, request, reply, (signal) =>
          publishRefWrite(deps, expected === undefined, {
            ...writer(request, signal),
            build: async ({ head }) => {
              const current = head.refs.get(ref);
              if (current === undefined) throw new RefNotFoundError(ref);
              const old = expectedOld(head, expected) ?? current;
              if (old !== current) throw new RefMismatchError(ref, current);
              return [{ ref, old, new: zeroOid(head.objectFormat) }];
            },
          }),
        );
        if (result.outcome === 'rejected' && !result.head.refs.has(ref)) throw new RefNotFoundError(ref);
        settled(result, ref);
        return reply.code(204).send();
      },
    });
  }

  scope.post('/tags', {
    config: { scope: 'write' },
    schema: {
      summary: 'Create an annotated tag',
      params: RepoParamsSchema,
      body: TagCreateBody,
      response: { 201: RefWriteResult, 400: ErrorBodySchema, 403: ErrorBodySchema, 404: ErrorBodySchema, 409: RefConflictBody, ...STORAGE_QUOTA_ERROR, ...WRITE_TURN_ERROR },
    },
    handler: async (request, reply) => {
      const body = request.body as TagCreateBody;
      const ref = `refs/tags/${body.name}`;
      if (!isValidRefName(ref)) throw new InvalidWriteError(`${JSON.stringify(body.name)} is not a valid tag name.`, 'invalid_ref_name');
      checkRevision(body.target);
      const when = taggerDate(body.tagger.when);
      let tag = '';
      let commit = '';
      const result = await writeInTurn(deps, request, reply, (signal) =>
        publishWrite(deps, {
          ...writer(request, signal),
          build: async ({ dir, env, head }) => {
            const existing = head.refs.get(ref);
            if (existing !== undefined) throw new RefMismatchError(ref, existing, 'tag_exists');
            commit = await commitOf(dir, body.target);
            const text = `object ${commit}\ntype commit\ntag ${body.name}\ntagger ${body.tagger.name} <${body.tagger.email}> ${when} +0000\n\n${body.message.endsWith('\n') ? body.message : `${body.message}\n`}`;
            tag = (await runGit(['mktag'], { env, stdin: text, signal })).stdout.toString().trim();
            return [{ ref, old: zeroOid(head.objectFormat), new: tag }];
          },
        }),
      );
      if (result.outcome === 'rejected' && result.refs.some((r) => r.status === 'rejected' && r.reason === 'stale old value')) {
        throw new RefMismatchError(ref, result.head.refs.get(ref), 'tag_exists');
      }
      const answer: RefWriteResult = { ref, oid: tag, peeled: commit, seq: settled(result, ref) };
      return reply.code(201).send(answer);
    },
  });
}

/** The full ref name of `/refs/{kind}/{name}`; 400 unless git would take it. */
function refOf(kind: (typeof KINDS)[number], request: FastifyRequest): string {
  const name = (request.params as { '*': string })['*'];
  const ref = `refs/${kind}/${name}`;
  if (!isValidRefName(ref)) throw new InvalidWriteError(`${JSON.stringify(ref)} is not a valid ref name.`, 'invalid_ref_name');
  return ref;
}

function writer(request: FastifyRequest, signal: AbortSignal): Omit<WriteRequest, 'build'> {
  const { owner, repo } = request.params as RepoParams;
  return { repo: parseUrlRepoPath(owner, repo).full, principal: principalOf(request).name, requestId: request.id, signal };
}

/** The commit `revision` names; 400 when it names none. */
async function commitOf(dir: string, revision: string): Promise<string> {
  const commit = await resolveCommit(dir, revision);
  if (commit === undefined) throw new InvalidWriteError(`Target ${JSON.stringify(revision)} names no commit in this repository.`, 'invalid_target');
  return commit;
}

/**
 * publishWrite, and for a `forced` write (no `expected_old_oid`) again on the new head while another writer
 * moves the ref first: the old value it expects is only what it read, not the client's condition.
 */
async function publishRefWrite(deps: RepoApiDependencies, forced: boolean, request: WriteRequest): Promise<PublishResult> {
  const deadline = Date.now() + FORCE_DEADLINE_MS;
  for (;;) {
    const result = await publishWrite(deps, request);
    if (!forced || !movedMeanwhile(result)) return result;
    if (Date.now() >= deadline) throw new PublishContentionError(request.repo);
  }
}

/** Whether the publish was refused because the ref was no longer at the old value the build read. */
function movedMeanwhile(result: PublishResult): boolean {
  return result.outcome === 'rejected' && result.refs.some((r) => r.status === 'rejected' && r.reason === 'stale old value');
}

/** `expected_old_oid`, checked against the repository's object format. */
function expectedOld(head: RepoHead, expected: string | undefined): string | undefined {
  if (expected !== undefined && !isOid(expected, head.objectFormat)) throw new InvalidWriteError(`expected_old_oid is not a ${head.objectFormat} object id.`);
  return expected;
}

/** The seq that holds the write (unchanged: the head's); a rejection becomes its 409. */
function settled(result: PublishResult, ref: string): number {
  if (result.outcome === 'published') return result.seq;
  if (result.outcome === 'unchanged') return result.head.seq;
  const rejected = result.refs.find((r) => r.status === 'rejected' && r.reason !== 'atomic push failure');
  if (rejected?.status === 'rejected' && rejected.reason === 'ref name conflict') throw new RefNameConflictError(ref, rejected.conflictsWith);
  throw new RefMismatchError(ref, result.head.refs.get(ref));
}

/** `when` (RFC 3339 with an offset, as a commit's; default now) as git's seconds since the epoch. */
function taggerDate(when: string | undefined): number {
  if (when === undefined) return Math.floor(Date.now() / 1000);
  try {
    return Number(gitDate(when).split(' ')[0]);
  } catch (error) {
    if (error instanceof InvalidIdentityError) throw new InvalidWriteError(`tagger.when: ${error.message}`);
    throw error;
  }
}
