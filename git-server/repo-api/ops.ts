// `GET /api/ops` lists the repository operations; `POST /api/ops/{op}` (`write` scope) runs one now as a task of
// this instance: checkpoint, compact, gc and fsck through the maintenance runner, sync by bringing this instance's
// cached copy to the bucket's head. A second POST while the same operation runs on the same repository attaches to
// the running task. Answered 202 with the record and its Location, or, with `Accept: text/event-stream`, followed.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { PublicError } from '../../src/errors.ts';
import { isOperationId, OPERATIONS, type OperationId, type UnitContext, type UnitResult } from '../../src/repo-maintenance/operation.ts';
import { parseUrlRepoPath } from '../../src/repo-store/index.ts';
import type { ErrorDetails } from '../errors.ts';
import { TaskRecord } from '../tasks/task-record.ts';
import type { RepoApiDependencies } from './dependencies.ts';
import type { RepoParams } from './repo-read.ts';
import { ErrorBodySchema, RepoParamsSchema } from './schemas.ts';
import { streamTask, wantsEventStream } from './task-stream.ts';
import { TASK_EVENT_STREAM } from './tasks.ts';

const OPERATION_IDS = OPERATIONS.map((op) => op.id);

export const OperationList = Type.Object({
  operations: Type.Array(
    Type.Object({
      id: Type.String({ description: 'What `POST /api/ops/{op}` takes.' }),
      label: Type.String(),
      description: Type.String(),
      writes: Type.Boolean({ description: 'Whether it changes the bucket (running any operation needs the `write` scope).' }),
    }),
  ),
  recent: Type.Array(TaskRecord, { description: 'The repository’s tasks on this instance: running ones first, then ended ones, newest first.' }),
});

const OpParams = Type.Object({ ...RepoParamsSchema.properties, op: Type.String({ minLength: 1, maxLength: 64, description: `The operation: ${OPERATION_IDS.join(', ')}.` }) });

/** No parameters yet: an empty body or `{}`. */
const OpBody = Type.Object({}, { additionalProperties: false, description: 'No parameters yet: send no body, or `{}`.' });

export const TaskStarted = Type.Object({
  ...TaskRecord.properties,
  attached: Type.Boolean({ description: 'True when the operation was already running on the repository here: this is that task, not a new one.' }),
});

const OpNotFoundBody = Type.Object({
  ...ErrorBodySchema.properties,
  operations: Type.Optional(Type.Array(Type.String(), { description: 'unknown_operation: the operations there are.' })),
});

/** 404: not an operation; the answer lists those there are. */
export class UnknownOperationError extends PublicError implements ErrorDetails {
  override readonly name = 'UnknownOperationError';
  readonly code = 'unknown_operation';
  readonly details = { operations: OPERATION_IDS };
  constructor(op: string) {
    super(404, `${JSON.stringify(op)} is not an operation; the operations are ${OPERATION_IDS.join(', ')}.`);
  }
}

/** 501: a bucket-side operation on an instance built without the maintenance runner. */
export class OperationUnavailableError extends PublicError {
  override readonly name = 'OperationUnavailableError';
  readonly code = 'operation_unavailable';
  constructor(op: string) {
    super(501, `This instance cannot run ${op}: it has no maintenance runner.`);
  }
}

export function opsRoutes(scope: FastifyInstance, deps: RepoApiDependencies): void {
  scope.get('/ops', {
    config: { scope: 'read' },
    schema: { summary: 'The repository operations, and the repository’s recent tasks on this instance', params: RepoParamsSchema, response: { 200: OperationList } },
    handler: async (request, reply) => {
      const { running, recent } = deps.tasks.list(repoName(request));
      reply.header('cache-control', 'no-store');
      return { operations: OPERATIONS.map(({ id, label, description, writes }) => ({ id, label, description, writes })), recent: [...running.reverse(), ...recent] };
    },
  });

  // An empty body sent as `application/json` means no parameters, as `{}` does (`curl -X POST -H 'content-type: …'`).
  scope.register(async (ops) => {
    const json = ops.getDefaultJsonParser('error', 'error');
    ops.removeContentTypeParser('application/json');
    ops.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      const text = body.toString();
      if (text === '') done(null, {});
      else void json(request, text, done);
    });
    ops.post('/ops/:op', {
      // Refused while the instance drains (503 draining): no new unit starts then, and a followed task holds the drain.
      config: { scope: 'write', drains: true },
      // No body at all is no parameters too.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        summary: 'Run an operation now, as a task of this instance (attaches to the same operation running); with `Accept: text/event-stream`, follow it',
        params: OpParams,
        body: OpBody,
        response: {
          200: { description: 'With `Accept: text/event-stream`: the task’s events until it ends.', content: TASK_EVENT_STREAM },
          202: TaskStarted,
          400: ErrorBodySchema,
          404: OpNotFoundBody,
          429: Type.Object(ErrorBodySchema.properties, {
            description: 'The owner has two operations running on this instance (`owner_tasks_limit`, `Retry-After`); 503 `tasks_busy` past the instance’s four.',
          }),
          501: ErrorBodySchema,
        },
      },
      handler: async (request, reply) => {
        const { op } = request.params as { op: string };
        if (!isOperationId(op)) throw new UnknownOperationError(op);
        const repo = repoName(request);
        await deps.repos.readHead(repo); // 404 repository_not_found before any task exists
        const { task, attached } = deps.tasks.start(repo, op, runnerOf(deps, repo, op), { trigger: 'api', by: request.gitPrincipal?.name, log: request.log });
        // The same lane and spelling of the repository the client used.
        const location = `${request.url.split('?', 1)[0]?.replace(/\/ops\/[^/]*$/, '')}/tasks/${task.id}`;
        if (wantsEventStream(request)) return streamTask(reply, task, deps.tasks.keepaliveMs, { location });
        return reply
          .code(202)
          .header('location', location)
          .send({ ...task.record(), attached });
      },
    });
  });
}

function repoName(request: FastifyRequest): string {
  const { owner, repo } = request.params as RepoParams;
  return parseUrlRepoPath(owner, repo).full;
}

/** What the task of `op` on `repo` runs. */
function runnerOf(deps: RepoApiDependencies, repo: string, op: OperationId): (ctx: UnitContext) => Promise<UnitResult> {
  if (op === 'sync') {
    return async (ctx) => {
      ctx.progress(0, 1, 'syncing');
      const { head } = await deps.cache.sync(repo, { fresh: true });
      ctx.log(`the bucket's head is seq ${head.seq} with ${head.packs.length} packs`);
      ctx.progress(1, 1, 'synced');
      return { summary: `This instance's copy of ${repo} is at seq ${head.seq}.` };
    };
  }
  const maintenance = deps.maintenance;
  if (!maintenance) throw new OperationUnavailableError(op);
  return (ctx) => maintenance.run(repo, op, ctx);
}
