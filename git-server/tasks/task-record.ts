// What the API shows of a task (`GET /api/tasks/{id}`, the SSE `task`, `result` and `error` events): one TypeBox
// schema gives the TypeScript type, the response serializer and the OpenAPI description.
import { Type, type Static } from 'typebox';

export type TaskState = 'running' | 'succeeded' | 'failed' | 'interrupted';

/** Who started a task: a `POST /api/ops/{op}`, or this instance's maintainer on its own schedule. */
export type TaskTrigger = 'api' | 'maintainer';

/** How many log lines a task keeps (the tail); older lines are dropped. */
export const LOG_TAIL_LINES = 50;

export const TaskProgress = Type.Object(
  {
    done: Type.Number({ minimum: 0, description: 'Units of work done in this phase.' }),
    total: Type.Number({ minimum: 0, description: 'Units of work in this phase (0 when not known).' }),
    phase: Type.String({ description: 'What the task is doing now, e.g. `listing`, `repacking`.' }),
  },
  { description: 'Progress of the current phase.' },
);
export type TaskProgress = Static<typeof TaskProgress>;

export const TaskRecord = Type.Object({
  id: Type.String({ description: 'Random, URL-safe; known to the instance that runs the task only.' }),
  operation: Type.String({ description: 'The operation: checkpoint, compact, gc, fsck or sync.' }),
  repo: Type.String({ description: '`owner/name`.' }),
  instance: Type.String({ description: 'The cw-git instance running it (host and port): tasks live in that instance’s memory.' }),
  trigger: Type.Union([Type.Literal('api'), Type.Literal('maintainer')], {
    description: '`api`: started by `POST /api/ops/{op}`; `maintainer`: by the instance’s maintenance pass.',
  }),
  state: Type.Union([Type.Literal('running'), Type.Literal('succeeded'), Type.Literal('failed'), Type.Literal('interrupted')], {
    description:
      '`interrupted`: stopped because the instance was shutting down or, for a maintainer unit, because it ran past `maintenance.unit_deadline` (the summary says which); nothing half-done is visible and the next maintenance pass runs it again.',
  }),
  started_at: Type.String({ description: 'ISO 8601.' }),
  ended_at: Type.Union([Type.String(), Type.Null()], { description: 'ISO 8601; null while running.' }),
  elapsed_ms: Type.Integer({ minimum: 0, description: 'Since it started (until it ended).' }),
  summary: Type.Union([Type.String(), Type.Null()], { description: 'One sentence: what it did, or why it failed; null while running.' }),
  progress: Type.Union([TaskProgress, Type.Null()], { description: 'The last progress reported; null before the first.' }),
  log_tail: Type.Array(Type.String(), { description: `The last ${LOG_TAIL_LINES} log lines, oldest first.` }),
});
export type TaskRecord = Static<typeof TaskRecord>;
