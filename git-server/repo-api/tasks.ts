// `GET /api/tasks` and `GET /api/tasks/{id}`: this instance's tasks of the repository, answered from memory (no
// bucket read). A task is known only to the instance running it: behind a load balancer, ask the instance its
// record names, or follow the task on the connection that started it.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { PublicError } from '../../src/errors.ts';
import { parseUrlRepoPath } from '../../src/repo-store/index.ts';
import { TaskRecord } from '../tasks/task-record.ts';
import type { RepoApiDependencies } from './dependencies.ts';
import type { RepoParams } from './repo-read.ts';
import { ErrorBodySchema, RepoParamsSchema } from './schemas.ts';
import { streamTask, wantsEventStream } from './task-stream.ts';

export const TaskList = Type.Object({
  instance: Type.String({ description: 'The instance that answered: the list is of its tasks only.' }),
  running: Type.Array(TaskRecord, { description: 'Oldest first.' }),
  recent: Type.Array(TaskRecord, { description: 'Ended tasks this instance still remembers, newest first.' }),
});

const TaskParams = Type.Object({ ...RepoParamsSchema.properties, id: Type.String({ minLength: 1, maxLength: 64, description: 'The task id.' }) });

/** The `text/event-stream` answer, as the reference shows it. */
export const TASK_EVENT_STREAM = {
  'text/event-stream': {
    schema: {
      type: 'string',
      description: 'Events `task` (the record), then `progress` ({done, total, phase}) and `log` ({line}), then one `result` or `error` (the final record); `: keepalive` comments every 10 s.',
    },
  },
};

/** 404: no task with this id on this instance for this repository. */
export class TaskNotFoundError extends PublicError {
  override readonly name = 'TaskNotFoundError';
  readonly code = 'task_not_found';
  constructor(id: string, repo: string, instance: string) {
    super(404, `No task ${JSON.stringify(id)} of ${repo} on instance ${instance} (a task is known only to the instance running it, until it is among the oldest it remembers).`);
  }
}

export function tasksRoutes(scope: FastifyInstance, deps: RepoApiDependencies): void {
  scope.get('/tasks', {
    config: { scope: 'read' },
    schema: { summary: 'The repository’s running and recent tasks on this instance', params: RepoParamsSchema, response: { 200: TaskList } },
    handler: async (request, reply) => {
      const { owner, repo } = request.params as RepoParams;
      reply.header('cache-control', 'no-store');
      return deps.tasks.list(parseUrlRepoPath(owner, repo).full);
    },
  });

  scope.get('/tasks/:id', {
    config: { scope: 'read' },
    schema: {
      summary: 'A task’s record; with `Accept: text/event-stream`, follow it live until it ends',
      params: TaskParams,
      response: { 200: { description: 'The record, or its event stream.', content: { 'application/json': { schema: TaskRecord }, ...TASK_EVENT_STREAM } }, 404: ErrorBodySchema },
    },
    handler: async (request, reply) => {
      const { owner, repo, id } = request.params as RepoParams & { id: string };
      const name = parseUrlRepoPath(owner, repo).full;
      const task = deps.tasks.get(id);
      if (!task || task.repo !== name) throw new TaskNotFoundError(id, name, deps.tasks.instance);
      // Fastify's HEAD twin of this route would drain a stream without ever closing it: HEAD answers the record's headers.
      if (request.method === 'GET' && wantsEventStream(request)) return streamTask(reply, task, deps.tasks.keepaliveMs);
      reply.header('cache-control', 'no-store');
      return task.record();
    },
  });
}
