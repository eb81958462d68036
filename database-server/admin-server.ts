import { timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import type { EngineTenant } from '../src/platform/databases/engine-client.ts';
import { LimitOutOfRangeError } from './limit-policy.ts';
import type { ShardState } from './shards/shard-pool.ts';
import { NoCapacityError, RestorePointUnavailableError, TenantNotFoundError, type TenantDescription } from './tenant-admin-types.ts';
import { NotOwnerError, type TenantDirectory } from './tenant-directory.ts';
import { FORWARDED_HEADER, MOVING, onOwner, type RouteDecision } from './hrana/forward.ts';
import type { RequestedLimits } from './tenant-meta.ts';

const TENANT = '^[a-z0-9][a-z0-9-]{0,62}$';
/** A share key: a project's name, or the account the platform's operator sends (`user:<user name>`, `project:<name>`). */
const SHARE = '^[a-z0-9][a-z0-9.:-]{0,262}$';

/** The admin API's view of a tenant: the operator turns it into the Database's status. */
export const TenantBody = Type.Object(
  {
    tokens: Type.Array(
      Type.Object(
        {
          sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
          read_only: Type.Optional(Type.Boolean()),
          expires_at: Type.Optional(Type.String({ format: 'date-time' })),
        },
        { additionalProperties: false },
      ),
      { maxItems: 64 },
    ),
    durability: Type.Union([Type.Literal('async'), Type.Literal('sync')]),
    /** Whose share the database uses: requests, open databases and storage are shared out fairly between shares. */
    project: Type.Optional(Type.String({ pattern: SHARE })),
    restore_from: Type.Optional(Type.Object({ tenant: Type.String({ pattern: TENANT }), at: Type.String({ format: 'date-time' }) }, { additionalProperties: false })),
    limits: Type.Optional(
      Type.Object(
        {
          statement_timeout_ms: Type.Optional(Type.Integer({ minimum: 10, maximum: 3_600_000 })),
          max_size_bytes: Type.Optional(Type.Integer({ minimum: 1_048_576 })),
          rows_read_per_day: Type.Optional(Type.Integer({ minimum: 1 })),
          rows_written_per_day: Type.Optional(Type.Integer({ minimum: 1 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type TenantBody = Static<typeof TenantBody>;

const Params = Type.Object({ tenant: Type.String({ pattern: TENANT }) });
const RestoreBody = Type.Object({ at: Type.String({ format: 'date-time' }), request: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) }, { additionalProperties: false });

/**
 * cw-db's admin API, for the operator only (its own port, a bearer token): `PUT /v1/tenants/{tenant}` creates a
 * tenant (optionally restored from another at a time) or updates its tokens and durability, `GET` describes it
 * (size, usage, restore window), `DELETE` removes it with its bucket data, `POST …/restore` restores it in place,
 * `POST …/ship` ships its commits now (several replicas: before another copies it). `GET /readyz` answers without a
 * token. With `route` (several replicas), a tenant's calls are forwarded to the replica that owns it.
 */
export async function adminServer(options: {
  directory: TenantDirectory;
  token: string;
  shards?: () => ShardState[];
  /** How many databases have their connection open now (idle ones are closed). */
  openDatabases?: () => number;
  logger?: boolean;
  route?: AdminRouter;
}): Promise<FastifyInstance> {
  const app = Fastify({ logger: options.logger ?? false, bodyLimit: 1024 * 1024 });
  const expected = Buffer.from(`Bearer ${options.token}`);

  app.get('/readyz', async () => ({ status: 'ready' }));
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.register(async (api) => {
    api.addHook('onRequest', async (request, reply) => {
      const given = Buffer.from(request.headers.authorization ?? '');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        await reply.code(401).send({ code: 'UNAUTHORIZED', message: 'The admin token is missing or wrong' });
      }
    });

    // Several replicas: a tenant's calls go to the replica that owns it (or, for a new one, to where it is placed).
    const route = options.route;
    if (route) {
      api.addHook('preHandler', async (request, reply) => {
        const tenant = (request.params as { tenant?: string } | undefined)?.tenant;
        if (tenant === undefined) return;
        const decision = await route(tenant, request.method, request.headers[FORWARDED_HEADER] !== undefined);
        if (decision.kind === 'unavailable') return reply.code(503).header('retry-after', '1').send(MOVING);
        if (decision.kind === 'forward') {
          const answer = await fetch(onOwner(request.url, decision.url), {
            method: request.method,
            headers: { authorization: request.headers.authorization ?? '', [FORWARDED_HEADER]: '1', ...(request.body === undefined ? {} : { 'content-type': 'application/json' }) },
            ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
          }).catch(() => undefined);
          if (answer === undefined) return reply.code(503).header('retry-after', '1').send(MOVING);
          return reply
            .code(answer.status)
            .header('content-type', answer.headers.get('content-type') ?? 'application/json')
            .send(answer.status === 204 ? undefined : await answer.text());
        }
      });
    }

    api.put<{ Params: Static<typeof Params>; Body: TenantBody }>('/v1/tenants/:tenant', { schema: { params: Params, body: TenantBody } }, async (request, reply) => {
      const body = request.body;
      try {
        const { created } = await options.directory.ensure(request.params.tenant, {
          durability: body.durability,
          tokens: body.tokens.map((t) => ({ sha256: t.sha256, readOnly: t.read_only ?? false, ...(t.expires_at ? { expiresAt: Date.parse(t.expires_at) } : {}) })),
          ...(body.project ? { project: body.project } : {}),
          ...(body.restore_from ? { restoreFrom: { tenant: body.restore_from.tenant, at: Date.parse(body.restore_from.at) } } : {}),
          ...(body.limits ? { limits: requestedLimits(body.limits) } : {}),
        });
        const description = await options.directory.describe(request.params.tenant);
        return reply.code(created ? 201 : 200).send({ created, ...(description ? wire(description) : {}) });
      } catch (err) {
        if (err instanceof RestorePointUnavailableError) return reply.code(422).send({ code: 'RESTORE_POINT_UNAVAILABLE', message: err.message });
        if (err instanceof LimitOutOfRangeError) return reply.code(422).send({ code: 'LIMIT_OUT_OF_RANGE', message: err.message });
        if (err instanceof NotOwnerError) return reply.code(503).header('retry-after', '1').send(MOVING);
        if (err instanceof NoCapacityError) return reply.code(503).send({ code: 'NO_CAPACITY', message: err.message });
        throw err;
      }
    });

    // In place: the tenant keeps its tokens and endpoint; the answer names the restore point that undoes it.
    api.post<{ Params: Static<typeof Params>; Body: Static<typeof RestoreBody> }>('/v1/tenants/:tenant/restore', { schema: { params: Params, body: RestoreBody } }, async (request, reply) => {
      try {
        const done = await options.directory.restoreInPlace(request.params.tenant, Date.parse(request.body.at), request.body.request);
        return { restored_to: new Date(done.restoredTo).toISOString(), undo_point: new Date(done.undoPoint).toISOString() };
      } catch (err) {
        if (err instanceof TenantNotFoundError) return reply.code(404).send({ code: 'TENANT_NOT_FOUND', message: err.message });
        if (err instanceof RestorePointUnavailableError) return reply.code(422).send({ code: 'RESTORE_POINT_UNAVAILABLE', message: err.message });
        throw err;
      }
    });

    // Several replicas: another one copies this database as of now; its commits must be in the bucket first.
    api.post<{ Params: Static<typeof Params> }>('/v1/tenants/:tenant/ship', { schema: { params: Params } }, async (request, reply) => {
      if (!(await options.directory.ship(request.params.tenant))) return reply.code(404).send({ code: 'TENANT_NOT_FOUND', message: 'No such tenant' });
      return reply.code(204).send();
    });

    // Several replicas: which database served here a token opens, by the token's hash (a replica asked for a
    // database by token alone asks the others before it reads every database's metadata from the bucket).
    api.get<{ Params: { sha256: string } }>('/v1/token-holders/:sha256', { schema: { params: Type.Object({ sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }) }) } }, async (request, reply) => {
      const tenant = options.directory.tenantOfTokenHash(request.params.sha256);
      return tenant === undefined ? reply.code(404).send({ code: 'TOKEN_NOT_FOUND', message: 'No database served here has that token' }) : { tenant };
    });

    // The shard processes: which are up, how often each restarted (a restart loses its databases' transactions), and
    // the requests running in each and waiting for one of its slots.
    api.get('/v1/shards', async () => ({
      shards: (options.shards?.() ?? []).map((s) => ({ index: s.index, pid: s.pid ?? null, restarts: s.restarts, running: s.running, waiting: s.waiting })),
      ...(options.openDatabases ? { open_databases: options.openDatabases() } : {}),
    }));

    api.get<{ Params: Static<typeof Params> }>('/v1/tenants/:tenant', { schema: { params: Params } }, async (request, reply) => {
      const description = await options.directory.describe(request.params.tenant);
      if (!description) return reply.code(404).send({ code: 'TENANT_NOT_FOUND', message: 'No such tenant' });
      return wire(description);
    });

    api.delete<{ Params: Static<typeof Params> }>('/v1/tenants/:tenant', { schema: { params: Params } }, async (request, reply) => {
      await options.directory.delete(request.params.tenant);
      return reply.code(204).send();
    });
  });
  return app;
}

/** A tenant's description on the wire (snake_case, ISO times): the operator's client reads it as `EngineTenant`. */
function wire(d: TenantDescription): EngineTenant {
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    tenant: d.tenant,
    created_at: iso(d.createdAt),
    durability: d.durability,
    size_bytes: d.sizeBytes,
    rows_read: d.rowsRead,
    rows_written: d.rowsWritten,
    last_write_at: d.lastWriteAt === null ? null : iso(d.lastWriteAt),
    restore_window: d.restoreWindow ? { earliest: iso(d.restoreWindow.earliest), latest: iso(d.restoreWindow.latest) } : null,
    limits: {
      statement_timeout_ms: d.limits.statementTimeoutMs,
      max_size_bytes: d.limits.maxSizeBytes,
      rows_read_per_day: d.limits.rowsReadPerDay,
      rows_written_per_day: d.limits.rowsWrittenPerDay,
    },
    today: { day: d.today.day, rows_read: d.today.rowsRead, rows_written: d.today.rowsWritten },
    limit_reached: d.limitReached,
    ...(d.growthFreeze ? { growth_frozen: { reason: d.growthFreeze.reason, message: d.growthFreeze.message } } : {}),
    ...(d.replica === undefined ? {} : { replica: d.replica }),
    ...(d.project === undefined ? {} : { project: d.project }),
    ...(d.open === undefined ? {} : { open: d.open }),
  };
}

/** Where the admin API sends a tenant's call (`method`: the HTTP method; `forwarded`: it came from another replica). */
export type AdminRouter = (tenant: string, method: string, forwarded: boolean) => Promise<RouteDecision>;

function requestedLimits(limits: NonNullable<TenantBody['limits']>): RequestedLimits {
  return {
    ...(limits.statement_timeout_ms === undefined ? {} : { statementTimeoutMs: limits.statement_timeout_ms }),
    ...(limits.max_size_bytes === undefined ? {} : { maxSizeBytes: limits.max_size_bytes }),
    ...(limits.rows_read_per_day === undefined ? {} : { rowsReadPerDay: limits.rows_read_per_day }),
    ...(limits.rows_written_per_day === undefined ? {} : { rowsWrittenPerDay: limits.rows_written_per_day }),
  };
}
