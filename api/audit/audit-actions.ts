// What each changing route of the API records in the audit trail, by `METHOD url` as Fastify registers it.
// Each entry names the fields it copies from the request: never the body as a whole, so no value that could
// be a secret (an environment value, a token, a password) is ever recorded. A changing route missing from
// both tables is refused at registration (plugins/audit.ts), so no new route goes unrecorded by accident.
import type { AuditDetails, AuditResource, ResourceType } from './audit-entry.ts';

/** The parts of a request an action reads, as Fastify has validated them. */
export interface RequestParts {
  readonly params: Readonly<Record<string, unknown>>;
  readonly query: Readonly<Record<string, unknown>>;
  readonly body: Readonly<Record<string, unknown>>;
}

export interface AuditAction {
  readonly action: string;
  readonly type: ResourceType;
  /** The project whose trail gets the entry; default the path's `projectId`. */
  readonly project?: (request: RequestParts) => string | undefined;
  /** The resource's id and parents, from the request. */
  readonly resource: (request: RequestParts) => Omit<AuditResource, 'type'>;
  readonly details?: (request: RequestParts) => AuditDetails;
  /** For a create whose id the service assigns: the id in its (successful) answer. */
  readonly createdId?: (answer: Readonly<Record<string, unknown>>) => unknown;
  /** Names in a successful answer worth keeping (the build a deploy made). */
  readonly answerDetails?: (answer: Readonly<Record<string, unknown>>) => AuditDetails;
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const param = (name: string) => (request: RequestParts) => text(request.params[name]);
/** Only the keys of `fields` that the request carries, copied as they are (names and flags, never values). */
/** A rollout policy's steps as `weight:pause` (the CLI's spelling) and what a failure does. */
function rolloutDetails(body: Readonly<Record<string, unknown>>): AuditDetails {
  // The body was validated: steps of an integer weight and an optional pause string.
  const steps = (body['steps'] as readonly { weight: number; pause?: string }[]).map((s) => (s.pause === undefined ? String(s.weight) : `${s.weight}:${s.pause}`));
  return { steps, ...pick(body, ['on_failure']) };
}

function pick(from: Readonly<Record<string, unknown>>, fields: readonly string[]): AuditDetails {
  const out: Record<string, string | number | boolean | readonly string[]> = {};
  for (const field of fields) {
    const value = from[field];
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') out[field] = value;
    else if (Array.isArray(value) && value.every((item) => typeof item === 'string')) out[field] = value as string[];
  }
  return out;
}
const child = (key: string) => (answer: Readonly<Record<string, unknown>>, field: string) => {
  const object = answer[key];
  return typeof object === 'object' && object !== null ? (object as Record<string, unknown>)[field] : undefined;
};

/** An app's HTTPS settings in a request, flattened (`https.hsts.max_age_seconds`; `https.hsts: null` as `false`). */
function httpsDetails(https: unknown): AuditDetails {
  if (typeof https !== 'object' || https === null) return {};
  const { hsts, ...rest } = https as Record<string, unknown>;
  const out: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(pick(rest, ['redirect_http']))) if (typeof value === 'boolean') out[`https.${key}`] = value;
  if (hsts === null) out['https.hsts'] = false;
  else if (typeof hsts === 'object') {
    for (const [key, value] of Object.entries(pick(hsts as Record<string, unknown>, ['max_age_seconds', 'include_subdomains', 'preload']))) {
      if (typeof value !== 'object') out[`https.hsts.${key}`] = value;
    }
  }
  return out;
}

const P = '/v1/projects/:projectId';
const app = (request: RequestParts) => ({ app_id: text(request.params['appId']) ?? '' });
const domain = (request: RequestParts) => ({ domain: text(request.params['domain']) ?? '' });
const database = (request: RequestParts) => ({ id: param('database')(request) });

export const AUDITED_ROUTES: Readonly<Record<string, AuditAction>> = {
  'POST /v1/projects': {
    action: 'project.create',
    type: 'project',
    project: (r) => text(r.body['project_id']) ?? undefined,
    resource: (r) => ({ id: text(r.body['project_id']) }),
    details: (r) => pick(r.body, ['name', 'owner']),
  },
  [`DELETE ${P}`]: { action: 'project.delete', type: 'project', resource: (r) => ({ id: param('projectId')(r) }) },
  [`PUT ${P}/members/:userId`]: {
    action: 'member.set',
    type: 'member',
    resource: (r) => ({ id: param('userId')(r) }),
    details: (r) => pick(r.body, ['role']),
    // An invitation (202) rather than a membership.
    answerDetails: (answer): AuditDetails => (answer['invitation'] !== undefined ? { invited: true } : {}),
  },
  [`DELETE ${P}/members/:userId`]: { action: 'member.remove', type: 'member', resource: (r) => ({ id: param('userId')(r) }) },
  [`DELETE ${P}/invitations/:userId`]: { action: 'member.uninvite', type: 'member', resource: (r) => ({ id: param('userId')(r) }) },
  // The invitee's own answer, in the trail of the project that invited them (the entry's principal says who).
  'POST /v1/user/invitations/:projectId/accept': { action: 'member.accept', type: 'member', resource: () => ({ id: null }), details: (r) => pick(r.body, ['role']) },
  'DELETE /v1/user/invitations/:projectId': { action: 'member.decline', type: 'member', resource: () => ({ id: null }) },

  [`POST ${P}/apps`]: {
    action: 'app.create',
    type: 'app',
    resource: () => ({ id: null }),
    details: (r) => ({ ...pick(r.body, ['name']), ...httpsDetails(r.body['https']) }),
    createdId: (answer) => child('app')(answer, 'app_id'),
  },
  // The settings are flags and a number, never secrets: recorded as set.
  [`PATCH ${P}/apps/:appId`]: { action: 'app.update', type: 'app', resource: (r) => ({ id: param('appId')(r) }), details: (r) => httpsDetails(r.body['https']) },
  [`DELETE ${P}/apps/:appId`]: { action: 'app.delete', type: 'app', resource: (r) => ({ id: param('appId')(r) }) },
  [`POST ${P}/apps/:appId/deployments`]: {
    action: 'app.deploy',
    type: 'app',
    resource: (r) => ({ id: param('appId')(r) }),
    details: (r) => pick(r.query, ['hostnames', 'environment', 'max_concurrent_requests']),
    answerDetails: (answer) => pick(answer, ['build_id']),
  },
  [`POST ${P}/apps/:appId/rollbacks`]: { action: 'app.rollback', type: 'app', resource: (r) => ({ id: param('appId')(r) }), details: (r) => pick(r.body, ['build_id']) },
  [`PUT ${P}/apps/:appId/rollout`]: { action: 'app.set_rollout', type: 'app', resource: (r) => ({ id: param('appId')(r) }), details: (r) => rolloutDetails(r.body) },
  [`DELETE ${P}/apps/:appId/rollout`]: { action: 'app.unset_rollout', type: 'app', resource: (r) => ({ id: param('appId')(r) }) },
  [`POST ${P}/apps/:appId/rollout/promote`]: { action: 'app.promote_rollout', type: 'app', resource: (r) => ({ id: param('appId')(r) }) },
  [`POST ${P}/apps/:appId/rollout/abort`]: { action: 'app.abort_rollout', type: 'app', resource: (r) => ({ id: param('appId')(r) }) },
  [`POST ${P}/apps/:appId/rollout/retry`]: { action: 'app.retry_rollout', type: 'app', resource: (r) => ({ id: param('appId')(r) }) },

  // Names and paths only: the build command and the environment values could hold a credential.
  [`PUT ${P}/apps/:appId/source`]: {
    action: 'app.connect',
    type: 'app',
    resource: (r) => ({ id: param('appId')(r) }),
    // `preview_databases`: whether every preview gets a copy of the production databases (an enum, never a secret).
    details: (r) => pick(r.body, ['repository', 'production_branch', 'preview_branches', 'preview_databases', 'root_directory', 'output_directory']),
  },
  [`DELETE ${P}/apps/:appId/source`]: { action: 'app.disconnect', type: 'app', resource: (r) => ({ id: param('appId')(r) }) },
  [`POST ${P}/apps/:appId/source-builds/:build/cancel`]: {
    action: 'app.cancel_build',
    type: 'app',
    resource: (r) => ({ id: param('appId')(r) }),
    details: (r) => ({ source_build_id: param('build')(r) ?? '' }),
  },

  // The variable's key only: its value may be anything, a credential included.
  [`PUT ${P}/apps/:appId/environment/:key`]: {
    action: 'environment_variable.set',
    type: 'environment_variable',
    resource: (r) => ({ id: param('key')(r), ...app(r) }),
    details: (r) => pick(r.body, ['database']),
  },
  [`DELETE ${P}/apps/:appId/environment/:key`]: { action: 'environment_variable.delete', type: 'environment_variable', resource: (r) => ({ id: param('key')(r), ...app(r) }) },
  // A binding holds no value of any kind: its name, database and access are recorded.
  [`PUT ${P}/apps/:appId/database-bindings/:name`]: {
    action: 'app.bind_database',
    type: 'app',
    resource: (r) => ({ id: param('appId')(r) }),
    details: (r) => ({ ...pick(r.params, ['name']), ...pick(r.body, ['database', 'access']) }),
  },
  [`DELETE ${P}/apps/:appId/database-bindings/:name`]: { action: 'app.unbind_database', type: 'app', resource: (r) => ({ id: param('appId')(r) }), details: (r) => pick(r.params, ['name']) },

  [`POST ${P}/apps/:appId/domains`]: {
    action: 'hostname.attach',
    type: 'hostname',
    resource: (r) => ({ id: text(r.body['domain']), ...app(r) }),
    details: (r) => pick(r.body, ['dns_mode']),
  },
  [`DELETE ${P}/apps/:appId/domains/:domain`]: { action: 'hostname.detach', type: 'hostname', resource: (r) => ({ id: param('domain')(r), ...app(r) }) },
  [`POST ${P}/apps/:appId/domains/:domain/finalize`]: { action: 'hostname.finalize', type: 'hostname', resource: (r) => ({ id: param('domain')(r), ...app(r) }) },

  [`POST ${P}/domains`]: { action: 'domain.add', type: 'domain', resource: (r) => ({ id: text(r.body['domain']) }), details: (r) => pick(r.body, ['dns_mode']) },
  [`DELETE ${P}/domains/:domain`]: { action: 'domain.delete', type: 'domain', resource: (r) => ({ id: param('domain')(r) }) },
  [`POST ${P}/domains/:domain/delegation-check`]: { action: 'domain.delegation_check', type: 'domain', resource: (r) => ({ id: param('domain')(r) }) },
  [`POST ${P}/domains/:domain/records`]: {
    action: 'dns_record.create',
    type: 'dns_record',
    resource: (r) => ({ id: null, ...domain(r) }),
    details: (r) => pick(r.body, ['name', 'type', 'ttl']),
    createdId: (answer) => child('record')(answer, 'record_id'),
  },
  [`PUT ${P}/domains/:domain/records/:recordId`]: {
    action: 'dns_record.update',
    type: 'dns_record',
    resource: (r) => ({ id: param('recordId')(r), ...domain(r) }),
    details: (r) => pick(r.body, ['name', 'type', 'ttl']),
  },
  [`DELETE ${P}/domains/:domain/records/:recordId`]: { action: 'dns_record.delete', type: 'dns_record', resource: (r) => ({ id: param('recordId')(r), ...domain(r) }) },

  [`POST ${P}/databases`]: {
    action: 'database.create',
    type: 'database',
    resource: (r) => ({ id: text(r.body['name']) }),
    details: (r) => ({ ...pick(r.body, ['durability']), ...(typeof r.body['restore_from'] === 'object' ? { restored: true } : {}) }),
  },
  [`PATCH ${P}/databases/:database`]: { action: 'database.update', type: 'database', resource: database, details: (r) => ({ fields: Object.keys(r.body) }) },
  [`DELETE ${P}/databases/:database`]: { action: 'database.delete', type: 'database', resource: database },
  [`POST ${P}/databases/:database/restore`]: { action: 'database.restore', type: 'database', resource: database, details: (r) => pick(r.body, ['timestamp']) },
  [`POST ${P}/databases/:database/tokens/rotate`]: { action: 'database.rotate_token', type: 'database', resource: database },
  [`POST ${P}/databases/:database/query-tokens`]: { action: 'database.create_query_token', type: 'database', resource: database, details: (r) => pick(r.body, ['read_only', 'expires_in_seconds']) },

  [`POST ${P}/git-tokens`]: {
    action: 'git_token.create',
    type: 'git_token',
    resource: () => ({ id: null }),
    details: (r) => pick(r.body, ['description', 'scopes', 'expires_in_seconds']),
    createdId: (answer) => child('token')(answer, 'token_id'),
  },
  [`DELETE ${P}/git-tokens/:tokenId`]: { action: 'git_token.revoke', type: 'git_token', resource: (r) => ({ id: param('tokenId')(r) }) },
};

/** Changing routes deliberately left out of projects' trails, and why (docs/audit.md says the same). */
export const UNAUDITED_ROUTES: Readonly<Record<string, string>> = {
  [`POST ${P}/databases/:database/query`]: 'SQL over a query token: the data plane, not a change of the project’s resources',
  [`POST ${P}/databases/:database/migrations`]: 'migrations over a query token: the data plane (SQL), as the query route; recorded in the database’s own _cw_migrations table',
  'POST /v1/tokens': 'a person’s own access token, not a project’s',
  'DELETE /v1/tokens/:tokenId': 'a person’s own access token, not a project’s',
  'DELETE /v1/user/token': 'a person’s own access token, not a project’s',
  'POST /v1/device/code': 'a device sign-in, before anyone is signed in',
  'POST /v1/device/token': 'a device sign-in, before anyone is signed in',
  'POST /v1/device/approve': 'a person’s own sign-in',
  'POST /v1/device/deny': 'a person’s own sign-in',
  'POST /v1/session': 'a person’s own sign-in',
  'DELETE /v1/session': 'a person’s own sign-in',
  'DELETE /v1/sessions': 'a person’s own sign-in',
  'PUT /v1/user/password': 'a person’s own password',
  'POST /v1/users': 'a platform user, not a project’s resource',
  'DELETE /v1/users/:userId': 'a platform user, not a project’s resource',
  'PUT /v1/users/:userId/password': 'a platform user, not a project’s resource',
};
