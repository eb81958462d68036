// One entry of a project's audit trail and where it lives in the bucket. An entry is one object, so API
// replicas writing at once never contend for a key; the key orders newest first under a per-project prefix
// (S3 lists keys in ascending order) and ends with the resource type, so a filtered listing reads no body
// it does not return.
import { randomBytes } from 'node:crypto';

/** The kinds of resource an entry is about: the `resource_type` filter of the audit route. */
export const RESOURCE_TYPES = ['project', 'member', 'app', 'environment_variable', 'hostname', 'domain', 'dns_record', 'database', 'git_token'] as const;
export type ResourceType = (typeof RESOURCE_TYPES)[number];

export function isResourceType(value: string): value is ResourceType {
  return (RESOURCE_TYPES as readonly string[]).includes(value);
}

/** Who made the request: never the token itself, only its id and the name its owner gave it. */
export interface AuditPrincipal {
  readonly user_id: string;
  readonly token_id: string;
  /** The token's description; `null` when the token is gone by the time the entry is written. */
  readonly token_name: string | null;
  /** A console sign-in or a personal access token (`cw login` makes one of those too). */
  readonly kind: 'session' | 'access_token';
}

/** What the request acted on: its type and id, with the ids of the resources it lives in. */
export interface AuditResource {
  readonly type: ResourceType;
  /** `null` when the request named none and its answer gave none (a create that was refused). */
  readonly id: string | null;
  readonly app_id?: string;
  readonly domain?: string;
}

/** Names and flags of a request, never values that could be secrets (an environment value, a token). */
export type AuditDetails = Readonly<Record<string, string | number | boolean | readonly string[]>>;

export interface AuditEntry {
  /** Time-ordered and unique: `<13 digits>-<16 hex>`; also the cursor of the page it ends. */
  readonly id: string;
  /** When the API received the request (ISO 8601 UTC, milliseconds). */
  readonly time: string;
  readonly project_id: string;
  readonly principal: AuditPrincipal;
  /** `<resource type>.<verb>`, such as `app.deploy` or `environment_variable.set`. */
  readonly action: string;
  readonly resource: AuditResource;
  readonly details: AuditDetails;
  readonly method: string;
  /** The request's path, without its query. */
  readonly path: string;
  /** The request's `x-request-id`, as the response and the API's access log carry it. */
  readonly request_id: string;
  /** The response's status code; `null` while the request runs, or if its answer could not be recorded. */
  readonly status: number | null;
}

export const AUDIT_PREFIX = 'audit/';
/** Milliseconds are written as their distance from this, so a later time sorts first (until the year 2286). */
const MAX_TIME = 9_999_999_999_999;
const ID_PATTERN = /^(\d{13})-([0-9a-f]{16})$/;
const KEY_PATTERN = /^audit\/[^/]+\/(\d{13}-[0-9a-f]{16})-([a-z_]+)$/;

/** The prefix of a project's entries. */
export function projectPrefix(projectId: string): string {
  return `${AUDIT_PREFIX}${projectId}/`;
}

/** A new entry id for `time`: later times sort first; the random part keeps ids of one millisecond apart. */
export function newEntryId(time: Date): string {
  return `${String(MAX_TIME - time.getTime()).padStart(13, '0')}-${randomBytes(8).toString('hex')}`;
}

export function isEntryId(value: string): boolean {
  return ID_PATTERN.test(value);
}

/** The time an entry id was made at. */
export function timeOfEntryId(id: string): Date {
  const match = ID_PATTERN.exec(id);
  if (!match) throw new Error(`not an audit entry id: ${id}`);
  return new Date(MAX_TIME - Number(match[1]));
}

export function entryKey(entry: Pick<AuditEntry, 'project_id' | 'id' | 'resource'>): string {
  return `${projectPrefix(entry.project_id)}${entry.id}-${entry.resource.type}`;
}

/** The id and resource type a key names; `undefined` for a key that is not an entry's. */
export function parseEntryKey(key: string): { readonly id: string; readonly type: string } | undefined {
  const match = KEY_PATTERN.exec(key);
  return match ? { id: match[1] ?? '', type: match[2] ?? '' } : undefined;
}

/**
 * Where a listing resumes after the entry `id`: past every key of that entry whatever its type (types are
 * lowercase letters and `_`, all below `~`).
 */
export function keyAfter(projectId: string, id: string): string {
  return `${projectPrefix(projectId)}${id}-~`;
}
