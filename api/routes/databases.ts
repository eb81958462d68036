import { principalOf } from '../plugins/auth.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { integerQuery } from './integer-query.ts';
import { nextField, pageOf, PageQuery } from './pagination.ts';
import { bearerValue } from '../../src/auth/bearer-value.ts';
import { BadRequestError, NotFoundError, PublicError } from '../../src/errors.ts';
import type { DatabaseDirectory, MintedToken } from '../../src/platform/databases/databases.ts';
import { failureOf, fetchAnswer, INVALID_QUERY_TOKEN, type QueryStatement } from '../services/sql-query.ts';
import { AnswerConversionError, AnswerConverter } from '../services/answer-converter.ts';
import { UnsentAnswers } from '../services/unsent-answers.ts';
import { runMigrations } from '../services/sql-migrations.ts';
import { AnswerBudget, ResponseAnswers } from '../services/answer-budget.ts';
import { endStalledResponse } from '../services/send-deadline.ts';

/** An answer past this size is written out under a deadline (`endStalledResponse`). */
const LARGE_ANSWER_BYTES = 64 * 1024;
import { MigrateAnswer, MigrateBody } from '../schemas/database-migrations.ts';
import {
  CreatedDatabase,
  Database,
  DatabaseBody,
  DatabaseDetail,
  DatabaseParams,
  DatabasePatch,
  QueryBody,
  QueryResults,
  QueryToken,
  RestoreBody,
  RestoredDatabase,
  RotatedToken,
  TokenBody,
} from '../schemas/database.ts';
import { errorResponses } from '../schemas/problem.ts';
import { ProjectParams } from '../schemas/project.ts';

const tags = ['databases'];

/** What the database routes need: the directory, and cw-db's address for the query route. */
export interface DatabaseServices {
  databases: DatabaseDirectory;
  /** cw-db's Hrana address as the API reaches it (CW_DB_URL). */
  dbUrl: string;
}

export function databaseRoutes(app: FastifyInstance, services: DatabaseServices): void {
  // Handlers read `services` when called, never here (scripts/update-openapi.ts registers these on stand-ins).
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  // The memory this API process gives the query route's answers from cw-db, which every project shares.
  const answers = new AnswerBudget();
  const heldBy = new WeakMap<FastifyRequest, ResponseAnswers>();
  // What the route's callers have not read yet, and the thread that converts its large answers.
  const unsent = new UnsentAnswers();
  const converter = new AnswerConverter();
  app.addHook('onClose', () => converter.close());

  r.get('/v1/projects/:projectId/databases', {
    config: { auth: { scope: 'databases:read', project: true } },
    preValidation: integerQuery('limit'),
    schema: {
      tags,
      summary: 'List the project’s databases by name, a page at a time (never a token; an empty list when there are none)',
      params: ProjectParams,
      querystring: PageQuery,
      response: { 200: Type.Object({ databases: Type.Array(Database), ...nextField }), ...errorResponses(400) },
    },
    handler: async (request) => {
      const { items, next } = pageOf(services.databases.list(request.params.projectId), (d) => [d.name], request.query);
      return { databases: items, next };
    },
  });

  r.post('/v1/projects/:projectId/databases', {
    config: { auth: { scope: 'databases:write', project: true } },
    schema: {
      tags,
      summary:
        'Create a database (or restore one: restore_from copies another of the project as it was at a time). 201 with database_token, shown only here, once it answers SQL; 202 likewise when it is still being provisioned after 10 s (60 s for a restore). The same name again: 200 with created false and no token (rotate to get a new one). 422 for a restore point outside the source’s restore_window',
      params: ProjectParams,
      body: DatabaseBody,
      response: { 200: CreatedDatabase, 201: CreatedDatabase, 202: CreatedDatabase, ...errorResponses(400, 404, 409, 422, 503) },
    },
    handler: async (request, reply) => {
      const result = await services.databases.create(request.params.projectId, request.body, principalOf(request));
      const body = {
        database_id: result.view.database_id,
        ...(result.view.database_url ? { database_url: result.view.database_url, database_ws_url: result.view.database_ws_url } : {}),
        created: result.created,
        status: result.view.status,
        ...(result.token ? { database_token: result.token } : {}),
        ...(result.tokenExpiresAt ? { database_token_expires_at: result.tokenExpiresAt } : {}),
      };
      return reply.code(!result.created ? 200 : result.ready ? 201 : 202).send(body);
    },
  });

  r.get('/v1/projects/:projectId/databases/:database', {
    config: { auth: { scope: 'databases:read', project: true } },
    schema: {
      tags,
      summary: 'Get a database with its status, usage and restore window (never a token)',
      params: DatabaseParams,
      response: { 200: Type.Object({ database: DatabaseDetail }), ...errorResponses(404) },
    },
    handler: async (request) => ({ database: services.databases.get(request.params.projectId, request.params.database) }),
  });

  r.patch('/v1/projects/:projectId/databases/:database', {
    config: { auth: { scope: 'databases:write', project: true } },
    schema: {
      tags,
      summary:
        'Change a database’s limits (statement time limit, size quota; what is left out goes back to the default, or keeps the value a GitOps tool applies). 200 once the engine applies them; 202 if that took over 10 s; 422 past what the engine allows (the database keeps the limits it had)',
      params: DatabaseParams,
      body: DatabasePatch,
      response: { 200: Type.Object({ database: DatabaseDetail }), 202: Type.Object({ database: DatabaseDetail }), ...errorResponses(400, 404, 409, 422) },
    },
    handler: async (request, reply) => {
      const { view, applied } = await services.databases.setLimits(request.params.projectId, request.params.database, request.body.limits);
      return reply.code(applied ? 200 : 202).send({ database: view });
    },
  });

  r.delete('/v1/projects/:projectId/databases/:database', {
    config: { auth: { scope: 'databases:write', project: true } },
    schema: {
      tags,
      summary:
        'Delete a database: its endpoint stops answering, its data and its copies in the object store are deleted, and its name can be used again. 204 once gone; 202 when still deleting after 10 s',
      params: DatabaseParams,
      response: { 202: Type.Object({ database: Database }), 204: Type.Null(), ...errorResponses(404, 409) },
    },
    handler: async (request, reply) => {
      const { gone, view } = await services.databases.delete(request.params.projectId, request.params.database);
      return gone ? reply.code(204).send(null) : reply.code(202).send({ database: view });
    },
  });

  r.post('/v1/projects/:projectId/databases/:database/restore', {
    config: { auth: { scope: 'databases:write', project: true } },
    schema: {
      tags,
      summary:
        'Restore a database IN PLACE to its data at timestamp (within restore_window), keeping its id, URL and tokens. Open transactions are rolled back (DATABASE_RESTORED); requests arriving meanwhile wait and then run on the restored data. 200 with undo_point, the state just before: restore to it to undo. 202 when still restoring after 60 s; 409 while another restore runs; 422 outside the window',
      params: DatabaseParams,
      body: RestoreBody,
      response: { 200: RestoredDatabase, 202: RestoredDatabase, ...errorResponses(400, 404, 409, 422) },
    },
    handler: async (request, reply) => {
      const result = await services.databases.restoreInPlace(request.params.projectId, request.params.database, request.body.timestamp);
      if (!result.done) return reply.code(202).send({ database: result.view });
      return reply.code(200).send({ database: result.view, restored_to: result.restoredTo, undo_point: result.undoPoint });
    },
  });

  r.post('/v1/projects/:projectId/databases/:database/tokens/rotate', {
    config: { auth: { scope: 'databases:write', project: true } },
    schema: {
      tags,
      summary:
        'Rotate the database token: a new database_token (shown once; read-only or expiring if asked), and every earlier token of the database, query tokens included, is refused once the engine has it (200; 202 if that took over 10 s)',
      params: DatabaseParams,
      body: Type.Optional(TokenBody),
      response: { 200: RotatedToken, 202: RotatedToken, ...errorResponses(400, 404, 409) },
    },
    handler: async (request, reply) => {
      const minted = await services.databases.rotate(request.params.projectId, request.params.database, request.body ?? {}, principalOf(request));
      return reply.code(minted.applied ? 200 : 202).send({ database_token: minted.token, ...tokenFields(minted) });
    },
  });

  r.post('/v1/projects/:projectId/databases/:database/query-tokens', {
    config: { auth: { scope: 'databases:write', project: true } },
    schema: {
      tags,
      summary: 'Create a query token for the query route (shown once; read-only and expiring if asked). Earlier tokens keep working; a rotation revokes them all. 409 past 32 live tokens',
      params: DatabaseParams,
      body: Type.Optional(TokenBody),
      response: { 201: QueryToken, 202: QueryToken, ...errorResponses(400, 404, 409) },
    },
    handler: async (request, reply) => {
      const minted = await services.databases.addQueryToken(request.params.projectId, request.params.database, request.body ?? {}, principalOf(request));
      return reply.code(minted.applied ? 201 : 202).send({ query_token: minted.token, ...tokenFields(minted) });
    },
  });

  r.post('/v1/projects/:projectId/databases/:database/query', {
    // Authenticated by the query token itself (the engine checks it is this database's), not by an API token.
    config: { auth: false, rateLimitBy: (request) => queryTokenHolder(request), inFlightBy: projectInFlight },
    schema: {
      tags,
      summary:
        'Run SQL with a query token (Authorization: Bearer <query_token>): {sql, params} for one statement, or {statements: [{sql, params}]} for several in one transaction. Rows come back as JSON values (integers beyond 2^53 as strings, blobs as {base64}). 400 for a SQL error (nothing of the batch is kept), 401 for a token that is not this database’s, 429 or 503 with Retry-After when the engine did not run them (the project’s share of the engine busy; the database locked by another transaction, moving or restarting), 413 for statements too large; 502 or 504 without Retry-After when they ran or may have (the engine failed or restarted while running them, or answered too late or more than the API reads; a synchronous database’s commit applied but not yet in the object store): the detail says which, and they are not to be run again unchecked',
      security: [{ queryToken: [] }],
      params: DatabaseParams,
      body: QueryBody,
      response: { 200: QueryResults, ...errorResponses(400, 401, 404, 409, 413, 429, 502, 503, 504) },
    },
    // Given back once the answer is serialized for the caller, not when the caller has read it: a client that reads
    // nothing must not keep the room every other project's answers share. A large answer must also reach its caller
    // within a deadline, or what it has not read would stay in this process for as long as its connection lives.
    // Until the caller has taken it, an answer counts against its project's bound on answers not read (`UnsentAnswers`).
    onSend: async (request, reply, payload) => {
      heldBy.get(request)?.end();
      const bytes = Buffer.isBuffer(payload) ? payload.byteLength : typeof payload === 'string' ? Buffer.byteLength(payload) : 0;
      unsent.hold(request.params.projectId, bytes, reply.raw);
      if (bytes > LARGE_ANSWER_BYTES) endStalledResponse(reply.raw, bytes);
      return payload;
    },
    handler: async (request, reply) => {
      const { token, tenantId } = queryCaller(request.headers.authorization, request.params.projectId, request.params.database);
      const { sql, params, statements } = request.body;
      if ((sql === undefined) === (statements === undefined)) throw new BadRequestError('Give either sql (one statement) or statements (several), not both.');
      const list = (statements ?? [{ sql, params }]) as QueryStatement[];
      const projectId = request.params.projectId;
      // Only to a caller holding one of the database's tokens: anyone else learns nothing of the project.
      if (!unsent.admits(projectId) && queryTokenHolder(request) !== undefined) {
        const mib = Math.round(unsent.held(projectId) / 2 ** 20);
        throw new PublicError(
          429,
          `This project's callers have not read ${mib} MiB of earlier query answers yet, as much as the API keeps for a project (or its share while all projects' unread answers are past their bound): the statements did not run; retry once those answers are read.`,
          { 'retry-after': '5' },
        );
      }
      // The answer is held while it is read, converted and written again (until onSend, or the request's end). A
      // caller that leaves stops the reading: what it would not read is neither waited for nor converted.
      const held = new ResponseAnswers(answers, projectId);
      heldBy.set(request, held);
      const left = new AbortController();
      reply.raw.once('close', () => {
        left.abort(new Error('the caller left'));
        held.end();
      });
      const bytes = await fetchAnswer({ dbUrl: services.dbUrl, tenantId, token, statements: list, reserve: (size, signal) => held.reserve(size, signal), signal: left.signal });
      if (left.signal.aborted) throw left.signal.reason;
      const converted = await converter.convert(bytes, list.length).catch((err: unknown) => {
        throw err instanceof AnswerConversionError
          ? new PublicError(502, `The statements ran (what they wrote was applied), but the API could not read the database engine's answer: ${err.message}`)
          : err;
      });
      if (!('json' in converted)) throw failureOf(converted);
      // Already JSON, as the schema's serializer would write it: sent as it is (a Buffer is never serialized again).
      return reply.type('application/json; charset=utf-8').send(converted.json as never);
    },
  });

  r.post('/v1/projects/:projectId/databases/:database/migrations', {
    config: { auth: false, rateLimitBy: (request) => queryTokenHolder(request), inFlightBy: projectInFlight },
    // The query token is checked before the body, as on the query route: a caller without one learns nothing else.
    preValidation: async (request) => {
      const { projectId, database } = request.params as { projectId: string; database: string };
      queryCaller(request.headers.authorization, projectId, database);
    },
    schema: {
      tags,
      summary:
        'Apply a migrations folder with a query token (Authorization: Bearer <query_token>, not read-only): the files not yet recorded in the database’s _cw_migrations table, in the order of their names, each in a transaction; the first that fails stops the run and is named with its statement and SQLite’s message (nothing of it kept). dry_run only lists the pending files. The same table as deploys’ migrations: neither applies what the other did. 409 when an applied file changed',
      security: [{ queryToken: [] }],
      params: DatabaseParams,
      body: MigrateBody,
      response: { 200: MigrateAnswer, ...errorResponses(400, 401, 404, 409, 429, 503) },
    },
    handler: async (request) => {
      const { token, tenantId } = queryCaller(request.headers.authorization, request.params.projectId, request.params.database);
      return runMigrations({ dbUrl: services.dbUrl, tenantId, token, files: request.body.files, dryRun: request.body.dry_run === true });
    },
  });

  /** The query token of a request and the tenant of the database it names; 401 without a token, for a database that does not exist, or for one not ready that the token is not for. */
  /**
   * The hash of the request's query token when the database it names holds it: its rate limit's bucket, so callers
   * of different databases behind one address do not share one (a hostile run had a neighbour at the victim's address
   * take 95 of its 101 queries' room). Anything else is limited by address.
   */
  function queryTokenHolder(request: FastifyRequest): string | undefined {
    const token = bearerValue(request.headers.authorization);
    const { projectId, database } = request.params as { projectId?: string; database?: string };
    return token && projectId && database ? services.databases.tokenHolder(projectId, database, token) : undefined;
  }

  /**
   * Whom a recognised query token's requests in flight count against: its project, so a project's 50 databases of up
   * to 33 tokens each do not multiply the bound (review-161 F3).
   */
  function projectInFlight(request: FastifyRequest): string | undefined {
    const { projectId } = request.params as { projectId?: string };
    return projectId && `project:${projectId}`;
  }

  function queryCaller(authorization: string | undefined, projectId: string, database: string): { token: string; tenantId: string } {
    const token = bearerValue(authorization);
    if (!token) throw new PublicError(401, 'A query token is required: Authorization: Bearer <query_token>.', { 'www-authenticate': 'Bearer' });
    try {
      return { token, tenantId: services.databases.queryTarget(projectId, database, token).tenantId };
    } catch (err) {
      // Without a valid token, whether a database of that name exists is not the caller's to learn.
      if (err instanceof NotFoundError) throw new PublicError(401, INVALID_QUERY_TOKEN, { 'www-authenticate': 'Bearer' });
      throw err;
    }
  }
}

function tokenFields(minted: MintedToken): { token_id: string; read_only: boolean; expires_at?: string } {
  return { token_id: minted.tokenId, read_only: minted.readOnly, ...(minted.expiresAt ? { expires_at: minted.expiresAt } : {}) };
}
