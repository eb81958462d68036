// The credential `cw db shell` and `cw db execute` connect with: a query token of their own (read-only when
// asked), never the database's main token. A database allows 32 live tokens, so one is kept in the config
// file (mode 0600) per database and mode and reused while it has an hour left, rather than minted per command.
import { readConfig, updateServer, type QueryTokenEntry } from '../config.ts';
import type { Context } from '../context.ts';
import { UsageError } from '../errors.ts';

const LIFETIME_SECONDS = 12 * 3600;
const REUSE_MARGIN_MS = 3600 * 1000;

export interface SqlConnection {
  url: string;
  token: string;
}

function keyOf(projectId: string, database: string, readOnly: boolean): string {
  return `${projectId}/${database}${readOnly ? ':read-only' : ''}`;
}

/** A stored token with time left, else a new one (`fresh`: always a new one, after the stored one was refused). */
export async function sqlConnection(ctx: Context, database: string, readOnly: boolean, fresh = false): Promise<SqlConnection> {
  const projectId = await ctx.project();
  const key = keyOf(projectId, database, readOnly);
  const stored = readConfig(ctx.env).servers?.[ctx.apiUrl]?.query_tokens?.[key];
  if (!fresh && stored && Date.parse(stored.expires_at) - Date.now() > REUSE_MARGIN_MS) return { url: stored.url, token: stored.token };

  const path = { projectId, database };
  const { database: d } = await ctx.ok(ctx.api.GET('/v1/projects/{projectId}/databases/{database}', { params: { path } }));
  if (!d.database_url) throw new UsageError(`${d.name} has no SQL endpoint yet (${d.status}${d.status_message ? `: ${d.status_message}` : ''})`);
  const issued = await ctx.ok(ctx.api.POST('/v1/projects/{projectId}/databases/{database}/query-tokens', { params: { path }, body: { read_only: readOnly, expires_in_seconds: LIFETIME_SECONDS } }));
  const entry: QueryTokenEntry = { url: d.database_url, token: issued.query_token, expires_at: issued.expires_at ?? new Date(Date.now() + LIFETIME_SECONDS * 1000).toISOString() };
  updateServer(ctx.apiUrl, (s) => ({ ...s, query_tokens: { ...s.query_tokens, [key]: entry } }), ctx.env);
  return { url: entry.url, token: entry.token };
}

/** Forgets the stored tokens of a database (a rotation refuses them all). */
export async function forgetSqlConnections(ctx: Context, database: string): Promise<void> {
  const projectId = await ctx.project();
  const keys = [keyOf(projectId, database, false), keyOf(projectId, database, true)];
  updateServer(ctx.apiUrl, (s) => ({ ...s, query_tokens: Object.fromEntries(Object.entries(s.query_tokens ?? {}).filter(([k]) => !keys.includes(k))) }), ctx.env);
}

/** The libSQL client's error for a token the engine refuses (expired, rotated away). */
export function isRefusedToken(err: unknown): boolean {
  return err instanceof Error && /\b401\b/.test(err.message);
}
