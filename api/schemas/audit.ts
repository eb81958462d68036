import { Type } from 'typebox';
import { RESOURCE_TYPES } from '../audit/audit-entry.ts';

const nullableString = (description: string) => Type.Unsafe<string | null>({ type: ['string', 'null'], description });
const nullableInteger = (description: string) => Type.Unsafe<number | null>({ type: ['integer', 'null'], description });

export const AUDIT_PAGE_MAX = 100;
export const AUDIT_PAGE_DEFAULT = 50;

export const AuditQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: AUDIT_PAGE_MAX, description: `Entries per page (default ${AUDIT_PAGE_DEFAULT}, at most ${AUDIT_PAGE_MAX}).` })),
    cursor: Type.Optional(Type.String({ pattern: '^[0-9]{13}-[0-9a-f]{16}$', maxLength: 30, description: 'The `next` of the previous page: continue after it.' })),
    resource_type: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: [...RESOURCE_TYPES], description: 'Only entries about this kind of resource.' })),
  },
  { additionalProperties: false },
);

export const AuditEntry = Type.Object(
  {
    id: Type.String({ description: 'Unique and time-ordered.' }),
    time: Type.String({ format: 'date-time', description: 'When the API received the request (ISO 8601 UTC).' }),
    project_id: Type.String(),
    principal: Type.Object(
      {
        user_id: Type.String(),
        token_id: Type.String({ description: 'The id of the token or console session that made the request, never the token.' }),
        token_name: nullableString('The token’s description; null when the token was gone by then.'),
        kind: Type.Unsafe<'session' | 'access_token'>({ type: 'string', enum: ['session', 'access_token'], description: 'A console sign-in or an access token.' }),
      },
      { description: 'Who made the request.' },
    ),
    action: Type.String({ description: '`<resource type>.<verb>`, such as `app.deploy`, `environment_variable.set`, `dns_record.delete`.' }),
    resource: Type.Object(
      {
        type: Type.Unsafe<string>({ type: 'string', enum: [...RESOURCE_TYPES] }),
        id: nullableString('The resource’s id (an environment variable’s key, a hostname, a record id); null for a create that made none.'),
        app_id: Type.Optional(Type.String({ description: 'The app, for environment variables and hostnames.' })),
        domain: Type.Optional(Type.String({ description: 'The project domain, for DNS records.' })),
      },
      { description: 'What the request acted on.' },
    ),
    details: Type.Record(Type.String(), Type.Unknown(), {
      description: 'Names and options of the request (a deploy’s host names, a record’s name and type, a git token’s scopes): never values that could be secret.',
    }),
    method: Type.String(),
    path: Type.String({ description: 'The request’s path, without its query.' }),
    request_id: Type.String({ description: 'The request’s x-request-id, as its answer and the API’s log carry it.' }),
    status: nullableInteger('The answer’s status code; null while the request runs, or when its answer could not be recorded.'),
  },
  { description: 'One request that changed (or tried to change) the project.' },
);

export const AuditPage = Type.Object({
  entries: Type.Array(AuditEntry, { description: 'Newest first.' }),
  next: nullableString('Pass as `cursor` for the next page; null at the end.'),
});
