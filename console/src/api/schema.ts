// Generated from docs/openapi.json by openapi-typescript (cli/scripts/api-types.ts, run by `make openapi`).
// Do not edit: regenerate.

export interface paths {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness: the process serves (not rate limited) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "ok";
                        };
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Readiness: the process can serve (not rate limited); the states of its dependencies, which never make it unready
         * @description Always 200 once the API listens: a dependency that is down (cw-db, the bucket, the runtime, the apiserver) fails the routes that need it with their own problem details, and must not take every API pod out of its Service. Each dependency is also the gauge `cloudwright_api_dependency_up` on the metrics port.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "ok";
                            /** @description What the API works with, as its background checks (every 10 s) last found them. */
                            dependencies: {
                                /** @description kube-apiserver, object-store, runtime engine or database engine. */
                                name: string;
                                /** @description Whether it answered its last check; null until checked once. */
                                up: boolean | null;
                                /**
                                 * Format: date-time
                                 * @description Since when it has been up, or down.
                                 */
                                since?: string;
                            }[];
                        };
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the caller’s projects by project id, a page at a time */
        get: {
            parameters: {
                query?: {
                    /** @description Items per page (default 100, at most 1000). */
                    limit?: number;
                    /** @description The `next` of the previous page, as it was (opaque): the page continues after the item it names. */
                    cursor?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            projects: {
                                /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                                project_id: string;
                                /** @description Display name. */
                                name: string;
                                /** @description Namespace holding the project’s resources; null until the operator has created it. */
                                namespace: string | null;
                                /** @description The operator has set the project up. */
                                ready: boolean;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC timestamp.
                                 */
                                created_at: string;
                                /**
                                 * @description The caller’s role; absent for an administrator who is not a member.
                                 * @enum {string}
                                 */
                                role?: "owner" | "member";
                                /** @description What the project uses of its quotas; in `GET /v1/projects/{projectId}` only. */
                                usage?: {
                                    /** @description Bytes the project’s apps’ active builds unpack to (their modules and assets). */
                                    active_builds_unpacked_bytes: number;
                                    /** @description Bytes the project’s stored builds take, compressed: every app’s, those kept for rollbacks included. */
                                    stored_builds_bytes: number;
                                };
                                /** @description The project’s quotas; in `GET /v1/projects/{projectId}` only. */
                                quotas?: {
                                    /** @description The most the project’s apps’ active builds may unpack to together: a deploy or rollback past it is refused (409, or 413 for a build larger than the whole quota). */
                                    active_builds_unpacked_bytes: number;
                                    /** @description The most the project’s stored builds may take, compressed: past it the oldest builds no app serves or rolls out are deleted; an upload that would not fit beside those kept is refused (409, or 413 for a build larger than the whole quota). */
                                    stored_builds_bytes: number;
                                };
                            }[];
                            /** @description An opaque cursor: pass it as `cursor` for the next page; null on the last page. */
                            next: string | null;
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /** Create a project; the caller (or `owner`, for administrators) becomes its owner */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                        project_id: string;
                        /** @description Display name (not blank; no control characters or bidirectional overrides). */
                        name: string;
                        /** @description User id of the first owner; defaults to the caller (administrators only). */
                        owner?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description A project: a tenant owning apps, databases and domains. */
                            project: {
                                /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                                project_id: string;
                                /** @description Display name. */
                                name: string;
                                /** @description Namespace holding the project’s resources; null until the operator has created it. */
                                namespace: string | null;
                                /** @description The operator has set the project up. */
                                ready: boolean;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC timestamp.
                                 */
                                created_at: string;
                                /**
                                 * @description The caller’s role; absent for an administrator who is not a member.
                                 * @enum {string}
                                 */
                                role?: "owner" | "member";
                                /** @description What the project uses of its quotas; in `GET /v1/projects/{projectId}` only. */
                                usage?: {
                                    /** @description Bytes the project’s apps’ active builds unpack to (their modules and assets). */
                                    active_builds_unpacked_bytes: number;
                                    /** @description Bytes the project’s stored builds take, compressed: every app’s, those kept for rollbacks included. */
                                    stored_builds_bytes: number;
                                };
                                /** @description The project’s quotas; in `GET /v1/projects/{projectId}` only. */
                                quotas?: {
                                    /** @description The most the project’s apps’ active builds may unpack to together: a deploy or rollback past it is refused (409, or 413 for a build larger than the whole quota). */
                                    active_builds_unpacked_bytes: number;
                                    /** @description The most the project’s stored builds may take, compressed: past it the oldest builds no app serves or rolls out are deleted; an upload that would not fit beside those kept is refused (409, or 413 for a build larger than the whole quota). */
                                    stored_builds_bytes: number;
                                };
                            };
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a project */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description A project: a tenant owning apps, databases and domains. */
                            project: {
                                /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                                project_id: string;
                                /** @description Display name. */
                                name: string;
                                /** @description Namespace holding the project’s resources; null until the operator has created it. */
                                namespace: string | null;
                                /** @description The operator has set the project up. */
                                ready: boolean;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC timestamp.
                                 */
                                created_at: string;
                                /**
                                 * @description The caller’s role; absent for an administrator who is not a member.
                                 * @enum {string}
                                 */
                                role?: "owner" | "member";
                                /** @description What the project uses of its quotas; in `GET /v1/projects/{projectId}` only. */
                                usage?: {
                                    /** @description Bytes the project’s apps’ active builds unpack to (their modules and assets). */
                                    active_builds_unpacked_bytes: number;
                                    /** @description Bytes the project’s stored builds take, compressed: every app’s, those kept for rollbacks included. */
                                    stored_builds_bytes: number;
                                };
                                /** @description The project’s quotas; in `GET /v1/projects/{projectId}` only. */
                                quotas?: {
                                    /** @description The most the project’s apps’ active builds may unpack to together: a deploy or rollback past it is refused (409, or 413 for a build larger than the whole quota). */
                                    active_builds_unpacked_bytes: number;
                                    /** @description The most the project’s stored builds may take, compressed: past it the oldest builds no app serves or rolls out are deleted; an upload that would not fit beside those kept is refused (409, or 413 for a build larger than the whole quota). */
                                    stored_builds_bytes: number;
                                };
                            };
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /** Delete an empty project (409 while it still holds apps, databases, domains or repositories) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Deleted; the operator removes its namespace. */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/members": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List members */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            members: {
                                /** @description User id. */
                                user_id: string;
                                /**
                                 * @description The member’s role: owners manage members.
                                 * @enum {string}
                                 */
                                role: "owner" | "member";
                            }[];
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/members/{userId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Invite someone, or change a member’s role (owners and administrators)
         * @description Lowers or keeps a member’s role at once (200). Anyone else is invited (202), and so is a member offered the owner role: they become a member, or an owner, only by accepting (`POST /v1/user/invitations/{projectId}/accept`) within 7 days; inviting them again renews it with the role given. An invitation stands while its inviter is an owner. An administrator’s add makes them a member at once (200; 404 for a user that does not exist). An owner’s invitation is answered alike whether or not the user exists, so it tells nobody which user ids are taken.
         */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description User id (a DNS subdomain: lowercase letters, digits, dashes and dots). */
                    userId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        role: "owner" | "member";
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description A member of a project. */
                            member: {
                                /** @description User id. */
                                user_id: string;
                                /**
                                 * @description The member’s role: owners manage members.
                                 * @enum {string}
                                 */
                                role: "owner" | "member";
                            };
                        };
                    };
                };
                /** @description Default Response */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description A membership offered and not yet accepted: the invitee becomes a member only by accepting it. */
                            invitation: {
                                /** @description The project they are invited to. */
                                project_id: string;
                                /** @description Its display name. */
                                project_name: string;
                                /** @description The user invited. */
                                user_id: string;
                                /**
                                 * @description The role they get by accepting.
                                 * @enum {string}
                                 */
                                role: "owner" | "member";
                                /** @description The owner who invited them. */
                                invited_by: string;
                                /** Format: date-time */
                                invited_at: string;
                                /**
                                 * Format: date-time
                                 * @description After this the invitation lapses (7 days after it was made or renewed).
                                 */
                                expires_at: string;
                            };
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        post?: never;
        /** Remove a member (owners and administrators), or leave the project (any member, but its last owner) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description User id (a DNS subdomain: lowercase letters, digits, dashes and dots). */
                    userId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/invitations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the invitations of a project not yet accepted, declined or lapsed */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            invitations: {
                                /** @description The project they are invited to. */
                                project_id: string;
                                /** @description Its display name. */
                                project_name: string;
                                /** @description The user invited. */
                                user_id: string;
                                /**
                                 * @description The role they get by accepting.
                                 * @enum {string}
                                 */
                                role: "owner" | "member";
                                /** @description The owner who invited them. */
                                invited_by: string;
                                /** Format: date-time */
                                invited_at: string;
                                /**
                                 * Format: date-time
                                 * @description After this the invitation lapses (7 days after it was made or renewed).
                                 */
                                expires_at: string;
                            }[];
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/invitations/{userId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Withdraw an invitation (owners and administrators) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description User id (a DNS subdomain: lowercase letters, digits, dashes and dots). */
                    userId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/user/invitations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the invitations waiting for the caller, by project id, a page at a time */
        get: {
            parameters: {
                query?: {
                    /** @description Items per page (default 100, at most 1000). */
                    limit?: number;
                    /** @description The `next` of the previous page, as it was (opaque): the page continues after the item it names. */
                    cursor?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            invitations: {
                                /** @description The project they are invited to. */
                                project_id: string;
                                /** @description Its display name. */
                                project_name: string;
                                /** @description The user invited. */
                                user_id: string;
                                /**
                                 * @description The role they get by accepting.
                                 * @enum {string}
                                 */
                                role: "owner" | "member";
                                /** @description The owner who invited them. */
                                invited_by: string;
                                /** Format: date-time */
                                invited_at: string;
                                /**
                                 * Format: date-time
                                 * @description After this the invitation lapses (7 days after it was made or renewed).
                                 */
                                expires_at: string;
                            }[];
                            /** @description An opaque cursor: pass it as `cursor` for the next page; null on the last page. */
                            next: string | null;
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/user/invitations/{projectId}/accept": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Accept an invitation: the caller becomes a member with the role it offers
         * @description `role` is the role the caller saw offered and accepts: an invitation renewed with another role since is refused (409), so nobody is made an owner they did not agree to be.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        role: "owner" | "member";
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description A member of a project. */
                            member: {
                                /** @description User id. */
                                user_id: string;
                                /**
                                 * @description The member’s role: owners manage members.
                                 * @enum {string}
                                 */
                                role: "owner" | "member";
                            };
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/user/invitations/{projectId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Decline an invitation */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List your access tokens, newest first (revoked and expired ones included; never their values)
         * @description At most 100 active tokens, and the 100 most recently made of the revoked and expired ones (older ones are deleted as new tokens are made).
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            tokens: {
                                /** @description Stable id of the token (never the token itself); use it to revoke. */
                                token_id: string;
                                description: string;
                                /** @description Scopes the token carries. */
                                scopes: string[];
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC timestamp.
                                 */
                                created_at: string;
                                /** @description From this instant on the token is refused; null: it does not expire. */
                                expires_at: string | null;
                                state: "active" | "expired" | "revoked";
                                /** @description A sign-in to the web console (held in its cookie), not a personal access token. */
                                session: boolean;
                            }[];
                        };
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /**
         * Create an access token for yourself
         * @description The response carries the token itself in `access_token`; it is never shown again (listings carry only `token_id`). The new token may hold only scopes the calling token holds, and expires no later than it. A user holds at most 100 active tokens (409 past that: revoke some first).
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description What the token is for, shown in listings (not blank; no control characters or bidirectional overrides). */
                        description: string;
                        /** @description Scopes to grant; each must be one the calling token holds itself (`admin` only for administrators). */
                        scopes: ("projects:read" | "projects:write" | "apps:read" | "apps:write" | "deploys:write" | "env:read" | "env:write" | "databases:read" | "databases:write" | "domain:read" | "domain:write" | "repositories:read" | "repositories:write" | "audit:read" | "tokens:read" | "tokens:write" | "admin")[];
                        /** @description Lifetime in days; omit for a token that does not expire. */
                        expires_in_days?: number;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description An access token as listings show it: never its value, never its hash. */
                            token: {
                                /** @description Stable id of the token (never the token itself); use it to revoke. */
                                token_id: string;
                                description: string;
                                /** @description Scopes the token carries. */
                                scopes: string[];
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC timestamp.
                                 */
                                created_at: string;
                                /** @description From this instant on the token is refused; null: it does not expire. */
                                expires_at: string | null;
                                state: "active" | "expired" | "revoked";
                                /** @description A sign-in to the web console (held in its cookie), not a personal access token. */
                                session: boolean;
                            };
                            /** @description The token itself (`cwt_…`). Returned only in this response; store it now, it cannot be shown again. */
                            access_token: string;
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/user/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke the token that makes this request (sign out); any valid token may, whatever its scopes */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Revoked: the token is refused from now on. */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tokens/{tokenId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke one of your access tokens
         * @description Revocation is immediate and final; revoking a revoked token succeeds again. A token that is not yours answers 404 like a missing one (administrators may revoke any token).
         */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The token id (`tok-…`), as listed by `GET /v1/tokens`. */
                    tokenId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Revoked. */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/device/requests/{userCode}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Review a device sign-in before answering it: the scopes the device asks for, and until when
         * @description Needs the scope approving needs. 404 for an unknown or expired code, 409 once it has been answered.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The code the device shows, `XXXX-XXXX`. */
                    userCode: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description A device sign-in waiting for an answer: what approving it would grant. */
                            device_request: {
                                /** @description `XXXX-XXXX`. */
                                user_code: string;
                                /** @description What the device asks for: the token it gets carries exactly these. */
                                scopes: string[];
                                /**
                                 * Format: date-time
                                 * @description After this instant the request can no longer be answered.
                                 */
                                expires_at: string;
                            };
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/device/approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Approve a device sign-in: the device gets a token acting as you, with the scopes it asked for
         * @description Every scope the device asked for must be one your token holds (else 403). Review the request first (`GET /v1/device/requests/{user_code}`) and send the scopes you saw as `scopes`: a request for others is then refused (409). The token the device gets expires no later than yours. Approving twice is a no-op.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The code the device shows (`XXXX-XXXX`); case, dashes and spaces are ignored. */
                        user_code: string;
                        /** @description The scopes you reviewed (as `GET /v1/device/requests/{user_code}` shows them). When given, an approval of a request for any other scopes is refused with 409. */
                        scopes?: ("projects:read" | "projects:write" | "apps:read" | "apps:write" | "deploys:write" | "env:read" | "env:write" | "databases:read" | "databases:write" | "domain:read" | "domain:write" | "repositories:read" | "repositories:write" | "audit:read" | "tokens:read" | "tokens:write" | "admin")[];
                    };
                };
            };
            responses: {
                /** @description Approved. */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/device/deny": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Deny a device sign-in
         * @description Any user may refuse a request (a token with `tokens:write`); the device then gets `access_denied`.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The code the device shows (`XXXX-XXXX`); case, dashes and spaces are ignored. */
                        user_code: string;
                    };
                };
            };
            responses: {
                /** @description Denied. */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/user": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The user the calling token acts as, with their memberships and this token’s effective scopes */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description A user: the principal behind access tokens and project memberships. */
                            user: {
                                user_id: string;
                                display_name: string | null;
                                email: string | null;
                                /** @description Platform administrator. A token acts as one only when it also carries the `admin` scope. */
                                admin: boolean;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC timestamp.
                                 */
                                created_at: string;
                                /** @description Projects the user belongs to, with their role. */
                                memberships: {
                                    project_id: string;
                                    role: "owner" | "member";
                                }[];
                            };
                            token: {
                                token_id: string;
                                /** @description The scopes this token is effective with (`admin` only for administrators). */
                                scopes: string[];
                            };
                        };
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List every user by user id, a page at a time (administrators) */
        get: {
            parameters: {
                query?: {
                    /** @description Items per page (default 100, at most 1000). */
                    limit?: number;
                    /** @description The `next` of the previous page, as it was (opaque): the page continues after the item it names. */
                    cursor?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            users: {
                                user_id: string;
                                display_name: string | null;
                                email: string | null;
                                /** @description Platform administrator. A token acts as one only when it also carries the `admin` scope. */
                                admin: boolean;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC timestamp.
                                 */
                                created_at: string;
                                /** @description Projects the user belongs to, with their role. */
                                memberships: {
                                    project_id: string;
                                    role: "owner" | "member";
                                }[];
                            }[];
                            /** @description An opaque cursor: pass it as `cursor` for the next page; null on the last page. */
                            next: string | null;
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /**
         * Create a user (administrators)
         * @description Add them to projects with `PUT /v1/projects/{projectId}/members/{userId}` (an administrator’s add is at once; an owner’s is an invitation they accept).
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description User id: lowercase letters, digits, dashes and dots (a Kubernetes resource name), e.g. `alice`. */
                        user_id: string;
                        /** @description Human-readable name (not blank; no control characters or bidirectional overrides). */
                        display_name?: string;
                        /**
                         * Format: email
                         * @description Contact address.
                         */
                        email?: string;
                        /** @description Platform administrator; default false. */
                        admin?: boolean;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description A user: the principal behind access tokens and project memberships. */
                            user: {
                                user_id: string;
                                display_name: string | null;
                                email: string | null;
                                /** @description Platform administrator. A token acts as one only when it also carries the `admin` scope. */
                                admin: boolean;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC timestamp.
                                 */
                                created_at: string;
                                /** @description Projects the user belongs to, with their role. */
                                memberships: {
                                    project_id: string;
                                    role: "owner" | "member";
                                }[];
                            };
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/{userId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a user (administrators) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description User id: lowercase letters, digits, dashes and dots (a Kubernetes resource name), e.g. `alice`. */
                    userId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description A user: the principal behind access tokens and project memberships. */
                            user: {
                                user_id: string;
                                display_name: string | null;
                                email: string | null;
                                /** @description Platform administrator. A token acts as one only when it also carries the `admin` scope. */
                                admin: boolean;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC timestamp.
                                 */
                                created_at: string;
                                /** @description Projects the user belongs to, with their role. */
                                memberships: {
                                    project_id: string;
                                    role: "owner" | "member";
                                }[];
                            };
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /**
         * Delete a user and revoke their tokens (administrators)
         * @description 409 while the user is still a member of a project (remove them from it first) and for your own user. Every token of the user is revoked, so re-creating the id later does not bring them back.
         */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description User id: lowercase letters, digits, dashes and dots (a Kubernetes resource name), e.g. `alice`. */
                    userId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Deleted. */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/session/methods": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** How people can sign in to the console: with a password, and through which OpenID Connect provider if any */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            password: boolean;
                            openid: {
                                name: string;
                                /** @description Send the browser here to sign in. */
                                url: string;
                            } | null;
                        };
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The console session making this request, with its CSRF token (404 for a personal access token) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            session: {
                                user_id: string;
                                /** @description Send it as `x-csrf-token` with every state-changing request made with the session cookie. */
                                csrf_token: string;
                                /**
                                 * Format: date-time
                                 * @description The session ends then, whatever happens.
                                 */
                                expires_at: string;
                                /** @description The session ends this long after its last use. */
                                idle_timeout_seconds: number;
                            };
                        };
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /**
         * Sign in to the web console with a local account: sets the session cookie (HttpOnly) and returns its CSRF token
         * @description Public. An unknown user and a wrong password answer the same 401. Ten attempts per address, then one every ten seconds; per user, five attempts from one address then one a minute, thirty from all addresses then one every ten seconds (429 with Retry-After). A browser that signed in as the user before carries a device cookie (set with the session) and is counted on its own instead, five attempts then one a minute, so guesses from elsewhere do not lock it out.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        user: string;
                        /** @description The password (at least 12 characters when set). */
                        password: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            session: {
                                user_id: string;
                                /** @description Send it as `x-csrf-token` with every state-changing request made with the session cookie. */
                                csrf_token: string;
                                /**
                                 * Format: date-time
                                 * @description The session ends then, whatever happens.
                                 */
                                expires_at: string;
                                /** @description The session ends this long after its last use. */
                                idle_timeout_seconds: number;
                            };
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        /** Sign out of the console: revokes the session making the request and clears the cookie (404 for a personal access token: DELETE /v1/user/token revokes those) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Sign out everywhere: revokes every console session of the caller (personal access tokens stay); needs `tokens:write`, which a console session holds */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Sessions revoked. */
                            ended: number;
                        };
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/user/password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Change your own password (the current one is needed; a user without one asks an administrator) */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The password (at least 12 characters when set). */
                        current_password: string;
                        /** @description The password (at least 12 characters when set). */
                        new_password: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/{userId}/password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Set a user’s password (administrators): they can then sign in to the console with it, and every session they had ends (a reset is how a stolen session is cut off) */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description User id: lowercase letters, digits, dashes and dots (a Kubernetes resource name), e.g. `alice`. */
                    userId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The password (at least 12 characters when set). */
                        password: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/apps": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the project’s apps by app id, a page at a time (an empty list when there are none), each with its last hour’s traffic */
        get: {
            parameters: {
                query?: {
                    /** @description Items per page (default 100, at most 1000). */
                    limit?: number;
                    /** @description The `next` of the previous page, as it was (opaque): the page continues after the item it names. */
                    cursor?: string;
                };
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            apps: {
                                /** @description Identifier, unique within the project; part of the default host. */
                                app_id: string;
                                /** @description Name chosen at creation. */
                                name: string;
                                /** @description Build currently selected for serving; empty until the first deploy. */
                                active_build_id: string;
                                /** @description Builds uploaded for the app, newest first. */
                                builds: {
                                    build_id: string;
                                }[];
                                /** @description Host names the app is bound to: its default host `<app_id>.<project>.<runtime base domain>` first, then the deploy’s host names and the custom domains attached and finalized for it. */
                                hosts: string[];
                                /** @description URL of the default host, once the runtime reports serving it. */
                                url?: string;
                                /** @description The runtime serves the active build with the current environment and host names (false while a deploy rolls out). */
                                ready: boolean;
                                /** @description Why, in one word: Serving, RollingOut, BuildFailed, BuildNotFound, InsufficientStorage, QuotaExceeded, RuntimeUnavailable, NoBuild, CPULimitExceeded or MemoryLimitExceeded (the Ready condition’s reason; the last two: the runtime stopped the app for a while, see docs/runtime.md). */
                                status_reason?: string;
                                /** @description Why the app is or is not ready, as the runtime reports it. */
                                status_message?: string;
                                /** @description The build the runtime serves now; it differs from active_build_id while a deploy or rollback rolls out. */
                                serving_build_id?: string;
                                /** @description A preview app: the app whose repository’s branch it serves (docs/push-to-deploy.md). */
                                preview_of?: string;
                                /** @description A preview app’s branch. */
                                branch?: string;
                                /** @description The repository (`owner/name`) connected to the app, when one is: pushes deploy it (`…/source`). */
                                source?: string;
                                /** @description Why the connected repository’s latest push to the production branch is not served, when it is not: its build failed (and why), or its deploy was refused (`…/source` has the details). */
                                source_message?: string;
                                /** @description The app’s latest rollout (`…/rollout` has the details). */
                                rollout?: {
                                    /**
                                     * @description Progressing: stepping; Paused: waiting for a promote (or for a pause to end); Succeeded: the new build serves all traffic; Aborted: the stable build does.
                                     * @enum {string}
                                     */
                                    phase: "Progressing" | "Paused" | "Succeeded" | "Aborted";
                                    /** @description Percent of traffic on the new build. */
                                    weight: number;
                                    /** @description The new build. */
                                    canary_build_id: string;
                                };
                                /** @description Redirect to HTTPS and HSTS. */
                                https: {
                                    /** @description Plain-HTTP requests are redirected (308) to HTTPS on each host with a certificate. */
                                    redirect_http: boolean;
                                    /** @description The `Strict-Transport-Security` sent over HTTPS; absent: none. */
                                    hsts?: {
                                        max_age_seconds: number;
                                        include_subdomains: boolean;
                                        preload: boolean;
                                    };
                                };
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC timestamp.
                                 */
                                created_at: string;
                                /** @description The app’s last hour on the runtime replicas that answered; absent when none did. */
                                traffic?: {
                                    /** @description Answers in the last hour. */
                                    requests: number;
                                    /** @description 5xx answers / requests; null with no requests. */
                                    error_ratio: number | null;
                                    /** @description 95th percentile latency (ms); null with no requests. */
                                    p95_ms: number | null;
                                };
                            }[];
                            /** @description An opaque cursor: pass it as `cursor` for the next page; null on the last page. */
                            next: string | null;
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /** Register an app (nothing is deployed); 409 when the project already has an app of that name */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Redirect to HTTPS and HSTS (docs/tls.md, "Redirect and HSTS"). */
                        https?: {
                            /** @description Answer plain-HTTP requests to the app with `308` to the same URL over HTTPS, on each host the platform serves a certificate for (ACME challenges excepted). Default false. */
                            redirect_http?: boolean;
                            /** @description HSTS settings; `null` removes them (no header). */
                            hsts?: ({
                                /** @description How long browsers keep to HTTPS after seeing the header, in seconds (default 31536000, one year; at most two years). 0 tells browsers to forget the policy. */
                                max_age_seconds?: number;
                                /** @description Cover every subdomain of each of the app’s hosts too (`includeSubDomains`; default false). */
                                include_subdomains?: boolean;
                                /**
                                 * @description No `preload` (the default).
                                 * @enum {boolean}
                                 */
                                preload?: false;
                            } | {
                                /** @description How long browsers keep to HTTPS after seeing the header, in seconds (default 31536000, one year; at most two years). 0 tells browsers to forget the policy. With preload, at least 31536000. */
                                max_age_seconds?: number;
                                /**
                                 * @description Preload needs `includeSubDomains`.
                                 * @enum {boolean}
                                 */
                                include_subdomains: true;
                                /**
                                 * @description Consent to browsers’ built-in HSTS lists. Hard to undo: see docs/tls.md.
                                 * @enum {boolean}
                                 */
                                preload: true;
                            }) | null;
                        };
                        /** @description The app’s name (not blank; no control characters or bidirectional overrides), unique within the project. A name that is a DNS label (`web`) is also the app id; any other name gets a slug of it plus six hex digits as its id (`My Shop` → `my-shop-b14e76`). */
                        name: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description A runtime app. */
                            app: {
                                /** @description Identifier, unique within the project; part of the default host. */
                                app_id: string;
                                /** @description Name chosen at creation. */
                                name: string;
                                /** @description Build currently selected for serving; empty until the first deploy. */
                                active_build_id: string;
                                /** @description Builds uploaded for the app, newest first. */
                                builds: {
                                    build_id: string;
                                }[];
                                /** @description Host names the app is bound to: its default host `<app_id>.<project>.<runtime base domain>` first, then the deploy’s host names and the custom domains attached and finalized for it. */
                                hosts: string[];
                                /** @description URL of the default host, once the runtime reports serving it. */
                                url?: string;
                                /** @description The runtime serves the active build with the current environment and host names (false while a deploy rolls out). */
                                ready: boolean;
                                /** @description Why, in one word: Serving, RollingOut, BuildFailed, BuildNotFound, InsufficientStorage, QuotaExceeded, RuntimeUnavailable, NoBuild, CPULimitExceeded or MemoryLimitExceeded (the Ready condition’s reason; the last two: the runtime stopped the app for a while, see docs/runtime.md). */
                                status_reason?: string;
                                /** @description Why the app is or is not ready, as the runtime reports it. */
                                status_message?: string;
                                /** @description The build the runtime serves now; it differs from active_build_id while a deploy or rollback rolls out. */
                                serving_build_id?: string;
                                /** @description A preview app: the app whose repository’s branch it serves (docs/push-to-deploy.md). */
                                preview_of?: string;
                                /** @description A preview app’s branch. */
                                branch?: string;
                                /** @description The repository (`owner/name`) connected to the app, when one is: pushes deploy it (`…/source`). */
                                source?: string;
                                /** @description Why the connected repository’s latest push to the production branch is not served, when it is not: its build failed (and why), or its deploy was refused (`…/source` has the details). */
                                source_message?: string;
                                /** @description The app’s latest rollout (`…/rollout` has the details). */
                                rollout?: {
                                    /**
                                     * @description Progressing: stepping; Paused: waiting for a promote (or for a pause to end); Succeeded: the new build serves all traffic; Aborted: the stable build does.
                                     * @enum {string}
                                     */
                                    phase: "Progressing" | "Paused" | "Succeeded" | "Aborted";
                                    /** @description Percent of traffic on the new build. */
                                    weight: number;
                                    /** @description The new build. */
                                    canary_build_id: string;
                                };
                                /** @description Redirect to HTTPS and HSTS. */
                                https: {
                                    /** @description Plain-HTTP requests are redirected (308) to HTTPS on each host with a certificate. */
                                    redirect_http: boolean;
                                    /** @description The `Strict-Transport-Security` sent over HTTPS; absent: none. */
                                    hsts?: {
                                        max_age_seconds: number;
                                        include_subdomains: boolean;
                                        preload: boolean;
                                    };
                                };
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC timestamp.
                                 */
                                created_at: string;
                            };
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/apps/{appId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get an app */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description App id, as `POST …/apps` assigned it (a DNS label). */
                    appId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description A runtime app. */
                            app: {
                                /** @description Identifier, unique within the project; part of the default host. */
                                app_id: string;
                                /** @description Name chosen at creation. */
                                name: string;
                                /** @description Build currently selected for serving; empty until the first deploy. */
                                active_build_id: string;
                                /** @description Builds uploaded for the app, newest first. */
                                builds: {
                                    build_id: string;
                                }[];
                                /** @description Host names the app is bound to: its default host `<app_id>.<project>.<runtime base domain>` first, then the deploy’s host names and the custom domains attached and finalized for it. */
                                hosts: string[];
                                /** @description URL of the default host, once the runtime reports serving it. */
                                url?: string;
                                /** @description The runtime serves the active build with the current environment and host names (false while a deploy rolls out). */
                                ready: boolean;
                                /** @description Why, in one word: Serving, RollingOut, BuildFailed, BuildNotFound, InsufficientStorage, QuotaExceeded, RuntimeUnavailable, NoBuild, CPULimitExceeded or MemoryLimitExceeded (the Ready condition’s reason; the last two: the runtime stopped the app for a while, see docs/runtime.md). */
                                status_reason?: string;
                                /** @description Why the app is or is not ready, as the runtime reports it. */
                                status_message?: string;
                                /** @description The build the runtime serves now; it differs from active_build_id while a deploy or rollback rolls out. */
                                serving_build_id?: string;
                                /** @description A preview app: the app whose repository’s branch it serves (docs/push-to-deploy.md). */
                                preview_of?: string;
                                /** @description A preview app’s branch. */
                                branch?: string;
                                /** @description The repository (`owner/name`) connected to the app, when one is: pushes deploy it (`…/source`). */
                                source?: string;
                                /** @description Why the connected repository’s latest push to the production branch is not served, when it is not: its build failed (and why), or its deploy was refused (`…/source` has the details). */
                                source_message?: string;
                                /** @description The app’s latest rollout (`…/rollout` has the details). */
                                rollout?: {
                                    /**
                                     * @description Progressing: stepping; Paused: waiting for a promote (or for a pause to end); Succeeded: the new build serves all traffic; Aborted: the stable build does.
                                     * @enum {string}
                                     */
                                    phase: "Progressing" | "Paused" | "Succeeded" | "Aborted";
                                    /** @description Percent of traffic on the new build. */
                                    weight: number;
                                    /** @description The new build. */
                                    canary_build_id: string;
                                };
                                /** @description Redirect to HTTPS and HSTS. */
                                https: {
                                    /** @description Plain-HTTP requests are redirected (308) to HTTPS on each host with a certificate. */
                                    redirect_http: boolean;
                                    /** @description The `Strict-Transport-Security` sent over HTTPS; absent: none. */
                                    hsts?: {
                                        max_age_seconds: number;
                                        include_subdomains: boolean;
                                        preload: boolean;
                                    };
                                };
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC timestamp.
                                 */
                                created_at: string;
                            };
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /** Delete an app: it stops being served, and its builds, stored artifacts, environment and host names go; answers what was cleaned up. 200 once gone; 202 with status deleting when its stored artifacts were not all deleted within 10 s (the platform carries on; repeat the DELETE to follow it) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description App id, as `POST …/apps` assigned it (a DNS label). */
                    appId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Report of an app deletion. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            app_id: string;
                            /** @description deleted: the app is gone, its stored artifacts with it (200). deleting: the platform had not finished deleting its stored artifacts within 10 s (202); it carries on, and the same DELETE answers again (200 once gone). */
                            status: "deleted" | "deleting";
                            /** @description What was cleaned up. */
                            deleted: {
                                /** @description The app had an active build and the pointer to it is gone: the runtime no longer routes to it. */
                                routing_pointer: boolean;
                                /** @description Control-plane objects removed: the app itself (once gone), its build records and its hostname bindings. */
                                runtime_resources: number;
                                /** @description Stored build artifacts removed (0 while the app is still being deleted). */
                                build_artifacts: number;
                                /** @description Environment variables removed. */
                                environment_keys: number;
                                /** @description Platform-owned DNS records of the app’s host names removed from managed project domains. */
                                dns_records: number;
                                /** @description Host names the app was bound to, now unbound. */
                                hostnames: string[];
                            };
                            /** @description Host names whose DNS lives at the owner’s DNS provider and still points at the runtime: remove those records there, or another app could later claim the name. */
                            dns_cleanup_pending: {
                                hostname: string;
                                /** @description The records published for it, as the attach returned them; empty when the platform never listed any (deploy host names). */
                                records: {
                                    record_type: string;
                                    name: string;
                                    value: string;
                                }[];
                            }[];
                        };
                    };
                };
                /** @description Report of an app deletion. */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            app_id: string;
                            /** @description deleted: the app is gone, its stored artifacts with it (200). deleting: the platform had not finished deleting its stored artifacts within 10 s (202); it carries on, and the same DELETE answers again (200 once gone). */
                            status: "deleted" | "deleting";
                            /** @description What was cleaned up. */
                            deleted: {
                                /** @description The app had an active build and the pointer to it is gone: the runtime no longer routes to it. */
                                routing_pointer: boolean;
                                /** @description Control-plane objects removed: the app itself (once gone), its build records and its hostname bindings. */
                                runtime_resources: number;
                                /** @description Stored build artifacts removed (0 while the app is still being deleted). */
                                build_artifacts: number;
                                /** @description Environment variables removed. */
                                environment_keys: number;
                                /** @description Platform-owned DNS records of the app’s host names removed from managed project domains. */
                                dns_records: number;
                                /** @description Host names the app was bound to, now unbound. */
                                hostnames: string[];
                            };
                            /** @description Host names whose DNS lives at the owner’s DNS provider and still points at the runtime: remove those records there, or another app could later claim the name. */
                            dns_cleanup_pending: {
                                hostname: string;
                                /** @description The records published for it, as the attach returned them; empty when the platform never listed any (deploy host names). */
                                records: {
                                    record_type: string;
                                    name: string;
                                    value: string;
                                }[];
                            }[];
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description A dependency is unavailable; retry after `Retry-After` seconds. */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        /** Change an app’s settings (its redirect to HTTPS and HSTS); what the body leaves out stays as it is. The runtime applies them without a redeploy */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description App id, as `POST …/apps` assigned it (a DNS label). */
                    appId: string;
                };
                cookie?: never;
            };
            /** @description The settings to change; what is left out stays as it is. */
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Redirect to HTTPS and HSTS (docs/tls.md, "Redirect and HSTS"). */
                        https?: {
                            /** @description Answer plain-HTTP requests to the app with `308` to the same URL over HTTPS, on each host the platform serves a certificate for (ACME challenges excepted). Default false. */
                            redirect_http?: boolean;
                            /** @description HSTS settings; `null` removes them (no header). */
                            hsts?: ({
                                /** @description How long browsers keep to HTTPS after seeing the header, in seconds (default 31536000, one year; at most two years). 0 tells browsers to forget the policy. */
                                max_age_seconds?: number;
                                /** @description Cover every subdomain of each of the app’s hosts too (`includeSubDomains`; default false). */
                                include_subdomains?: boolean;
                                /**
                                 * @description No `preload` (the default).
                                 * @enum {boolean}
                                 */
                                preload?: false;
                            } | {
                                /** @description How long browsers keep to HTTPS after seeing the header, in seconds (default 31536000, one year; at most two years). 0 tells browsers to forget the policy. With preload, at least 31536000. */
                                max_age_seconds?: number;
                                /**
                                 * @description Preload needs `includeSubDomains`.
                                 * @enum {boolean}
                                 */
                                include_subdomains: true;
                                /**
                                 * @description Consent to browsers’ built-in HSTS lists. Hard to undo: see docs/tls.md.
                                 * @enum {boolean}
                                 */
                                preload: true;
                            }) | null;
                        };
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description A runtime app. */
                            app: {
                                /** @description Identifier, unique within the project; part of the default host. */
                                app_id: string;
                                /** @description Name chosen at creation. */
                                name: string;
                                /** @description Build currently selected for serving; empty until the first deploy. */
                                active_build_id: string;
                                /** @description Builds uploaded for the app, newest first. */
                                builds: {
                                    build_id: string;
                                }[];
                                /** @description Host names the app is bound to: its default host `<app_id>.<project>.<runtime base domain>` first, then the deploy’s host names and the custom domains attached and finalized for it. */
                                hosts: string[];
                                /** @description URL of the default host, once the runtime reports serving it. */
                                url?: string;
                                /** @description The runtime serves the active build with the current environment and host names (false while a deploy rolls out). */
                                ready: boolean;
                                /** @description Why, in one word: Serving, RollingOut, BuildFailed, BuildNotFound, InsufficientStorage, QuotaExceeded, RuntimeUnavailable, NoBuild, CPULimitExceeded or MemoryLimitExceeded (the Ready condition’s reason; the last two: the runtime stopped the app for a while, see docs/runtime.md). */
                                status_reason?: string;
                                /** @description Why the app is or is not ready, as the runtime reports it. */
                                status_message?: string;
                                /** @description The build the runtime serves now; it differs from active_build_id while a deploy or rollback rolls out. */
                                serving_build_id?: string;
                                /** @description A preview app: the app whose repository’s branch it serves (docs/push-to-deploy.md). */
                                preview_of?: string;
                                /** @description A preview app’s branch. */
                                branch?: string;
                                /** @description The repository (`owner/name`) connected to the app, when one is: pushes deploy it (`…/source`). */
                                source?: string;
                                /** @description Why the connected repository’s latest push to the production branch is not served, when it is not: its build failed (and why), or its deploy was refused (`…/source` has the details). */
                                source_message?: string;
                                /** @description The app’s latest rollout (`…/rollout` has the details). */
                                rollout?: {
                                    /**
                                     * @description Progressing: stepping; Paused: waiting for a promote (or for a pause to end); Succeeded: the new build serves all traffic; Aborted: the stable build does.
                                     * @enum {string}
                                     */
                                    phase: "Progressing" | "Paused" | "Succeeded" | "Aborted";
                                    /** @description Percent of traffic on the new build. */
                                    weight: number;
                                    /** @description The new build. */
                                    canary_build_id: string;
                                };
                                /** @description Redirect to HTTPS and HSTS. */
                                https: {
                                    /** @description Plain-HTTP requests are redirected (308) to HTTPS on each host with a certificate. */
                                    redirect_http: boolean;
                                    /** @description The `Strict-Transport-Security` sent over HTTPS; absent: none. */
                                    hsts?: {
                                        max_age_seconds: number;
                                        include_subdomains: boolean;
                                        preload: boolean;
                                    };
                                };
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC timestamp.
                                 */
                                created_at: string;
                            };
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/v1/projects/{projectId}/apps/{appId}/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An app’s requests, errors and latency over the last day, per step, merged from every runtime replica
         * @description Each cw-runtime replica keeps a one-minute window of its apps’ answers for 24 hours (docs/runtime.md); this merges the live replicas’ windows. A replica that does not answer within 2 s is listed in `replicas.missing`.
         */
        get: {
            parameters: {
                query?: {
                    /** @description A duration back from now, `15m`, `1h`, `6h`, `24h` (at most 24h), or an RFC 3339 time within the last 24 hours; default `1h`. */
                    since?: string;
                    /** @description Each point’s span; default the smallest giving at most 120 points (1h → 1m, 6h → 5m, 24h → 15m). */
                    step?: "1m" | "5m" | "15m" | "1h";
                };
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description App id, as `POST …/apps` assigned it (a DNS label). */
                    appId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description An app’s requests, errors and latency over time, from every live runtime replica. */
                            metrics: {
                                /**
                                 * Format: date-time
                                 * @description The first step’s start: the requested since, down to a step boundary.
                                 */
                                since: string;
                                /**
                                 * Format: date-time
                                 * @description Now: the last step is the one under way.
                                 */
                                until: string;
                                /** @description Each point’s span. */
                                step_seconds: number;
                                /** @description Each replica keeps its own window since it started: one that restarted contributes from its start. */
                                replicas: {
                                    /** @description Live runtime replicas whose windows are in the figures. */
                                    answered: number;
                                    /** @description Live runtime replicas. */
                                    live: number;
                                    /** @description Replicas that did not answer within 2 s: their answers are not counted. */
                                    missing: string[];
                                };
                                /** @description One per step from since to until; steps without answers are zeros with null percentiles. */
                                points: {
                                    /**
                                     * Format: date-time
                                     * @description The step’s start.
                                     */
                                    time: string;
                                    /** @description Answers, every status class. */
                                    requests: number;
                                    /** @description 5xx answers (an uncaught exception is answered 500, so it is one of them). */
                                    errors: number;
                                    /** @description errors / requests; null with no requests. */
                                    error_ratio: number | null;
                                    /** @description requests / step_seconds. */
                                    requests_per_second: number;
                                    /** @description Median latency (ms) from the merged latency histogram, linear inside its bucket; null with no requests. */
                                    p50_ms: number | null;
                                    /** @description 95th percentile latency (ms), as p50_ms. */
                                    p95_ms: number | null;
                                    /** @description 99th percentile latency (ms), as p50_ms. */
                                    p99_ms: number | null;
                                    /** @description Answers by status class. */
                                    status: {
                                        "1xx": number;
                                        "2xx": number;
                                        "3xx": number;
                                        "4xx": number;
                                        "5xx": number;
                                    };
                                    /** @description Uncaught exceptions of the app (among the errors). */
                                    exceptions: number;
                                    /** @description 503s the runtime gave without calling the app: its queue was full, or it was quarantined (among the errors). */
                                    refused: number;
                                }[];
                                /** @description The whole span. */
                                totals: {
                                    /** @description Answers, every status class. */
                                    requests: number;
                                    /** @description 5xx answers (an uncaught exception is answered 500, so it is one of them). */
                                    errors: number;
                                    /** @description errors / requests; null with no requests. */
                                    error_ratio: number | null;
                                    /** @description Median latency (ms) from the merged latency histogram, linear inside its bucket; null with no requests. */
                                    p50_ms: number | null;
                                    /** @description 95th percentile latency (ms), as p50_ms. */
                                    p95_ms: number | null;
                                    /** @description 99th percentile latency (ms), as p50_ms. */
                                    p99_ms: number | null;
                                    /** @description Uncaught exceptions of the app (among the errors). */
                                    exceptions: number;
                                    /** @description 503s the runtime gave without calling the app: its queue was full, or it was quarantined (among the errors). */
                                    refused: number;
                                };
                                /** @description Per build, the answers given while the app was in a rollout during the span (part of points); empty otherwise. */
                                builds: {
                                    [key: string]: {
                                        /** @description One per step from since to until; steps without answers are zeros with null percentiles. */
                                        points: {
                                            /**
                                             * Format: date-time
                                             * @description The step’s start.
                                             */
                                            time: string;
                                            /** @description Answers, every status class. */
                                            requests: number;
                                            /** @description 5xx answers (an uncaught exception is answered 500, so it is one of them). */
                                            errors: number;
                                            /** @description errors / requests; null with no requests. */
                                            error_ratio: number | null;
                                            /** @description requests / step_seconds. */
                                            requests_per_second: number;
                                            /** @description Median latency (ms) from the merged latency histogram, linear inside its bucket; null with no requests. */
                                            p50_ms: number | null;
                                            /** @description 95th percentile latency (ms), as p50_ms. */
                                            p95_ms: number | null;
                                            /** @description 99th percentile latency (ms), as p50_ms. */
                                            p99_ms: number | null;
                                            /** @description Answers by status class. */
                                            status: {
                                                "1xx": number;
                                                "2xx": number;
                                                "3xx": number;
                                                "4xx": number;
                                                "5xx": number;
                                            };
                                            /** @description Uncaught exceptions of the app (among the errors). */
                                            exceptions: number;
                                            /** @description 503s the runtime gave without calling the app: its queue was full, or it was quarantined (among the errors). */
                                            refused: number;
                                        }[];
                                        /** @description The whole span. */
                                        totals: {
                                            /** @description Answers, every status class. */
                                            requests: number;
                                            /** @description 5xx answers (an uncaught exception is answered 500, so it is one of them). */
                                            errors: number;
                                            /** @description errors / requests; null with no requests. */
                                            error_ratio: number | null;
                                            /** @description Median latency (ms) from the merged latency histogram, linear inside its bucket; null with no requests. */
                                            p50_ms: number | null;
                                            /** @description 95th percentile latency (ms), as p50_ms. */
                                            p95_ms: number | null;
                                            /** @description 99th percentile latency (ms), as p50_ms. */
                                            p99_ms: number | null;
                                            /** @description Uncaught exceptions of the app (among the errors). */
                                            exceptions: number;
                                            /** @description 503s the runtime gave without calling the app: its queue was full, or it was quarantined (among the errors). */
                                            refused: number;
                                        };
                                    };
                                };
                                /** @description Markers for the time axis: deploys, rollbacks and rollout steps. */
                                events: {
                                    /** Format: date-time */
                                    time: string;
                                    /** @description `deploy`, `rollback` or `rollout` (a step, or an abort). */
                                    kind: "deploy" | "rollback" | "rollout";
                                    build_id?: string;
                                    detail?: string;
                                }[];
                            };
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/apps/{appId}/logs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Follow an app’s logs live: each request, its console output and uncaught exceptions, from every runtime replica
         * @description A user follows at most 8 log streams at once, with all their tokens and sessions (429 past that), and the API process 200 (503): by default; the server may set others.
         */
        get: {
            parameters: {
                query?: {
                    /** @description Only requests in these classes, comma-separated: `2xx`, `3xx`, `4xx`, `5xx`, `exception` (threw, or did not finish normally). */
                    status?: string;
                    /** @description Only requests whose URL, console lines or exceptions contain this text (any case). */
                    search?: string;
                    /** @description Recent entries per runtime replica to start with, 0 to 100 (default 50), before filtering. */
                    recent?: string;
                    /** @description Keep the stream open for new entries (default); `false` ends it after the recent ones. */
                    follow?: "true" | "false";
                };
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description App id, as `POST …/apps` assigned it (a DNS label). */
                    appId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The event stream. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/event-stream": string;
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description A dependency is unavailable; retry after `Retry-After` seconds. */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/apps/{appId}/builds": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the app’s builds, newest first */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description App id, as `POST …/apps` assigned it (a DNS label). */
                    appId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            builds: {
                                build_id: string;
                                /**
                                 * Format: date-time
                                 * @description When it was uploaded (ISO 8601 UTC).
                                 */
                                created_at: string;
                                /** @description Size of the uploaded `.tar.zst` in bytes. */
                                size: number;
                                /** @description `sha256:` and the hex SHA-256 of the uploaded `.tar.zst`. */
                                digest: string;
                                /** @description It is the app’s `active_build_id`. */
                                active: boolean;
                                /** @description The options the build was last deployed with: a rollback to it applies them again. Absent for a build deployed before builds recorded their options (a rollback to it keeps the app’s current ones). */
                                deploy_options?: {
                                    /** @description The deploy’s host names (besides the default host); empty when it named none. */
                                    hostnames: string[];
                                    /** @description The deploy’s concurrency bound; absent when it left the runtime default (100). */
                                    max_concurrent_requests?: number;
                                };
                            }[];
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/apps/{appId}/deployments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The app’s deploy history: its latest activations of a build, newest first
         * @description Every change of the active build is recorded by the operator, whoever made it (a deploy, a rollback, push to deploy, kubectl), with who made it, its rollout’s steps and when it was served to all traffic; at most the latest 20.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description App id, as `POST …/apps` assigned it (a DNS label). */
                    appId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            deployments: {
                                /** @description Build id: `b-` and the first 16 hex digits of the artifact’s SHA-256. */
                                build_id: string;
                                /** @description rollback: the build had been active before. */
                                kind: "deploy" | "rollback";
                                /**
                                 * Format: date-time
                                 * @description When it became the app’s active build (as the operator saw the change).
                                 */
                                activated_at: string;
                                /**
                                 * Format: date-time
                                 * @description When every live runtime replica first served it to all traffic (with a rollout: when the rollout succeeded). Absent until then.
                                 */
                                served_at?: string;
                                /** @description From activated_at to served_at, in seconds. */
                                seconds_to_serve?: number;
                                /** @description Who activated it: `user:<id>` (a deploy or rollback through the API) or `push:<owner>/<repository>@<commit>` (push to deploy). Absent for a change made another way (kubectl). */
                                by?: string;
                                /** @description The commit it was built from (push to deploy). */
                                commit?: string;
                                /** @description The weights its rollout went through, in order (docs/rollouts.md). */
                                rollout_steps?: {
                                    /** @description Percent of traffic. */
                                    weight: number;
                                    /** Format: date-time */
                                    at: string;
                                }[];
                                /**
                                 * Format: date-time
                                 * @description When its rollout was aborted.
                                 */
                                aborted_at?: string;
                                /** @description It is the latest activation and still the app’s active build. */
                                active: boolean;
                            }[];
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /**
         * Deploy: upload a build artifact (`.tar.zst`) and make it the app’s active build
         * @description The body is validated in full before anything is stored (400 names the problem; 413 names the limit; 409 or 413 names the figures when the project’s quota on unpacked builds would be passed). The artifact is stored under its content address, so uploading the same artifact again is the same build. It becomes active only once stored. At most 2 uploads of one user are read at once (429 past that) and 8 in all (503), each within 120 s and at 16384 bytes/s or more on average (408 otherwise; by default: the server may set others).
         */
        post: {
            parameters: {
                query?: {
                    /** @description Host names to serve the app on besides its default host, comma-separated (at most 32). A per-deployment option: they replace the app’s current deploy host names, and absent or empty means none (not the previous deploy’s); custom domains attached through `…/domains` are served either way. Recorded on the build, so a rollback to it binds them again. Case and a trailing dot are ignored. Names under the runtime’s base domain must end in `.<projectId>.<base domain>`; a name another app is bound to is a 409. Where a GitOps tool applies the app’s `hostnames`, absent keeps its value and another is a 409. */
                    hostnames?: string;
                    /** @description The environment the build runs with. An app has one environment, `production` (the variables of `…/environment`), so this is the only value; it is accepted so that clients may name it. */
                    environment?: "production";
                    /** @description Requests the app serves at once before new ones queue. A per-deployment option: absent means the runtime default (100), not the previous deploy’s bound. Recorded on the build, so a rollback to it applies it again. Where a GitOps tool applies the app’s `maxConcurrentRequests`, absent keeps its value and another is a 409. */
                    max_concurrent_requests?: number;
                };
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description App id, as `POST …/apps` assigned it (a DNS label). */
                    appId: string;
                };
                cookie?: never;
            };
            /** @description The build artifact: a zstd-compressed tar archive (`.tar.zst`), sent raw as `application/octet-stream`, at most 64 MiB (256 MiB unpacked, 25 MiB per file, 20000 files). Layout: see docs/runtime.md. */
            requestBody: {
                content: {
                    "application/octet-stream": unknown;
                };
            };
            responses: {
                /** @description The deploy result. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description App deployed to. */
                            app_id: string;
                            /** @description The build; it is now the app’s `active_build_id`. */
                            build_id: string;
                            /** @description Host names the app is bound to after this deploy: the default host first, then the deploy’s host names and the attached custom domains it keeps. */
                            hosts: string[];
                            /** @description True when this request uploaded the artifact; false for a rollback. */
                            uploaded: boolean;
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body arrived too slowly, or took too long; `detail` says which. The connection is closed. */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description A dependency is unavailable; retry after `Retry-After` seconds. */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/apps/{appId}/rollbacks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Roll back: make a stored build of the app active again, without an upload
         * @description Any build `GET …/builds` lists can be selected. The app gets the deploy options that build was last deployed with (its `deploy_options`: host names and concurrency bound, a default where it left one out); a build without recorded options keeps the app’s current ones. Custom domains attached through `…/domains` stay attached. A recorded host name the app may no longer have (another app’s now: 409; a custom domain the project no longer controls: 403) refuses the rollback, naming it, and nothing changes. Answers the deploy result with `uploaded: false`.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description App id, as `POST …/apps` assigned it (a DNS label). */
                    appId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Build id: `b-` and the first 16 hex digits of the artifact’s SHA-256. */
                        build_id: string;
                    };
                };
            };
            responses: {
                /** @description The deploy result. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description App deployed to. */
                            app_id: string;
                            /** @description The build; it is now the app’s `active_build_id`. */
                            build_id: string;
                            /** @description Host names the app is bound to after this deploy: the default host first, then the deploy’s host names and the attached custom domains it keeps. */
                            hosts: string[];
                            /** @description True when this request uploaded the artifact; false for a rollback. */
                            uploaded: boolean;
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description A dependency is unavailable; retry after `Retry-After` seconds. */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/apps/{appId}/environment": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get the app’s environment: `{environment: {KEY: {value, secret: false} | {database, access, secret: true}}}`; a linked variable’s token is never shown */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description App id, as `POST …/apps` assigned it (a DNS label). */
                    appId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description The app’s variables by name (at most 128 plain ones and 32 database links). */
                            environment: {
                                [key: string]: {
                                    /** @description A plain variable’s value; absent for a linked one. */
                                    value?: string;
                                    /** @description A linked variable’s database; its token is never shown. */
                                    database?: string;
                                    /** @description A linked token’s access: `read-only` or `full`. */
                                    access?: string;
                                    /**
                                     * @description Present on the `_URL` variable of a database binding: the runtime gives the database’s URL.
                                     * @enum {string}
                                     */
                                    provides?: "url";
                                    /** @description false for a plain value or a database’s URL; true for a database’s token (no value shown). */
                                    secret: boolean;
                                };
                            };
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/apps/{appId}/environment/{key}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Set a variable (creates or replaces it): a plain `value`, or a link to a project database’s token (`database`, `access`)
         * @description The app is rolled out again with the new environment. A plain value is stored in the app and shown by GET; `secret: true` is a 400. A linked variable gets the database’s app token (read-only unless `access` is `full`), which the runtime reads from the Database’s Secret: no response shows it. A link needs `databases:read` too (`databases:write` for `full`): the app gets what its token allows. A database that is not in the project is a 404, one being deleted a 409. An app has at most 128 plain variables and 32 links (409 past that).
         */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description App id, as `POST …/apps` assigned it (a DNS label). */
                    appId: string;
                    /** @description Variable name: letters, digits and `_`, not starting with a digit. */
                    key: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description A plain configuration value (stored in the app and shown by GET). Give this or `database`. */
                        value?: string;
                        /**
                         * @description With `value`: `false` (the default); `true` is refused with 400, since secret values are not enabled (link a database token instead).
                         * @enum {boolean}
                         */
                        secret?: false;
                        /** @description Link the variable to this database of the project: its value is the database's app token, which the runtime binds and no response ever shows. Give this or `value`. */
                        database?: string;
                        /** @description With `database`: `read-only` (the default) or `full` (reads and writes). */
                        access?: "full" | "read-only";
                    } & (unknown | unknown);
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description A stored environment variable. */
                            variable: {
                                key: string;
                                /** @description A plain variable’s value; absent for a linked one. */
                                value?: string;
                                /** @description A linked variable’s database. */
                                database?: string;
                                /** @description A linked variable’s access: `read-only` or `full`. */
                                access?: string;
                                /** @description false for a plain value; true for a database link (no value shown). */
                                secret: boolean;
                            };
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        post?: never;
        /** Remove a variable (404 when the app has none of that name) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description App id, as `POST …/apps` assigned it (a DNS label). */
                    appId: string;
                    /** @description Variable name: letters, digits and `_`, not starting with a digit. */
                    key: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Removed. */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/apps/{appId}/database-bindings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the app’s database bindings (no token) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description App id, as `POST …/apps` assigned it (a DNS label). */
                    appId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            bindings: {
                                name: string;
                                database: string;
                                /** @description `read-only` or `full`. */
                                access: string;
                                /** @description The variables the runtime gives the app. */
                                variables: {
                                    /** @description The variable holding the database’s URL. */
                                    url: string;
                                    /** @description The variable holding its token (never shown). */
                                    token: string;
                                };
                            }[];
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/apps/{appId}/database-bindings/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Bind a project database to the app as `<name>_URL` and `<name>_TOKEN` (creates or replaces the binding)
         * @description The runtime gives the app the URL it reaches the database at and an app token (read-only unless `access` is `full`) that the platform mints and rotates, the replaced one still accepted for an overlap; no response and no object a tenant reads holds the token. The two variables replace any of those names. The app is rolled out again. Needs `databases:read` too (`databases:write` for `full`). A database that is not in the project is a 404, one being deleted a 409; an app has at most 32 database variables (a binding takes two).
         */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description App id, as `POST …/apps` assigned it (a DNS label). */
                    appId: string;
                    /** @description Binding name: the app reads `<name>_URL` and `<name>_TOKEN` (letters, digits and `_`, not starting with a digit). */
                    name: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description A database of the project. */
                        database: string;
                        /** @description `read-only` (the default) or `full` (reads and writes). */
                        access?: "full" | "read-only";
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description A database bound to the app: no response holds its token. */
                            binding: {
                                name: string;
                                database: string;
                                /** @description `read-only` or `full`. */
                                access: string;
                                /** @description The variables the runtime gives the app. */
                                variables: {
                                    /** @description The variable holding the database’s URL. */
                                    url: string;
                                    /** @description The variable holding its token (never shown). */
                                    token: string;
                                };
                            };
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        post?: never;
        /** Unbind a database (removes both variables; 404 when the app has no binding of that name) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description App id, as `POST …/apps` assigned it (a DNS label). */
                    appId: string;
                    /** @description Binding name: the app reads `<name>_URL` and `<name>_TOKEN` (letters, digits and `_`, not starting with a digit). */
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Removed. */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/apps/{appId}/rollout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The app’s rollout policy and its latest rollout: phase, step, weight, stable and new builds, the last analysis interval’s counts (404 when the app has no policy) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description App id, as `POST …/apps` assigned it (a DNS label). */
                    appId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description An app’s rollout policy and its latest rollout. */
                            rollout: {
                                /** @description The policy; absent once removed (a rollout under way then switches at once). */
                                policy?: {
                                    /** @description Weights in increasing order, at most 10 steps; after the last step the new build takes all traffic. */
                                    steps: {
                                        /** @description Percent of requests (and of affinity keys) the new build gets at this step. */
                                        weight: number;
                                        /** @description How long the step holds: a duration such as 30s, 5m or 1h30m, or `manual` (until a promote). Absent: the step moves on at once (once its analysis passed, with analysis). */
                                        pause?: string;
                                    }[];
                                    /** @description What keeps a user on one build as the weight rises: `cookie` or `header`, one of the two. Absent: the cookie `cw-rollout`. */
                                    affinity?: {
                                        /** @description Cookie holding a random key, set by the runtime on the first answer during a rollout (default `cw-rollout`). */
                                        cookie?: string;
                                        /** @description Request header whose value is the key (a user id set by the app’s client, or a CDN’s); requests without it are split at random. */
                                        header?: string;
                                    };
                                    /** @description Judges the new build every interval from the runtime’s counts of requests and errors (5xx answers and uncaught exceptions); needs max_error_percent or max_percent_above_stable. */
                                    analysis?: {
                                        /** @description How often the new build is judged (default 1m). */
                                        interval?: string;
                                        /**
                                         * Format: int32
                                         * @description Requests the new build must have answered in an interval for it to be judged.
                                         */
                                        min_requests: number;
                                        /** @description Most 5xx answers and uncaught exceptions of the new build in an interval, in percent of its requests. */
                                        max_error_percent?: number;
                                        /** @description Most the new build’s error percent may exceed the stable build’s in the same interval. */
                                        max_percent_above_stable?: number;
                                        /**
                                         * Format: int32
                                         * @description Failed intervals tolerated before the rollout fails (default 0).
                                         */
                                        failure_limit?: number;
                                    };
                                    /**
                                     * @description What a failed analysis does: abort (the default: all traffic back to the stable build) or pause (wait for a promote or an abort).
                                     * @enum {string}
                                     */
                                    on_failure?: "abort" | "pause";
                                };
                                /** @description The latest rollout as the operator reports it. */
                                status?: {
                                    /**
                                     * @description Progressing: stepping; Paused: waiting for a promote (or for a pause to end); Succeeded: the new build serves all traffic; Aborted: the stable build does.
                                     * @enum {string}
                                     */
                                    phase: "Progressing" | "Paused" | "Succeeded" | "Aborted";
                                    /** @description Index of the current step (0-based); equals `steps` once all traffic is on the new build. */
                                    step: number;
                                    /** @description Steps of the policy. */
                                    steps: number;
                                    /** @description Percent of traffic the new build gets now. */
                                    weight: number;
                                    /** @description The build served before the rollout (all traffic goes back to it on an abort). */
                                    stable_build_id: string;
                                    /** @description The new build. */
                                    canary_build_id?: string;
                                    /**
                                     * Format: date-time
                                     * @description When every runtime replica first applied the current step’s weight (its pause counts from here); absent until then.
                                     */
                                    step_started_at?: string;
                                    /** @description The last judged interval’s counts per build. */
                                    analysis?: {
                                        /** @description Requests and errors (5xx answers and uncaught exceptions) one build answered. */
                                        stable: {
                                            requests: number;
                                            errors: number;
                                        };
                                        /** @description Requests and errors (5xx answers and uncaught exceptions) one build answered. */
                                        canary: {
                                            requests: number;
                                            errors: number;
                                        };
                                        /** @description Failed intervals so far in this rollout. */
                                        failures: number;
                                        /**
                                         * Format: date-time
                                         * @description When the last interval was judged.
                                         */
                                        checked_at: string;
                                    };
                                    /** @description Why the rollout is where it is (a failed analysis, a wait for a promote). */
                                    message?: string;
                                    /** @description The promote request the operator last handled. */
                                    last_handled_promote?: string;
                                    /** @description The abort request the operator last handled. */
                                    last_handled_abort?: string;
                                    /** @description The retry request the operator last handled. */
                                    last_handled_retry?: string;
                                };
                            };
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        /**
         * Set the app’s rollout policy: a change of its build or environment then goes out in steps of weight and pause instead of at once
         * @description Each step gives the new build a share of traffic (`weight`, increasing), held for `pause` (a duration, or `manual`: until a promote); an affinity cookie or header keeps a user on one build; `analysis` judges the new build every interval and fails it past a threshold (`on_failure`: abort or pause). The policy applies to the next change; docs/rollouts.md. 201 when the app had no policy, 200 when it was replaced (PUT: what the body leaves out gets its default). 400 names the field: weights 0–100 and increasing, durations such as 30s or 1h30m, at most 10 steps, analysis needs min_requests and a threshold, affinity is a cookie or a header.
         */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description App id, as `POST …/apps` assigned it (a DNS label). */
                    appId: string;
                };
                cookie?: never;
            };
            /** @description The rollout policy; PUT replaces it whole. */
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Weights in increasing order, at most 10 steps; after the last step the new build takes all traffic. */
                        steps: {
                            /** @description Percent of requests (and of affinity keys) the new build gets at this step. */
                            weight: number;
                            /** @description How long the step holds: a duration such as 30s, 5m or 1h30m, or `manual` (until a promote). Absent: the step moves on at once (once its analysis passed, with analysis). */
                            pause?: string;
                        }[];
                        /** @description What keeps a user on one build as the weight rises: `cookie` or `header`, one of the two. Absent: the cookie `cw-rollout`. */
                        affinity?: {
                            /** @description Cookie holding a random key, set by the runtime on the first answer during a rollout (default `cw-rollout`). */
                            cookie?: string;
                            /** @description Request header whose value is the key (a user id set by the app’s client, or a CDN’s); requests without it are split at random. */
                            header?: string;
                        };
                        /** @description Judges the new build every interval from the runtime’s counts of requests and errors (5xx answers and uncaught exceptions); needs max_error_percent or max_percent_above_stable. */
                        analysis?: {
                            /** @description How often the new build is judged (default 1m). */
                            interval?: string;
                            /**
                             * Format: int32
                             * @description Requests the new build must have answered in an interval for it to be judged.
                             */
                            min_requests: number;
                            /** @description Most 5xx answers and uncaught exceptions of the new build in an interval, in percent of its requests. */
                            max_error_percent?: number;
                            /** @description Most the new build’s error percent may exceed the stable build’s in the same interval. */
                            max_percent_above_stable?: number;
                            /**
                             * Format: int32
                             * @description Failed intervals tolerated before the rollout fails (default 0).
                             */
                            failure_limit?: number;
                        };
                        /**
                         * @description What a failed analysis does: abort (the default: all traffic back to the stable build) or pause (wait for a promote or an abort).
                         * @enum {string}
                         */
                        on_failure?: "abort" | "pause";
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description An app’s rollout policy and its latest rollout. */
                            rollout: {
                                /** @description The policy; absent once removed (a rollout under way then switches at once). */
                                policy?: {
                                    /** @description Weights in increasing order, at most 10 steps; after the last step the new build takes all traffic. */
                                    steps: {
                                        /** @description Percent of requests (and of affinity keys) the new build gets at this step. */
                                        weight: number;
                                        /** @description How long the step holds: a duration such as 30s, 5m or 1h30m, or `manual` (until a promote). Absent: the step moves on at once (once its analysis passed, with analysis). */
                                        pause?: string;
                                    }[];
                                    /** @description What keeps a user on one build as the weight rises: `cookie` or `header`, one of the two. Absent: the cookie `cw-rollout`. */
                                    affinity?: {
                                        /** @description Cookie holding a random key, set by the runtime on the first answer during a rollout (default `cw-rollout`). */
                                        cookie?: string;
                                        /** @description Request header whose value is the key (a user id set by the app’s client, or a CDN’s); requests without it are split at random. */
                                        header?: string;
                                    };
                                    /** @description Judges the new build every interval from the runtime’s counts of requests and errors (5xx answers and uncaught exceptions); needs max_error_percent or max_percent_above_stable. */
                                    analysis?: {
                                        /** @description How often the new build is judged (default 1m). */
                                        interval?: string;
                                        /**
                                         * Format: int32
                                         * @description Requests the new build must have answered in an interval for it to be judged.
                                         */
                                        min_requests: number;
                                        /** @description Most 5xx answers and uncaught exceptions of the new build in an interval, in percent of its requests. */
                                        max_error_percent?: number;
                                        /** @description Most the new build’s error percent may exceed the stable build’s in the same interval. */
                                        max_percent_above_stable?: number;
                                        /**
                                         * Format: int32
                                         * @description Failed intervals tolerated before the rollout fails (default 0).
                                         */
                                        failure_limit?: number;
                                    };
                                    /**
                                     * @description What a failed analysis does: abort (the default: all traffic back to the stable build) or pause (wait for a promote or an abort).
                                     * @enum {string}
                                     */
                                    on_failure?: "abort" | "pause";
                                };
                                /** @description The latest rollout as the operator reports it. */
                                status?: {
                                    /**
                                     * @description Progressing: stepping; Paused: waiting for a promote (or for a pause to end); Succeeded: the new build serves all traffic; Aborted: the stable build does.
                                     * @enum {string}
                                     */
                                    phase: "Progressing" | "Paused" | "Succeeded" | "Aborted";
                                    /** @description Index of the current step (0-based); equals `steps` once all traffic is on the new build. */
                                    step: number;
                                    /** @description Steps of the policy. */
                                    steps: number;
                                    /** @description Percent of traffic the new build gets now. */
                                    weight: number;
                                    /** @description The build served before the rollout (all traffic goes back to it on an abort). */
                                    stable_build_id: string;
                                    /** @description The new build. */
                                    canary_build_id?: string;
                                    /**
                                     * Format: date-time
                                     * @description When every runtime replica first applied the current step’s weight (its pause counts from here); absent until then.
                                     */
                                    step_started_at?: string;
                                    /** @description The last judged interval’s counts per build. */
                                    analysis?: {
                                        /** @description Requests and errors (5xx answers and uncaught exceptions) one build answered. */
                                        stable: {
                                            requests: number;
                                            errors: number;
                                        };
                                        /** @description Requests and errors (5xx answers and uncaught exceptions) one build answered. */
                                        canary: {
                                            requests: number;
                                            errors: number;
                                        };
                                        /** @description Failed intervals so far in this rollout. */
                                        failures: number;
                                        /**
                                         * Format: date-time
                                         * @description When the last interval was judged.
                                         */
                                        checked_at: string;
                                    };
                                    /** @description Why the rollout is where it is (a failed analysis, a wait for a promote). */
                                    message?: string;
                                    /** @description The promote request the operator last handled. */
                                    last_handled_promote?: string;
                                    /** @description The abort request the operator last handled. */
                                    last_handled_abort?: string;
                                    /** @description The retry request the operator last handled. */
                                    last_handled_retry?: string;
                                };
                            };
                        };
                    };
                };
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description An app’s rollout policy and its latest rollout. */
                            rollout: {
                                /** @description The policy; absent once removed (a rollout under way then switches at once). */
                                policy?: {
                                    /** @description Weights in increasing order, at most 10 steps; after the last step the new build takes all traffic. */
                                    steps: {
                                        /** @description Percent of requests (and of affinity keys) the new build gets at this step. */
                                        weight: number;
                                        /** @description How long the step holds: a duration such as 30s, 5m or 1h30m, or `manual` (until a promote). Absent: the step moves on at once (once its analysis passed, with analysis). */
                                        pause?: string;
                                    }[];
                                    /** @description What keeps a user on one build as the weight rises: `cookie` or `header`, one of the two. Absent: the cookie `cw-rollout`. */
                                    affinity?: {
                                        /** @description Cookie holding a random key, set by the runtime on the first answer during a rollout (default `cw-rollout`). */
                                        cookie?: string;
                                        /** @description Request header whose value is the key (a user id set by the app’s client, or a CDN’s); requests without it are split at random. */
                                        header?: string;
                                    };
                                    /** @description Judges the new build every interval from the runtime’s counts of requests and errors (5xx answers and uncaught exceptions); needs max_error_percent or max_percent_above_stable. */
                                    analysis?: {
                                        /** @description How often the new build is judged (default 1m). */
                                        interval?: string;
                                        /**
                                         * Format: int32
                                         * @description Requests the new build must have answered in an interval for it to be judged.
                                         */
                                        min_requests: number;
                                        /** @description Most 5xx answers and uncaught exceptions of the new build in an interval, in percent of its requests. */
                                        max_error_percent?: number;
                                        /** @description Most the new build’s error percent may exceed the stable build’s in the same interval. */
                                        max_percent_above_stable?: number;
                                        /**
                                         * Format: int32
                                         * @description Failed intervals tolerated before the rollout fails (default 0).
                                         */
                                        failure_limit?: number;
                                    };
                                    /**
                                     * @description What a failed analysis does: abort (the default: all traffic back to the stable build) or pause (wait for a promote or an abort).
                                     * @enum {string}
                                     */
                                    on_failure?: "abort" | "pause";
                                };
                                /** @description The latest rollout as the operator reports it. */
                                status?: {
                                    /**
                                     * @description Progressing: stepping; Paused: waiting for a promote (or for a pause to end); Succeeded: the new build serves all traffic; Aborted: the stable build does.
                                     * @enum {string}
                                     */
                                    phase: "Progressing" | "Paused" | "Succeeded" | "Aborted";
                                    /** @description Index of the current step (0-based); equals `steps` once all traffic is on the new build. */
                                    step: number;
                                    /** @description Steps of the policy. */
                                    steps: number;
                                    /** @description Percent of traffic the new build gets now. */
                                    weight: number;
                                    /** @description The build served before the rollout (all traffic goes back to it on an abort). */
                                    stable_build_id: string;
                                    /** @description The new build. */
                                    canary_build_id?: string;
                                    /**
                                     * Format: date-time
                                     * @description When every runtime replica first applied the current step’s weight (its pause counts from here); absent until then.
                                     */
                                    step_started_at?: string;
                                    /** @description The last judged interval’s counts per build. */
                                    analysis?: {
                                        /** @description Requests and errors (5xx answers and uncaught exceptions) one build answered. */
                                        stable: {
                                            requests: number;
                                            errors: number;
                                        };
                                        /** @description Requests and errors (5xx answers and uncaught exceptions) one build answered. */
                                        canary: {
                                            requests: number;
                                            errors: number;
                                        };
                                        /** @description Failed intervals so far in this rollout. */
                                        failures: number;
                                        /**
                                         * Format: date-time
                                         * @description When the last interval was judged.
                                         */
                                        checked_at: string;
                                    };
                                    /** @description Why the rollout is where it is (a failed analysis, a wait for a promote). */
                                    message?: string;
                                    /** @description The promote request the operator last handled. */
                                    last_handled_promote?: string;
                                    /** @description The abort request the operator last handled. */
                                    last_handled_abort?: string;
                                    /** @description The retry request the operator last handled. */
                                    last_handled_retry?: string;
                                };
                            };
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        post?: never;
        /** Remove the app’s rollout policy: later changes switch all traffic at once, and so does a rollout under way (404 when it has none) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description App id, as `POST …/apps` assigned it (a DNS label). */
                    appId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Removed. */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/apps/{appId}/rollout/promote": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Promote the rollout under way: end its current pause (or failed analysis) and move to the next step. 409 when no rollout is Progressing or Paused. 200 with the rollout once the operator has handled the request; 202 with the rollout as it stands when it has not within 10 s (the request stands) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description App id, as `POST …/apps` assigned it (a DNS label). */
                    appId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description An app’s rollout policy and its latest rollout. */
                            rollout: {
                                /** @description The policy; absent once removed (a rollout under way then switches at once). */
                                policy?: {
                                    /** @description Weights in increasing order, at most 10 steps; after the last step the new build takes all traffic. */
                                    steps: {
                                        /** @description Percent of requests (and of affinity keys) the new build gets at this step. */
                                        weight: number;
                                        /** @description How long the step holds: a duration such as 30s, 5m or 1h30m, or `manual` (until a promote). Absent: the step moves on at once (once its analysis passed, with analysis). */
                                        pause?: string;
                                    }[];
                                    /** @description What keeps a user on one build as the weight rises: `cookie` or `header`, one of the two. Absent: the cookie `cw-rollout`. */
                                    affinity?: {
                                        /** @description Cookie holding a random key, set by the runtime on the first answer during a rollout (default `cw-rollout`). */
                                        cookie?: string;
                                        /** @description Request header whose value is the key (a user id set by the app’s client, or a CDN’s); requests without it are split at random. */
                                        header?: string;
                                    };
                                    /** @description Judges the new build every interval from the runtime’s counts of requests and errors (5xx answers and uncaught exceptions); needs max_error_percent or max_percent_above_stable. */
                                    analysis?: {
                                        /** @description How often the new build is judged (default 1m). */
                                        interval?: string;
                                        /**
                                         * Format: int32
                                         * @description Requests the new build must have answered in an interval for it to be judged.
                                         */
                                        min_requests: number;
                                        /** @description Most 5xx answers and uncaught exceptions of the new build in an interval, in percent of its requests. */
                                        max_error_percent?: number;
                                        /** @description Most the new build’s error percent may exceed the stable build’s in the same interval. */
                                        max_percent_above_stable?: number;
                                        /**
                                         * Format: int32
                                         * @description Failed intervals tolerated before the rollout fails (default 0).
                                         */
                                        failure_limit?: number;
                                    };
                                    /**
                                     * @description What a failed analysis does: abort (the default: all traffic back to the stable build) or pause (wait for a promote or an abort).
                                     * @enum {string}
                                     */
                                    on_failure?: "abort" | "pause";
                                };
                                /** @description The latest rollout as the operator reports it. */
                                status?: {
                                    /**
                                     * @description Progressing: stepping; Paused: waiting for a promote (or for a pause to end); Succeeded: the new build serves all traffic; Aborted: the stable build does.
                                     * @enum {string}
                                     */
                                    phase: "Progressing" | "Paused" | "Succeeded" | "Aborted";
                                    /** @description Index of the current step (0-based); equals `steps` once all traffic is on the new build. */
                                    step: number;
                                    /** @description Steps of the policy. */
                                    steps: number;
                                    /** @description Percent of traffic the new build gets now. */
                                    weight: number;
                                    /** @description The build served before the rollout (all traffic goes back to it on an abort). */
                                    stable_build_id: string;
                                    /** @description The new build. */
                                    canary_build_id?: string;
                                    /**
                                     * Format: date-time
                                     * @description When every runtime replica first applied the current step’s weight (its pause counts from here); absent until then.
                                     */
                                    step_started_at?: string;
                                    /** @description The last judged interval’s counts per build. */
                                    analysis?: {
                                        /** @description Requests and errors (5xx answers and uncaught exceptions) one build answered. */
                                        stable: {
                                            requests: number;
                                            errors: number;
                                        };
                                        /** @description Requests and errors (5xx answers and uncaught exceptions) one build answered. */
                                        canary: {
                                            requests: number;
                                            errors: number;
                                        };
                                        /** @description Failed intervals so far in this rollout. */
                                        failures: number;
                                        /**
                                         * Format: date-time
                                         * @description When the last interval was judged.
                                         */
                                        checked_at: string;
                                    };
                                    /** @description Why the rollout is where it is (a failed analysis, a wait for a promote). */
                                    message?: string;
                                    /** @description The promote request the operator last handled. */
                                    last_handled_promote?: string;
                                    /** @description The abort request the operator last handled. */
                                    last_handled_abort?: string;
                                    /** @description The retry request the operator last handled. */
                                    last_handled_retry?: string;
                                };
                            };
                        };
                    };
                };
                /** @description Default Response */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description An app’s rollout policy and its latest rollout. */
                            rollout: {
                                /** @description The policy; absent once removed (a rollout under way then switches at once). */
                                policy?: {
                                    /** @description Weights in increasing order, at most 10 steps; after the last step the new build takes all traffic. */
                                    steps: {
                                        /** @description Percent of requests (and of affinity keys) the new build gets at this step. */
                                        weight: number;
                                        /** @description How long the step holds: a duration such as 30s, 5m or 1h30m, or `manual` (until a promote). Absent: the step moves on at once (once its analysis passed, with analysis). */
                                        pause?: string;
                                    }[];
                                    /** @description What keeps a user on one build as the weight rises: `cookie` or `header`, one of the two. Absent: the cookie `cw-rollout`. */
                                    affinity?: {
                                        /** @description Cookie holding a random key, set by the runtime on the first answer during a rollout (default `cw-rollout`). */
                                        cookie?: string;
                                        /** @description Request header whose value is the key (a user id set by the app’s client, or a CDN’s); requests without it are split at random. */
                                        header?: string;
                                    };
                                    /** @description Judges the new build every interval from the runtime’s counts of requests and errors (5xx answers and uncaught exceptions); needs max_error_percent or max_percent_above_stable. */
                                    analysis?: {
                                        /** @description How often the new build is judged (default 1m). */
                                        interval?: string;
                                        /**
                                         * Format: int32
                                         * @description Requests the new build must have answered in an interval for it to be judged.
                                         */
                                        min_requests: number;
                                        /** @description Most 5xx answers and uncaught exceptions of the new build in an interval, in percent of its requests. */
                                        max_error_percent?: number;
                                        /** @description Most the new build’s error percent may exceed the stable build’s in the same interval. */
                                        max_percent_above_stable?: number;
                                        /**
                                         * Format: int32
                                         * @description Failed intervals tolerated before the rollout fails (default 0).
                                         */
                                        failure_limit?: number;
                                    };
                                    /**
                                     * @description What a failed analysis does: abort (the default: all traffic back to the stable build) or pause (wait for a promote or an abort).
                                     * @enum {string}
                                     */
                                    on_failure?: "abort" | "pause";
                                };
                                /** @description The latest rollout as the operator reports it. */
                                status?: {
                                    /**
                                     * @description Progressing: stepping; Paused: waiting for a promote (or for a pause to end); Succeeded: the new build serves all traffic; Aborted: the stable build does.
                                     * @enum {string}
                                     */
                                    phase: "Progressing" | "Paused" | "Succeeded" | "Aborted";
                                    /** @description Index of the current step (0-based); equals `steps` once all traffic is on the new build. */
                                    step: number;
                                    /** @description Steps of the policy. */
                                    steps: number;
                                    /** @description Percent of traffic the new build gets now. */
                                    weight: number;
                                    /** @description The build served before the rollout (all traffic goes back to it on an abort). */
                                    stable_build_id: string;
                                    /** @description The new build. */
                                    canary_build_id?: string;
                                    /**
                                     * Format: date-time
                                     * @description When every runtime replica first applied the current step’s weight (its pause counts from here); absent until then.
                                     */
                                    step_started_at?: string;
                                    /** @description The last judged interval’s counts per build. */
                                    analysis?: {
                                        /** @description Requests and errors (5xx answers and uncaught exceptions) one build answered. */
                                        stable: {
                                            requests: number;
                                            errors: number;
                                        };
                                        /** @description Requests and errors (5xx answers and uncaught exceptions) one build answered. */
                                        canary: {
                                            requests: number;
                                            errors: number;
                                        };
                                        /** @description Failed intervals so far in this rollout. */
                                        failures: number;
                                        /**
                                         * Format: date-time
                                         * @description When the last interval was judged.
                                         */
                                        checked_at: string;
                                    };
                                    /** @description Why the rollout is where it is (a failed analysis, a wait for a promote). */
                                    message?: string;
                                    /** @description The promote request the operator last handled. */
                                    last_handled_promote?: string;
                                    /** @description The abort request the operator last handled. */
                                    last_handled_abort?: string;
                                    /** @description The retry request the operator last handled. */
                                    last_handled_retry?: string;
                                };
                            };
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/apps/{appId}/rollout/abort": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Abort the rollout under way: all traffic goes back to the stable build. 409 when no rollout is Progressing or Paused. 200 with the rollout once the operator has handled the request; 202 with the rollout as it stands when it has not within 10 s (the request stands) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description App id, as `POST …/apps` assigned it (a DNS label). */
                    appId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description An app’s rollout policy and its latest rollout. */
                            rollout: {
                                /** @description The policy; absent once removed (a rollout under way then switches at once). */
                                policy?: {
                                    /** @description Weights in increasing order, at most 10 steps; after the last step the new build takes all traffic. */
                                    steps: {
                                        /** @description Percent of requests (and of affinity keys) the new build gets at this step. */
                                        weight: number;
                                        /** @description How long the step holds: a duration such as 30s, 5m or 1h30m, or `manual` (until a promote). Absent: the step moves on at once (once its analysis passed, with analysis). */
                                        pause?: string;
                                    }[];
                                    /** @description What keeps a user on one build as the weight rises: `cookie` or `header`, one of the two. Absent: the cookie `cw-rollout`. */
                                    affinity?: {
                                        /** @description Cookie holding a random key, set by the runtime on the first answer during a rollout (default `cw-rollout`). */
                                        cookie?: string;
                                        /** @description Request header whose value is the key (a user id set by the app’s client, or a CDN’s); requests without it are split at random. */
                                        header?: string;
                                    };
                                    /** @description Judges the new build every interval from the runtime’s counts of requests and errors (5xx answers and uncaught exceptions); needs max_error_percent or max_percent_above_stable. */
                                    analysis?: {
                                        /** @description How often the new build is judged (default 1m). */
                                        interval?: string;
                                        /**
                                         * Format: int32
                                         * @description Requests the new build must have answered in an interval for it to be judged.
                                         */
                                        min_requests: number;
                                        /** @description Most 5xx answers and uncaught exceptions of the new build in an interval, in percent of its requests. */
                                        max_error_percent?: number;
                                        /** @description Most the new build’s error percent may exceed the stable build’s in the same interval. */
                                        max_percent_above_stable?: number;
                                        /**
                                         * Format: int32
                                         * @description Failed intervals tolerated before the rollout fails (default 0).
                                         */
                                        failure_limit?: number;
                                    };
                                    /**
                                     * @description What a failed analysis does: abort (the default: all traffic back to the stable build) or pause (wait for a promote or an abort).
                                     * @enum {string}
                                     */
                                    on_failure?: "abort" | "pause";
                                };
                                /** @description The latest rollout as the operator reports it. */
                                status?: {
                                    /**
                                     * @description Progressing: stepping; Paused: waiting for a promote (or for a pause to end); Succeeded: the new build serves all traffic; Aborted: the stable build does.
                                     * @enum {string}
                                     */
                                    phase: "Progressing" | "Paused" | "Succeeded" | "Aborted";
                                    /** @description Index of the current step (0-based); equals `steps` once all traffic is on the new build. */
                                    step: number;
                                    /** @description Steps of the policy. */
                                    steps: number;
                                    /** @description Percent of traffic the new build gets now. */
                                    weight: number;
                                    /** @description The build served before the rollout (all traffic goes back to it on an abort). */
                                    stable_build_id: string;
                                    /** @description The new build. */
                                    canary_build_id?: string;
                                    /**
                                     * Format: date-time
                                     * @description When every runtime replica first applied the current step’s weight (its pause counts from here); absent until then.
                                     */
                                    step_started_at?: string;
                                    /** @description The last judged interval’s counts per build. */
                                    analysis?: {
                                        /** @description Requests and errors (5xx answers and uncaught exceptions) one build answered. */
                                        stable: {
                                            requests: number;
                                            errors: number;
                                        };
                                        /** @description Requests and errors (5xx answers and uncaught exceptions) one build answered. */
                                        canary: {
                                            requests: number;
                                            errors: number;
                                        };
                                        /** @description Failed intervals so far in this rollout. */
                                        failures: number;
                                        /**
                                         * Format: date-time
                                         * @description When the last interval was judged.
                                         */
                                        checked_at: string;
                                    };
                                    /** @description Why the rollout is where it is (a failed analysis, a wait for a promote). */
                                    message?: string;
                                    /** @description The promote request the operator last handled. */
                                    last_handled_promote?: string;
                                    /** @description The abort request the operator last handled. */
                                    last_handled_abort?: string;
                                    /** @description The retry request the operator last handled. */
                                    last_handled_retry?: string;
                                };
                            };
                        };
                    };
                };
                /** @description Default Response */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description An app’s rollout policy and its latest rollout. */
                            rollout: {
                                /** @description The policy; absent once removed (a rollout under way then switches at once). */
                                policy?: {
                                    /** @description Weights in increasing order, at most 10 steps; after the last step the new build takes all traffic. */
                                    steps: {
                                        /** @description Percent of requests (and of affinity keys) the new build gets at this step. */
                                        weight: number;
                                        /** @description How long the step holds: a duration such as 30s, 5m or 1h30m, or `manual` (until a promote). Absent: the step moves on at once (once its analysis passed, with analysis). */
                                        pause?: string;
                                    }[];
                                    /** @description What keeps a user on one build as the weight rises: `cookie` or `header`, one of the two. Absent: the cookie `cw-rollout`. */
                                    affinity?: {
                                        /** @description Cookie holding a random key, set by the runtime on the first answer during a rollout (default `cw-rollout`). */
                                        cookie?: string;
                                        /** @description Request header whose value is the key (a user id set by the app’s client, or a CDN’s); requests without it are split at random. */
                                        header?: string;
                                    };
                                    /** @description Judges the new build every interval from the runtime’s counts of requests and errors (5xx answers and uncaught exceptions); needs max_error_percent or max_percent_above_stable. */
                                    analysis?: {
                                        /** @description How often the new build is judged (default 1m). */
                                        interval?: string;
                                        /**
                                         * Format: int32
                                         * @description Requests the new build must have answered in an interval for it to be judged.
                                         */
                                        min_requests: number;
                                        /** @description Most 5xx answers and uncaught exceptions of the new build in an interval, in percent of its requests. */
                                        max_error_percent?: number;
                                        /** @description Most the new build’s error percent may exceed the stable build’s in the same interval. */
                                        max_percent_above_stable?: number;
                                        /**
                                         * Format: int32
                                         * @description Failed intervals tolerated before the rollout fails (default 0).
                                         */
                                        failure_limit?: number;
                                    };
                                    /**
                                     * @description What a failed analysis does: abort (the default: all traffic back to the stable build) or pause (wait for a promote or an abort).
                                     * @enum {string}
                                     */
                                    on_failure?: "abort" | "pause";
                                };
                                /** @description The latest rollout as the operator reports it. */
                                status?: {
                                    /**
                                     * @description Progressing: stepping; Paused: waiting for a promote (or for a pause to end); Succeeded: the new build serves all traffic; Aborted: the stable build does.
                                     * @enum {string}
                                     */
                                    phase: "Progressing" | "Paused" | "Succeeded" | "Aborted";
                                    /** @description Index of the current step (0-based); equals `steps` once all traffic is on the new build. */
                                    step: number;
                                    /** @description Steps of the policy. */
                                    steps: number;
                                    /** @description Percent of traffic the new build gets now. */
                                    weight: number;
                                    /** @description The build served before the rollout (all traffic goes back to it on an abort). */
                                    stable_build_id: string;
                                    /** @description The new build. */
                                    canary_build_id?: string;
                                    /**
                                     * Format: date-time
                                     * @description When every runtime replica first applied the current step’s weight (its pause counts from here); absent until then.
                                     */
                                    step_started_at?: string;
                                    /** @description The last judged interval’s counts per build. */
                                    analysis?: {
                                        /** @description Requests and errors (5xx answers and uncaught exceptions) one build answered. */
                                        stable: {
                                            requests: number;
                                            errors: number;
                                        };
                                        /** @description Requests and errors (5xx answers and uncaught exceptions) one build answered. */
                                        canary: {
                                            requests: number;
                                            errors: number;
                                        };
                                        /** @description Failed intervals so far in this rollout. */
                                        failures: number;
                                        /**
                                         * Format: date-time
                                         * @description When the last interval was judged.
                                         */
                                        checked_at: string;
                                    };
                                    /** @description Why the rollout is where it is (a failed analysis, a wait for a promote). */
                                    message?: string;
                                    /** @description The promote request the operator last handled. */
                                    last_handled_promote?: string;
                                    /** @description The abort request the operator last handled. */
                                    last_handled_abort?: string;
                                    /** @description The retry request the operator last handled. */
                                    last_handled_retry?: string;
                                };
                            };
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/apps/{appId}/rollout/retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Retry an aborted rollout from its first step, with the same new build. 409 when the latest rollout is not Aborted. 200 with the rollout once the operator has handled the request; 202 with the rollout as it stands when it has not within 10 s (the request stands) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description App id, as `POST …/apps` assigned it (a DNS label). */
                    appId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description An app’s rollout policy and its latest rollout. */
                            rollout: {
                                /** @description The policy; absent once removed (a rollout under way then switches at once). */
                                policy?: {
                                    /** @description Weights in increasing order, at most 10 steps; after the last step the new build takes all traffic. */
                                    steps: {
                                        /** @description Percent of requests (and of affinity keys) the new build gets at this step. */
                                        weight: number;
                                        /** @description How long the step holds: a duration such as 30s, 5m or 1h30m, or `manual` (until a promote). Absent: the step moves on at once (once its analysis passed, with analysis). */
                                        pause?: string;
                                    }[];
                                    /** @description What keeps a user on one build as the weight rises: `cookie` or `header`, one of the two. Absent: the cookie `cw-rollout`. */
                                    affinity?: {
                                        /** @description Cookie holding a random key, set by the runtime on the first answer during a rollout (default `cw-rollout`). */
                                        cookie?: string;
                                        /** @description Request header whose value is the key (a user id set by the app’s client, or a CDN’s); requests without it are split at random. */
                                        header?: string;
                                    };
                                    /** @description Judges the new build every interval from the runtime’s counts of requests and errors (5xx answers and uncaught exceptions); needs max_error_percent or max_percent_above_stable. */
                                    analysis?: {
                                        /** @description How often the new build is judged (default 1m). */
                                        interval?: string;
                                        /**
                                         * Format: int32
                                         * @description Requests the new build must have answered in an interval for it to be judged.
                                         */
                                        min_requests: number;
                                        /** @description Most 5xx answers and uncaught exceptions of the new build in an interval, in percent of its requests. */
                                        max_error_percent?: number;
                                        /** @description Most the new build’s error percent may exceed the stable build’s in the same interval. */
                                        max_percent_above_stable?: number;
                                        /**
                                         * Format: int32
                                         * @description Failed intervals tolerated before the rollout fails (default 0).
                                         */
                                        failure_limit?: number;
                                    };
                                    /**
                                     * @description What a failed analysis does: abort (the default: all traffic back to the stable build) or pause (wait for a promote or an abort).
                                     * @enum {string}
                                     */
                                    on_failure?: "abort" | "pause";
                                };
                                /** @description The latest rollout as the operator reports it. */
                                status?: {
                                    /**
                                     * @description Progressing: stepping; Paused: waiting for a promote (or for a pause to end); Succeeded: the new build serves all traffic; Aborted: the stable build does.
                                     * @enum {string}
                                     */
                                    phase: "Progressing" | "Paused" | "Succeeded" | "Aborted";
                                    /** @description Index of the current step (0-based); equals `steps` once all traffic is on the new build. */
                                    step: number;
                                    /** @description Steps of the policy. */
                                    steps: number;
                                    /** @description Percent of traffic the new build gets now. */
                                    weight: number;
                                    /** @description The build served before the rollout (all traffic goes back to it on an abort). */
                                    stable_build_id: string;
                                    /** @description The new build. */
                                    canary_build_id?: string;
                                    /**
                                     * Format: date-time
                                     * @description When every runtime replica first applied the current step’s weight (its pause counts from here); absent until then.
                                     */
                                    step_started_at?: string;
                                    /** @description The last judged interval’s counts per build. */
                                    analysis?: {
                                        /** @description Requests and errors (5xx answers and uncaught exceptions) one build answered. */
                                        stable: {
                                            requests: number;
                                            errors: number;
                                        };
                                        /** @description Requests and errors (5xx answers and uncaught exceptions) one build answered. */
                                        canary: {
                                            requests: number;
                                            errors: number;
                                        };
                                        /** @description Failed intervals so far in this rollout. */
                                        failures: number;
                                        /**
                                         * Format: date-time
                                         * @description When the last interval was judged.
                                         */
                                        checked_at: string;
                                    };
                                    /** @description Why the rollout is where it is (a failed analysis, a wait for a promote). */
                                    message?: string;
                                    /** @description The promote request the operator last handled. */
                                    last_handled_promote?: string;
                                    /** @description The abort request the operator last handled. */
                                    last_handled_abort?: string;
                                    /** @description The retry request the operator last handled. */
                                    last_handled_retry?: string;
                                };
                            };
                        };
                    };
                };
                /** @description Default Response */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description An app’s rollout policy and its latest rollout. */
                            rollout: {
                                /** @description The policy; absent once removed (a rollout under way then switches at once). */
                                policy?: {
                                    /** @description Weights in increasing order, at most 10 steps; after the last step the new build takes all traffic. */
                                    steps: {
                                        /** @description Percent of requests (and of affinity keys) the new build gets at this step. */
                                        weight: number;
                                        /** @description How long the step holds: a duration such as 30s, 5m or 1h30m, or `manual` (until a promote). Absent: the step moves on at once (once its analysis passed, with analysis). */
                                        pause?: string;
                                    }[];
                                    /** @description What keeps a user on one build as the weight rises: `cookie` or `header`, one of the two. Absent: the cookie `cw-rollout`. */
                                    affinity?: {
                                        /** @description Cookie holding a random key, set by the runtime on the first answer during a rollout (default `cw-rollout`). */
                                        cookie?: string;
                                        /** @description Request header whose value is the key (a user id set by the app’s client, or a CDN’s); requests without it are split at random. */
                                        header?: string;
                                    };
                                    /** @description Judges the new build every interval from the runtime’s counts of requests and errors (5xx answers and uncaught exceptions); needs max_error_percent or max_percent_above_stable. */
                                    analysis?: {
                                        /** @description How often the new build is judged (default 1m). */
                                        interval?: string;
                                        /**
                                         * Format: int32
                                         * @description Requests the new build must have answered in an interval for it to be judged.
                                         */
                                        min_requests: number;
                                        /** @description Most 5xx answers and uncaught exceptions of the new build in an interval, in percent of its requests. */
                                        max_error_percent?: number;
                                        /** @description Most the new build’s error percent may exceed the stable build’s in the same interval. */
                                        max_percent_above_stable?: number;
                                        /**
                                         * Format: int32
                                         * @description Failed intervals tolerated before the rollout fails (default 0).
                                         */
                                        failure_limit?: number;
                                    };
                                    /**
                                     * @description What a failed analysis does: abort (the default: all traffic back to the stable build) or pause (wait for a promote or an abort).
                                     * @enum {string}
                                     */
                                    on_failure?: "abort" | "pause";
                                };
                                /** @description The latest rollout as the operator reports it. */
                                status?: {
                                    /**
                                     * @description Progressing: stepping; Paused: waiting for a promote (or for a pause to end); Succeeded: the new build serves all traffic; Aborted: the stable build does.
                                     * @enum {string}
                                     */
                                    phase: "Progressing" | "Paused" | "Succeeded" | "Aborted";
                                    /** @description Index of the current step (0-based); equals `steps` once all traffic is on the new build. */
                                    step: number;
                                    /** @description Steps of the policy. */
                                    steps: number;
                                    /** @description Percent of traffic the new build gets now. */
                                    weight: number;
                                    /** @description The build served before the rollout (all traffic goes back to it on an abort). */
                                    stable_build_id: string;
                                    /** @description The new build. */
                                    canary_build_id?: string;
                                    /**
                                     * Format: date-time
                                     * @description When every runtime replica first applied the current step’s weight (its pause counts from here); absent until then.
                                     */
                                    step_started_at?: string;
                                    /** @description The last judged interval’s counts per build. */
                                    analysis?: {
                                        /** @description Requests and errors (5xx answers and uncaught exceptions) one build answered. */
                                        stable: {
                                            requests: number;
                                            errors: number;
                                        };
                                        /** @description Requests and errors (5xx answers and uncaught exceptions) one build answered. */
                                        canary: {
                                            requests: number;
                                            errors: number;
                                        };
                                        /** @description Failed intervals so far in this rollout. */
                                        failures: number;
                                        /**
                                         * Format: date-time
                                         * @description When the last interval was judged.
                                         */
                                        checked_at: string;
                                    };
                                    /** @description Why the rollout is where it is (a failed analysis, a wait for a promote). */
                                    message?: string;
                                    /** @description The promote request the operator last handled. */
                                    last_handled_promote?: string;
                                    /** @description The abort request the operator last handled. */
                                    last_handled_abort?: string;
                                    /** @description The retry request the operator last handled. */
                                    last_handled_retry?: string;
                                };
                            };
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/apps/{appId}/source": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The app’s repository connection: its settings, what production and each preview serve, and its state (404 when not connected) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description App id, as `POST …/apps` assigned it (a DNS label). */
                    appId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description A repository connected to an app: its settings and what is deployed from it. */
                            source: {
                                /** @description App id, as `POST …/apps` assigned it (a DNS label). */
                                app_id: string;
                                /** @description `owner/name`. */
                                repository: string;
                                /** @description The branch deployed to the app. */
                                production_branch: string;
                                /** @description Patterns of the branches that get previews (`["*"]`: every branch; empty: none). */
                                preview_branches: string[];
                                /** @description Where the app lives in the repository; absent: its root. */
                                root_directory?: string;
                                /** @description The build command; absent: nothing is built, the output directory is packed as `cw deploy` packs one. */
                                build_command?: string;
                                /** @description What is packed, relative to the root directory; absent: the root directory. */
                                output_directory?: string;
                                /** @description Plain variables of builds per context (and of the preview apps), over the app’s own; shown only to a token with `env:read`. */
                                environment?: {
                                    /** @description Plain variables, by name. */
                                    production: {
                                        [key: string]: string;
                                    };
                                    /** @description Plain variables, by name. */
                                    preview: {
                                        [key: string]: string;
                                    };
                                };
                                /**
                                 * @description none (the default): preview apps get none of the app’s linked databases. fork: each preview gets its own copy of every database the app links (a point-in-time restore taken when the preview is created), linked under the same variables; a plain variable whose value is such a database’s URL gets the copy’s URL. The copies go with the preview.
                                 * @enum {string}
                                 */
                                preview_databases: "none" | "fork";
                                /**
                                 * @description ready: the production branch’s head is built and deployed; failed: see reason and message (the repository is missing or unreadable, a build or its deploy failed); pending: the platform is at work, or the production branch has no commit yet (BranchNotFound).
                                 * @enum {string}
                                 */
                                state: "pending" | "ready" | "failed";
                                /** @description In one word: RepositoryNotFound, RepositoryUnavailable, BranchNotFound, Building, BuildFailed, BuildCancelled, DeployFailed, Deployed, … */
                                reason?: string;
                                /** @description What the platform found, in one line. */
                                message?: string;
                                /** @description One branch and what its app serves. */
                                production?: {
                                    /** @description The branch. */
                                    branch: string;
                                    /** @description The app it deploys to: the app itself for production, a preview app (`<branch-slug>--<app>`) otherwise. */
                                    app_id: string;
                                    /** @description The app’s default host. */
                                    host?: string;
                                    /** @description The branch’s head as last read from the repository. */
                                    commit?: string;
                                    /** @description The source build of that commit. */
                                    source_build_id?: string;
                                    /** @description The commit the app serves. */
                                    deployed_commit?: string;
                                    /** @description The build (as `GET …/builds` lists it) the app serves from it. */
                                    deployed_build_id?: string;
                                    /** @description When it was deployed. */
                                    deployed_at?: string;
                                    /** @description Why the head is not deployed, when it is not (its build failed, the deploy was refused), or why a preview lacks a copy of a database. */
                                    message?: string;
                                    /** @description A preview’s own copies of the app’s databases (preview_databases fork), by database id. */
                                    databases?: string[];
                                };
                                /** @description The preview branches and their apps. */
                                previews: {
                                    /** @description The branch. */
                                    branch: string;
                                    /** @description The app it deploys to: the app itself for production, a preview app (`<branch-slug>--<app>`) otherwise. */
                                    app_id: string;
                                    /** @description The app’s default host. */
                                    host?: string;
                                    /** @description The branch’s head as last read from the repository. */
                                    commit?: string;
                                    /** @description The source build of that commit. */
                                    source_build_id?: string;
                                    /** @description The commit the app serves. */
                                    deployed_commit?: string;
                                    /** @description The build (as `GET …/builds` lists it) the app serves from it. */
                                    deployed_build_id?: string;
                                    /** @description When it was deployed. */
                                    deployed_at?: string;
                                    /** @description Why the head is not deployed, when it is not (its build failed, the deploy was refused), or why a preview lacks a copy of a database. */
                                    message?: string;
                                    /** @description A preview’s own copies of the app’s databases (preview_databases fork), by database id. */
                                    databases?: string[];
                                }[];
                                /** @description When the app was connected. */
                                created_at: string;
                            };
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        /**
         * Connect the app to one of the project’s repositories (push to deploy), or replace the connection’s settings
         * @description Every push to the production branch is built and deployed to the app; each other branch matching `preview_branches` gets a preview app `<branch-slug>--<app>` of its own (docs/push-to-deploy.md). Needs `apps:write`, `repositories:read`, `deploys:write` (every push to production is deployed) and `env:read` (every build runs with the app’s variables), and `env:write` to set or change `environment` (its values may hold credentials), `databases:write` to turn `preview_databases` to `fork`. 201 when connected, 200 when the settings were replaced (PUT: what the body leaves out is reset to its default). 404: no such app, or the project has no such repository (a project’s repositories are `<project id>/<name>`: another project’s is not found, whatever names it). 409: the app is a preview app, or its connection is being removed.
         */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description App id, as `POST …/apps` assigned it (a DNS label). */
                    appId: string;
                };
                cookie?: never;
            };
            /** @description The connection; what is left out gets its default (PUT replaces the settings whole). */
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The repository on the platform’s repository service, `owner/name`: one of this project’s, so `<project id>/<name>` (a Repository in its namespace). */
                        repository: string;
                        /** @description Each push to this branch is built and deployed to the app. Default main. */
                        production_branch?: string;
                        /** @description Patterns of the branches (other than the production branch) that get a preview app of their own; `*` matches any characters, `/` included. At most 20. Absent: every branch; empty: none. */
                        preview_branches?: string[];
                        /** @description Where the app lives inside the repository. Absent: the repository root. */
                        root_directory?: string;
                        /** @description Shell command run in the root directory, for example `npm ci && npm run build`. Absent: nothing is built; the output directory is packed as `cw deploy` packs a directory. */
                        build_command?: string;
                        /** @description What is packed after the command, relative to the root directory (a worker directory or a Next.js app built with OpenNext). Absent: the root directory. */
                        output_directory?: string;
                        /** @description Plain environment per context, on top of the app’s (no secrets: the API shows it). */
                        environment?: {
                            /** @description Variables of production builds (the running app keeps its own environment). */
                            production?: {
                                [key: string]: string;
                            };
                            /** @description Variables of preview builds and of the preview apps, over the app’s own environment. */
                            preview?: {
                                [key: string]: string;
                            };
                        };
                        /**
                         * @description none (the default): preview apps get none of the app’s linked databases. fork: each preview gets its own copy of every database the app links (a point-in-time restore taken when the preview is created), linked under the same variables; a plain variable whose value is such a database’s URL gets the copy’s URL. The copies go with the preview.
                         * @enum {string}
                         */
                        preview_databases?: "none" | "fork";
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description A repository connected to an app: its settings and what is deployed from it. */
                            source: {
                                /** @description App id, as `POST …/apps` assigned it (a DNS label). */
                                app_id: string;
                                /** @description `owner/name`. */
                                repository: string;
                                /** @description The branch deployed to the app. */
                                production_branch: string;
                                /** @description Patterns of the branches that get previews (`["*"]`: every branch; empty: none). */
                                preview_branches: string[];
                                /** @description Where the app lives in the repository; absent: its root. */
                                root_directory?: string;
                                /** @description The build command; absent: nothing is built, the output directory is packed as `cw deploy` packs one. */
                                build_command?: string;
                                /** @description What is packed, relative to the root directory; absent: the root directory. */
                                output_directory?: string;
                                /** @description Plain variables of builds per context (and of the preview apps), over the app’s own; shown only to a token with `env:read`. */
                                environment?: {
                                    /** @description Plain variables, by name. */
                                    production: {
                                        [key: string]: string;
                                    };
                                    /** @description Plain variables, by name. */
                                    preview: {
                                        [key: string]: string;
                                    };
                                };
                                /**
                                 * @description none (the default): preview apps get none of the app’s linked databases. fork: each preview gets its own copy of every database the app links (a point-in-time restore taken when the preview is created), linked under the same variables; a plain variable whose value is such a database’s URL gets the copy’s URL. The copies go with the preview.
                                 * @enum {string}
                                 */
                                preview_databases: "none" | "fork";
                                /**
                                 * @description ready: the production branch’s head is built and deployed; failed: see reason and message (the repository is missing or unreadable, a build or its deploy failed); pending: the platform is at work, or the production branch has no commit yet (BranchNotFound).
                                 * @enum {string}
                                 */
                                state: "pending" | "ready" | "failed";
                                /** @description In one word: RepositoryNotFound, RepositoryUnavailable, BranchNotFound, Building, BuildFailed, BuildCancelled, DeployFailed, Deployed, … */
                                reason?: string;
                                /** @description What the platform found, in one line. */
                                message?: string;
                                /** @description One branch and what its app serves. */
                                production?: {
                                    /** @description The branch. */
                                    branch: string;
                                    /** @description The app it deploys to: the app itself for production, a preview app (`<branch-slug>--<app>`) otherwise. */
                                    app_id: string;
                                    /** @description The app’s default host. */
                                    host?: string;
                                    /** @description The branch’s head as last read from the repository. */
                                    commit?: string;
                                    /** @description The source build of that commit. */
                                    source_build_id?: string;
                                    /** @description The commit the app serves. */
                                    deployed_commit?: string;
                                    /** @description The build (as `GET …/builds` lists it) the app serves from it. */
                                    deployed_build_id?: string;
                                    /** @description When it was deployed. */
                                    deployed_at?: string;
                                    /** @description Why the head is not deployed, when it is not (its build failed, the deploy was refused), or why a preview lacks a copy of a database. */
                                    message?: string;
                                    /** @description A preview’s own copies of the app’s databases (preview_databases fork), by database id. */
                                    databases?: string[];
                                };
                                /** @description The preview branches and their apps. */
                                previews: {
                                    /** @description The branch. */
                                    branch: string;
                                    /** @description The app it deploys to: the app itself for production, a preview app (`<branch-slug>--<app>`) otherwise. */
                                    app_id: string;
                                    /** @description The app’s default host. */
                                    host?: string;
                                    /** @description The branch’s head as last read from the repository. */
                                    commit?: string;
                                    /** @description The source build of that commit. */
                                    source_build_id?: string;
                                    /** @description The commit the app serves. */
                                    deployed_commit?: string;
                                    /** @description The build (as `GET …/builds` lists it) the app serves from it. */
                                    deployed_build_id?: string;
                                    /** @description When it was deployed. */
                                    deployed_at?: string;
                                    /** @description Why the head is not deployed, when it is not (its build failed, the deploy was refused), or why a preview lacks a copy of a database. */
                                    message?: string;
                                    /** @description A preview’s own copies of the app’s databases (preview_databases fork), by database id. */
                                    databases?: string[];
                                }[];
                                /** @description When the app was connected. */
                                created_at: string;
                            };
                        };
                    };
                };
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description A repository connected to an app: its settings and what is deployed from it. */
                            source: {
                                /** @description App id, as `POST …/apps` assigned it (a DNS label). */
                                app_id: string;
                                /** @description `owner/name`. */
                                repository: string;
                                /** @description The branch deployed to the app. */
                                production_branch: string;
                                /** @description Patterns of the branches that get previews (`["*"]`: every branch; empty: none). */
                                preview_branches: string[];
                                /** @description Where the app lives in the repository; absent: its root. */
                                root_directory?: string;
                                /** @description The build command; absent: nothing is built, the output directory is packed as `cw deploy` packs one. */
                                build_command?: string;
                                /** @description What is packed, relative to the root directory; absent: the root directory. */
                                output_directory?: string;
                                /** @description Plain variables of builds per context (and of the preview apps), over the app’s own; shown only to a token with `env:read`. */
                                environment?: {
                                    /** @description Plain variables, by name. */
                                    production: {
                                        [key: string]: string;
                                    };
                                    /** @description Plain variables, by name. */
                                    preview: {
                                        [key: string]: string;
                                    };
                                };
                                /**
                                 * @description none (the default): preview apps get none of the app’s linked databases. fork: each preview gets its own copy of every database the app links (a point-in-time restore taken when the preview is created), linked under the same variables; a plain variable whose value is such a database’s URL gets the copy’s URL. The copies go with the preview.
                                 * @enum {string}
                                 */
                                preview_databases: "none" | "fork";
                                /**
                                 * @description ready: the production branch’s head is built and deployed; failed: see reason and message (the repository is missing or unreadable, a build or its deploy failed); pending: the platform is at work, or the production branch has no commit yet (BranchNotFound).
                                 * @enum {string}
                                 */
                                state: "pending" | "ready" | "failed";
                                /** @description In one word: RepositoryNotFound, RepositoryUnavailable, BranchNotFound, Building, BuildFailed, BuildCancelled, DeployFailed, Deployed, … */
                                reason?: string;
                                /** @description What the platform found, in one line. */
                                message?: string;
                                /** @description One branch and what its app serves. */
                                production?: {
                                    /** @description The branch. */
                                    branch: string;
                                    /** @description The app it deploys to: the app itself for production, a preview app (`<branch-slug>--<app>`) otherwise. */
                                    app_id: string;
                                    /** @description The app’s default host. */
                                    host?: string;
                                    /** @description The branch’s head as last read from the repository. */
                                    commit?: string;
                                    /** @description The source build of that commit. */
                                    source_build_id?: string;
                                    /** @description The commit the app serves. */
                                    deployed_commit?: string;
                                    /** @description The build (as `GET …/builds` lists it) the app serves from it. */
                                    deployed_build_id?: string;
                                    /** @description When it was deployed. */
                                    deployed_at?: string;
                                    /** @description Why the head is not deployed, when it is not (its build failed, the deploy was refused), or why a preview lacks a copy of a database. */
                                    message?: string;
                                    /** @description A preview’s own copies of the app’s databases (preview_databases fork), by database id. */
                                    databases?: string[];
                                };
                                /** @description The preview branches and their apps. */
                                previews: {
                                    /** @description The branch. */
                                    branch: string;
                                    /** @description The app it deploys to: the app itself for production, a preview app (`<branch-slug>--<app>`) otherwise. */
                                    app_id: string;
                                    /** @description The app’s default host. */
                                    host?: string;
                                    /** @description The branch’s head as last read from the repository. */
                                    commit?: string;
                                    /** @description The source build of that commit. */
                                    source_build_id?: string;
                                    /** @description The commit the app serves. */
                                    deployed_commit?: string;
                                    /** @description The build (as `GET …/builds` lists it) the app serves from it. */
                                    deployed_build_id?: string;
                                    /** @description When it was deployed. */
                                    deployed_at?: string;
                                    /** @description Why the head is not deployed, when it is not (its build failed, the deploy was refused), or why a preview lacks a copy of a database. */
                                    message?: string;
                                    /** @description A preview’s own copies of the app’s databases (preview_databases fork), by database id. */
                                    databases?: string[];
                                }[];
                                /** @description When the app was connected. */
                                created_at: string;
                            };
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        post?: never;
        /** Disconnect the app from its repository: pushes no longer deploy, the preview apps go; the app keeps serving its build (404 when not connected) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description App id, as `POST …/apps` assigned it (a DNS label). */
                    appId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Disconnected. */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/apps/{appId}/source-builds": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the builds made from the app’s repository (the app’s and its previews’), newest first
         * @description One build per pushed commit of each deployed branch; the platform keeps the 20 newest per app (docs/push-to-deploy.md).
         */
        get: {
            parameters: {
                query?: {
                    /** @description Only the builds of this branch. */
                    branch?: string;
                    /** @description At most this many (default 20). */
                    limit?: number;
                    /** @description The `next` of the previous page: continue after it. */
                    cursor?: string;
                };
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description App id, as `POST …/apps` assigned it (a DNS label). */
                    appId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Newest first. */
                            builds: {
                                /** @description Its id (`<app>-<first 12 hex digits of the commit>`). */
                                source_build_id: string;
                                /** @description The app it deploys to (the app, or one of its previews). */
                                app_id: string;
                                /**
                                 * @description production or preview.
                                 * @enum {string}
                                 */
                                context: "production" | "preview";
                                /** @description `owner/name`. */
                                repository: string;
                                /** @description The branch whose head the commit was. */
                                branch: string;
                                /** @description The commit built. */
                                commit: string;
                                /**
                                 * @description queued, building, succeeded (stored as a build and deployed), failed (reason and message say why) or cancelled (by a newer push, or a user).
                                 * @enum {string}
                                 */
                                state: "queued" | "building" | "succeeded" | "failed" | "cancelled";
                                /** @description A cancel was asked for; state says whether it took effect yet. */
                                cancel_requested: boolean;
                                /** @description CamelCase: CommandFailed, DeadlineExceeded, ResourceLimitExceeded, OutputInvalid, SourceUnavailable, Superseded, … */
                                reason?: string;
                                /** @description One line: what happened, and for a failure why. */
                                message?: string;
                                /** @description The first line of the commit message. */
                                commit_message?: string;
                                /** @description The commit’s author. */
                                author?: string;
                                /** @description When the platform saw the commit. */
                                created_at: string;
                                /** @description When the build started. */
                                started_at?: string;
                                /** @description When it ended. */
                                finished_at?: string;
                                /** @description The build (as `GET …/builds` lists it) it was stored as. */
                                build_id?: string;
                            }[];
                            /** @description Pass as `cursor` for the next page; null at the end. */
                            next: string | null;
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/apps/{appId}/source-builds/{build}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a build made from the app’s repository (one of its previews’ too) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description App id, as `POST …/apps` assigned it (a DNS label). */
                    appId: string;
                    /** @description Source build id: `<app>-<first 12 hex digits of the commit>`. */
                    build: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description One build of an app from one commit of its repository. */
                            build: {
                                /** @description Its id (`<app>-<first 12 hex digits of the commit>`). */
                                source_build_id: string;
                                /** @description The app it deploys to (the app, or one of its previews). */
                                app_id: string;
                                /**
                                 * @description production or preview.
                                 * @enum {string}
                                 */
                                context: "production" | "preview";
                                /** @description `owner/name`. */
                                repository: string;
                                /** @description The branch whose head the commit was. */
                                branch: string;
                                /** @description The commit built. */
                                commit: string;
                                /**
                                 * @description queued, building, succeeded (stored as a build and deployed), failed (reason and message say why) or cancelled (by a newer push, or a user).
                                 * @enum {string}
                                 */
                                state: "queued" | "building" | "succeeded" | "failed" | "cancelled";
                                /** @description A cancel was asked for; state says whether it took effect yet. */
                                cancel_requested: boolean;
                                /** @description CamelCase: CommandFailed, DeadlineExceeded, ResourceLimitExceeded, OutputInvalid, SourceUnavailable, Superseded, … */
                                reason?: string;
                                /** @description One line: what happened, and for a failure why. */
                                message?: string;
                                /** @description The first line of the commit message. */
                                commit_message?: string;
                                /** @description The commit’s author. */
                                author?: string;
                                /** @description When the platform saw the commit. */
                                created_at: string;
                                /** @description When the build started. */
                                started_at?: string;
                                /** @description When it ended. */
                                finished_at?: string;
                                /** @description The build (as `GET …/builds` lists it) it was stored as. */
                                build_id?: string;
                            };
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/apps/{appId}/source-builds/{build}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a queued or running build: a queued one never starts, a running one is stopped and the app keeps what it serves
         * @description Answers the build with `cancel_requested: true`; its `state` becomes `cancelled` once the platform has stopped it. Repeatable. 409 when the build has already finished.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description App id, as `POST …/apps` assigned it (a DNS label). */
                    appId: string;
                    /** @description Source build id: `<app>-<first 12 hex digits of the commit>`. */
                    build: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description One build of an app from one commit of its repository. */
                            build: {
                                /** @description Its id (`<app>-<first 12 hex digits of the commit>`). */
                                source_build_id: string;
                                /** @description The app it deploys to (the app, or one of its previews). */
                                app_id: string;
                                /**
                                 * @description production or preview.
                                 * @enum {string}
                                 */
                                context: "production" | "preview";
                                /** @description `owner/name`. */
                                repository: string;
                                /** @description The branch whose head the commit was. */
                                branch: string;
                                /** @description The commit built. */
                                commit: string;
                                /**
                                 * @description queued, building, succeeded (stored as a build and deployed), failed (reason and message say why) or cancelled (by a newer push, or a user).
                                 * @enum {string}
                                 */
                                state: "queued" | "building" | "succeeded" | "failed" | "cancelled";
                                /** @description A cancel was asked for; state says whether it took effect yet. */
                                cancel_requested: boolean;
                                /** @description CamelCase: CommandFailed, DeadlineExceeded, ResourceLimitExceeded, OutputInvalid, SourceUnavailable, Superseded, … */
                                reason?: string;
                                /** @description One line: what happened, and for a failure why. */
                                message?: string;
                                /** @description The first line of the commit message. */
                                commit_message?: string;
                                /** @description The commit’s author. */
                                author?: string;
                                /** @description When the platform saw the commit. */
                                created_at: string;
                                /** @description When the build started. */
                                started_at?: string;
                                /** @description When it ended. */
                                finished_at?: string;
                                /** @description The build (as `GET …/builds` lists it) it was stored as. */
                                build_id?: string;
                            };
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/apps/{appId}/source-builds/{build}/logs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A build’s log: the whole log so far as text/plain, or followed live as server-sent events (`Accept: text/event-stream` or `?follow=true`) until the build ends
         * @description A user follows at most 8 build logs at once (429 past that), the API process 200 (503): by default, the bounds of app log streams (counted apart from them).
         */
        get: {
            parameters: {
                query?: {
                    /** @description `true`: a server-sent event stream that follows the log until the build ends (as `Accept: text/event-stream` asks). */
                    follow?: "true" | "false";
                };
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description App id, as `POST …/apps` assigned it (a DNS label). */
                    appId: string;
                    /** @description Source build id: `<app>-<first 12 hex digits of the commit>`. */
                    build: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The log, or its event stream. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/plain": string;
                        "text/event-stream": string;
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description A dependency is unavailable; retry after `Retry-After` seconds. */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/domains": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the project’s domains by name, a page at a time (an empty list when there are none) */
        get: {
            parameters: {
                query?: {
                    /** @description Items per page (default 100, at most 1000). */
                    limit?: number;
                    /** @description The `next` of the previous page, as it was (opaque): the page continues after the item it names. */
                    cursor?: string;
                };
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            domains: {
                                /** @description Domain name. */
                                domain: string;
                                /**
                                 * @description Always zone_delegated.
                                 * @enum {string}
                                 */
                                dns_mode: "zone_delegated";
                                /**
                                 * @description pending_delegation until the parent zone delegates to the nameservers (also while its zone is being created: status_reason Creating, no nameservers yet), then managed (records can be written); deleted only in the answer to DELETE.
                                 * @enum {string}
                                 */
                                status: "pending_delegation" | "managed" | "deleted";
                                /** @description Hosted zone at the DNS provider (an infrastructure id, for debugging); empty until the zone exists. */
                                hosted_zone_id: string;
                                /** @description Nameservers to set at the registrar. */
                                nameservers: string[];
                                /** @description Why the domain is or is not managed, as a CamelCase reason (for example PendingDelegation, NameserversMismatch, Managed). */
                                status_reason: string;
                                /** @description The same in words, with what to do next. */
                                status_message: string;
                                /**
                                 * Format: date-time
                                 * @description Last delegation check.
                                 */
                                last_checked_at?: string;
                                /**
                                 * Format: date-time
                                 * @description When the domain was added.
                                 */
                                created_at: string;
                                /**
                                 * Format: date-time
                                 * @description When the domain was deleted.
                                 */
                                deleted_at?: string;
                                /** @description The TLS certificate the platform obtains and renews for the name and serves by SNI: for a hostname once it is active, for a project domain (the domain and *.domain) once it is managed. */
                                tls: {
                                    /**
                                     * @description none: no certificate exists for it (this install issues none, or none is ordered yet: a host name gets one once active, a domain once managed). pending: waiting to be ordered. issuing: an order is in progress. issued: a valid certificate is served. renewing: served, and its replacement is being ordered. failed: no certificate is served and the last order failed (last_error says why, next_attempt_at when the platform tries again).
                                     * @enum {string}
                                     */
                                    status: "none" | "pending" | "issuing" | "issued" | "renewing" | "failed";
                                    /**
                                     * Format: date-time
                                     * @description When the certificate served expires; null while none is served.
                                     */
                                    not_after: string | null;
                                    /** @description The certificate authority that issued the certificate served; null while none is served. */
                                    issuer: string | null;
                                    /** @description The last failed order, kept until a certificate is issued (also while a renewal keeps failing and the old certificate is still served); null otherwise. */
                                    last_error: {
                                        /** @description CamelCase: CAAForbidden, DnsNotPointingHere, RateLimited, ChallengeFailed, CAUnavailable, NameNotHeld, … */
                                        reason: string;
                                        /** @description What went wrong and what to do. */
                                        message: string;
                                        /**
                                         * Format: date-time
                                         * @description When the order failed.
                                         */
                                        at: string;
                                    } | null;
                                    /**
                                     * Format: date-time
                                     * @description After a failed order: when the platform places the next one (it backs off, doubling); null otherwise.
                                     */
                                    next_attempt_at: string | null;
                                };
                            }[];
                            /** @description An opaque cursor: pass it as `cursor` for the next page; null on the last page. */
                            next: string | null;
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /** Add a domain: its hosted zone is created and its nameservers answered (201, status pending_delegation); 202 with the domain as it stands (pending_delegation, status_reason Creating, no nameservers yet) and a Location to GET it when the zone has not been created within 10 s. 400 for a name that cannot be a project domain (the platform’s base domain, names in or above it); 409 when this project has it or another project holds it by a delegation that has not lapsed for a day (a holder that never delegated it, or whose delegation lapsed, is challenged: the domain is added with a zone of its own, status_reason DomainTaken, and takes the name over once delegated to it), when it is under another project’s domain, or when the caller has 10 domains waiting for their delegation; 502/503 when the DNS provider fails (the domain stays added and the platform retries) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Domain to host, for example example.com: not a public suffix, not an IP address, at most 200 characters. */
                        domain: string;
                        /**
                         * @description zone_delegated (the only mode, and the default): the platform hosts a DNS zone and the owner delegates the domain to its nameservers.
                         * @enum {string}
                         */
                        dns_mode?: "zone_delegated";
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description A project domain. */
                            domain: {
                                /** @description Domain name. */
                                domain: string;
                                /**
                                 * @description Always zone_delegated.
                                 * @enum {string}
                                 */
                                dns_mode: "zone_delegated";
                                /**
                                 * @description pending_delegation until the parent zone delegates to the nameservers (also while its zone is being created: status_reason Creating, no nameservers yet), then managed (records can be written); deleted only in the answer to DELETE.
                                 * @enum {string}
                                 */
                                status: "pending_delegation" | "managed" | "deleted";
                                /** @description Hosted zone at the DNS provider (an infrastructure id, for debugging); empty until the zone exists. */
                                hosted_zone_id: string;
                                /** @description Nameservers to set at the registrar. */
                                nameservers: string[];
                                /** @description Why the domain is or is not managed, as a CamelCase reason (for example PendingDelegation, NameserversMismatch, Managed). */
                                status_reason: string;
                                /** @description The same in words, with what to do next. */
                                status_message: string;
                                /**
                                 * Format: date-time
                                 * @description Last delegation check.
                                 */
                                last_checked_at?: string;
                                /**
                                 * Format: date-time
                                 * @description When the domain was added.
                                 */
                                created_at: string;
                                /**
                                 * Format: date-time
                                 * @description When the domain was deleted.
                                 */
                                deleted_at?: string;
                                /** @description The TLS certificate the platform obtains and renews for the name and serves by SNI: for a hostname once it is active, for a project domain (the domain and *.domain) once it is managed. */
                                tls: {
                                    /**
                                     * @description none: no certificate exists for it (this install issues none, or none is ordered yet: a host name gets one once active, a domain once managed). pending: waiting to be ordered. issuing: an order is in progress. issued: a valid certificate is served. renewing: served, and its replacement is being ordered. failed: no certificate is served and the last order failed (last_error says why, next_attempt_at when the platform tries again).
                                     * @enum {string}
                                     */
                                    status: "none" | "pending" | "issuing" | "issued" | "renewing" | "failed";
                                    /**
                                     * Format: date-time
                                     * @description When the certificate served expires; null while none is served.
                                     */
                                    not_after: string | null;
                                    /** @description The certificate authority that issued the certificate served; null while none is served. */
                                    issuer: string | null;
                                    /** @description The last failed order, kept until a certificate is issued (also while a renewal keeps failing and the old certificate is still served); null otherwise. */
                                    last_error: {
                                        /** @description CamelCase: CAAForbidden, DnsNotPointingHere, RateLimited, ChallengeFailed, CAUnavailable, NameNotHeld, … */
                                        reason: string;
                                        /** @description What went wrong and what to do. */
                                        message: string;
                                        /**
                                         * Format: date-time
                                         * @description When the order failed.
                                         */
                                        at: string;
                                    } | null;
                                    /**
                                     * Format: date-time
                                     * @description After a failed order: when the platform places the next one (it backs off, doubling); null otherwise.
                                     */
                                    next_attempt_at: string | null;
                                };
                            };
                        };
                    };
                };
                /** @description Default Response */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description A project domain. */
                            domain: {
                                /** @description Domain name. */
                                domain: string;
                                /**
                                 * @description Always zone_delegated.
                                 * @enum {string}
                                 */
                                dns_mode: "zone_delegated";
                                /**
                                 * @description pending_delegation until the parent zone delegates to the nameservers (also while its zone is being created: status_reason Creating, no nameservers yet), then managed (records can be written); deleted only in the answer to DELETE.
                                 * @enum {string}
                                 */
                                status: "pending_delegation" | "managed" | "deleted";
                                /** @description Hosted zone at the DNS provider (an infrastructure id, for debugging); empty until the zone exists. */
                                hosted_zone_id: string;
                                /** @description Nameservers to set at the registrar. */
                                nameservers: string[];
                                /** @description Why the domain is or is not managed, as a CamelCase reason (for example PendingDelegation, NameserversMismatch, Managed). */
                                status_reason: string;
                                /** @description The same in words, with what to do next. */
                                status_message: string;
                                /**
                                 * Format: date-time
                                 * @description Last delegation check.
                                 */
                                last_checked_at?: string;
                                /**
                                 * Format: date-time
                                 * @description When the domain was added.
                                 */
                                created_at: string;
                                /**
                                 * Format: date-time
                                 * @description When the domain was deleted.
                                 */
                                deleted_at?: string;
                                /** @description The TLS certificate the platform obtains and renews for the name and serves by SNI: for a hostname once it is active, for a project domain (the domain and *.domain) once it is managed. */
                                tls: {
                                    /**
                                     * @description none: no certificate exists for it (this install issues none, or none is ordered yet: a host name gets one once active, a domain once managed). pending: waiting to be ordered. issuing: an order is in progress. issued: a valid certificate is served. renewing: served, and its replacement is being ordered. failed: no certificate is served and the last order failed (last_error says why, next_attempt_at when the platform tries again).
                                     * @enum {string}
                                     */
                                    status: "none" | "pending" | "issuing" | "issued" | "renewing" | "failed";
                                    /**
                                     * Format: date-time
                                     * @description When the certificate served expires; null while none is served.
                                     */
                                    not_after: string | null;
                                    /** @description The certificate authority that issued the certificate served; null while none is served. */
                                    issuer: string | null;
                                    /** @description The last failed order, kept until a certificate is issued (also while a renewal keeps failing and the old certificate is still served); null otherwise. */
                                    last_error: {
                                        /** @description CamelCase: CAAForbidden, DnsNotPointingHere, RateLimited, ChallengeFailed, CAUnavailable, NameNotHeld, … */
                                        reason: string;
                                        /** @description What went wrong and what to do. */
                                        message: string;
                                        /**
                                         * Format: date-time
                                         * @description When the order failed.
                                         */
                                        at: string;
                                    } | null;
                                    /**
                                     * Format: date-time
                                     * @description After a failed order: when the platform places the next one (it backs off, doubling); null otherwise.
                                     */
                                    next_attempt_at: string | null;
                                };
                            };
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Error. */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description A dependency is unavailable; retry after `Retry-After` seconds. */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/domains/{domain}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a domain */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description The project domain, for example example.com. */
                    domain: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description A project domain. */
                            domain: {
                                /** @description Domain name. */
                                domain: string;
                                /**
                                 * @description Always zone_delegated.
                                 * @enum {string}
                                 */
                                dns_mode: "zone_delegated";
                                /**
                                 * @description pending_delegation until the parent zone delegates to the nameservers (also while its zone is being created: status_reason Creating, no nameservers yet), then managed (records can be written); deleted only in the answer to DELETE.
                                 * @enum {string}
                                 */
                                status: "pending_delegation" | "managed" | "deleted";
                                /** @description Hosted zone at the DNS provider (an infrastructure id, for debugging); empty until the zone exists. */
                                hosted_zone_id: string;
                                /** @description Nameservers to set at the registrar. */
                                nameservers: string[];
                                /** @description Why the domain is or is not managed, as a CamelCase reason (for example PendingDelegation, NameserversMismatch, Managed). */
                                status_reason: string;
                                /** @description The same in words, with what to do next. */
                                status_message: string;
                                /**
                                 * Format: date-time
                                 * @description Last delegation check.
                                 */
                                last_checked_at?: string;
                                /**
                                 * Format: date-time
                                 * @description When the domain was added.
                                 */
                                created_at: string;
                                /**
                                 * Format: date-time
                                 * @description When the domain was deleted.
                                 */
                                deleted_at?: string;
                                /** @description The TLS certificate the platform obtains and renews for the name and serves by SNI: for a hostname once it is active, for a project domain (the domain and *.domain) once it is managed. */
                                tls: {
                                    /**
                                     * @description none: no certificate exists for it (this install issues none, or none is ordered yet: a host name gets one once active, a domain once managed). pending: waiting to be ordered. issuing: an order is in progress. issued: a valid certificate is served. renewing: served, and its replacement is being ordered. failed: no certificate is served and the last order failed (last_error says why, next_attempt_at when the platform tries again).
                                     * @enum {string}
                                     */
                                    status: "none" | "pending" | "issuing" | "issued" | "renewing" | "failed";
                                    /**
                                     * Format: date-time
                                     * @description When the certificate served expires; null while none is served.
                                     */
                                    not_after: string | null;
                                    /** @description The certificate authority that issued the certificate served; null while none is served. */
                                    issuer: string | null;
                                    /** @description The last failed order, kept until a certificate is issued (also while a renewal keeps failing and the old certificate is still served); null otherwise. */
                                    last_error: {
                                        /** @description CamelCase: CAAForbidden, DnsNotPointingHere, RateLimited, ChallengeFailed, CAUnavailable, NameNotHeld, … */
                                        reason: string;
                                        /** @description What went wrong and what to do. */
                                        message: string;
                                        /**
                                         * Format: date-time
                                         * @description When the order failed.
                                         */
                                        at: string;
                                    } | null;
                                    /**
                                     * Format: date-time
                                     * @description After a failed order: when the platform places the next one (it backs off, doubling); null otherwise.
                                     */
                                    next_attempt_at: string | null;
                                };
                            };
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /** Delete a domain (soft delete): its records, platform-owned ones included, and its hosted zone are deleted (200); 202 with status_reason Deleting when that has not finished within 10 s (the platform carries on). Its history is kept and the domain can be added again */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description The project domain, for example example.com. */
                    domain: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description A project domain. */
                            domain: {
                                /** @description Domain name. */
                                domain: string;
                                /**
                                 * @description Always zone_delegated.
                                 * @enum {string}
                                 */
                                dns_mode: "zone_delegated";
                                /**
                                 * @description pending_delegation until the parent zone delegates to the nameservers (also while its zone is being created: status_reason Creating, no nameservers yet), then managed (records can be written); deleted only in the answer to DELETE.
                                 * @enum {string}
                                 */
                                status: "pending_delegation" | "managed" | "deleted";
                                /** @description Hosted zone at the DNS provider (an infrastructure id, for debugging); empty until the zone exists. */
                                hosted_zone_id: string;
                                /** @description Nameservers to set at the registrar. */
                                nameservers: string[];
                                /** @description Why the domain is or is not managed, as a CamelCase reason (for example PendingDelegation, NameserversMismatch, Managed). */
                                status_reason: string;
                                /** @description The same in words, with what to do next. */
                                status_message: string;
                                /**
                                 * Format: date-time
                                 * @description Last delegation check.
                                 */
                                last_checked_at?: string;
                                /**
                                 * Format: date-time
                                 * @description When the domain was added.
                                 */
                                created_at: string;
                                /**
                                 * Format: date-time
                                 * @description When the domain was deleted.
                                 */
                                deleted_at?: string;
                                /** @description The TLS certificate the platform obtains and renews for the name and serves by SNI: for a hostname once it is active, for a project domain (the domain and *.domain) once it is managed. */
                                tls: {
                                    /**
                                     * @description none: no certificate exists for it (this install issues none, or none is ordered yet: a host name gets one once active, a domain once managed). pending: waiting to be ordered. issuing: an order is in progress. issued: a valid certificate is served. renewing: served, and its replacement is being ordered. failed: no certificate is served and the last order failed (last_error says why, next_attempt_at when the platform tries again).
                                     * @enum {string}
                                     */
                                    status: "none" | "pending" | "issuing" | "issued" | "renewing" | "failed";
                                    /**
                                     * Format: date-time
                                     * @description When the certificate served expires; null while none is served.
                                     */
                                    not_after: string | null;
                                    /** @description The certificate authority that issued the certificate served; null while none is served. */
                                    issuer: string | null;
                                    /** @description The last failed order, kept until a certificate is issued (also while a renewal keeps failing and the old certificate is still served); null otherwise. */
                                    last_error: {
                                        /** @description CamelCase: CAAForbidden, DnsNotPointingHere, RateLimited, ChallengeFailed, CAUnavailable, NameNotHeld, … */
                                        reason: string;
                                        /** @description What went wrong and what to do. */
                                        message: string;
                                        /**
                                         * Format: date-time
                                         * @description When the order failed.
                                         */
                                        at: string;
                                    } | null;
                                    /**
                                     * Format: date-time
                                     * @description After a failed order: when the platform places the next one (it backs off, doubling); null otherwise.
                                     */
                                    next_attempt_at: string | null;
                                };
                            };
                        };
                    };
                };
                /** @description Default Response */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description A project domain. */
                            domain: {
                                /** @description Domain name. */
                                domain: string;
                                /**
                                 * @description Always zone_delegated.
                                 * @enum {string}
                                 */
                                dns_mode: "zone_delegated";
                                /**
                                 * @description pending_delegation until the parent zone delegates to the nameservers (also while its zone is being created: status_reason Creating, no nameservers yet), then managed (records can be written); deleted only in the answer to DELETE.
                                 * @enum {string}
                                 */
                                status: "pending_delegation" | "managed" | "deleted";
                                /** @description Hosted zone at the DNS provider (an infrastructure id, for debugging); empty until the zone exists. */
                                hosted_zone_id: string;
                                /** @description Nameservers to set at the registrar. */
                                nameservers: string[];
                                /** @description Why the domain is or is not managed, as a CamelCase reason (for example PendingDelegation, NameserversMismatch, Managed). */
                                status_reason: string;
                                /** @description The same in words, with what to do next. */
                                status_message: string;
                                /**
                                 * Format: date-time
                                 * @description Last delegation check.
                                 */
                                last_checked_at?: string;
                                /**
                                 * Format: date-time
                                 * @description When the domain was added.
                                 */
                                created_at: string;
                                /**
                                 * Format: date-time
                                 * @description When the domain was deleted.
                                 */
                                deleted_at?: string;
                                /** @description The TLS certificate the platform obtains and renews for the name and serves by SNI: for a hostname once it is active, for a project domain (the domain and *.domain) once it is managed. */
                                tls: {
                                    /**
                                     * @description none: no certificate exists for it (this install issues none, or none is ordered yet: a host name gets one once active, a domain once managed). pending: waiting to be ordered. issuing: an order is in progress. issued: a valid certificate is served. renewing: served, and its replacement is being ordered. failed: no certificate is served and the last order failed (last_error says why, next_attempt_at when the platform tries again).
                                     * @enum {string}
                                     */
                                    status: "none" | "pending" | "issuing" | "issued" | "renewing" | "failed";
                                    /**
                                     * Format: date-time
                                     * @description When the certificate served expires; null while none is served.
                                     */
                                    not_after: string | null;
                                    /** @description The certificate authority that issued the certificate served; null while none is served. */
                                    issuer: string | null;
                                    /** @description The last failed order, kept until a certificate is issued (also while a renewal keeps failing and the old certificate is still served); null otherwise. */
                                    last_error: {
                                        /** @description CamelCase: CAAForbidden, DnsNotPointingHere, RateLimited, ChallengeFailed, CAUnavailable, NameNotHeld, … */
                                        reason: string;
                                        /** @description What went wrong and what to do. */
                                        message: string;
                                        /**
                                         * Format: date-time
                                         * @description When the order failed.
                                         */
                                        at: string;
                                    } | null;
                                    /**
                                     * Format: date-time
                                     * @description After a failed order: when the platform places the next one (it backs off, doubling); null otherwise.
                                     */
                                    next_attempt_at: string | null;
                                };
                            };
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Error. */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description A dependency is unavailable; retry after `Retry-After` seconds. */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/domains/{domain}/delegation-check": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Check the delegation: the parent zone’s authoritative servers are asked for the domain’s NS records; managed when they equal the zone’s nameservers, pending_delegation otherwise (status_message says why). 202 with the status as it stands when the check has not answered within 10 s. Repeatable */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description The project domain, for example example.com. */
                    domain: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description A project domain. */
                            domain: {
                                /** @description Domain name. */
                                domain: string;
                                /**
                                 * @description Always zone_delegated.
                                 * @enum {string}
                                 */
                                dns_mode: "zone_delegated";
                                /**
                                 * @description pending_delegation until the parent zone delegates to the nameservers (also while its zone is being created: status_reason Creating, no nameservers yet), then managed (records can be written); deleted only in the answer to DELETE.
                                 * @enum {string}
                                 */
                                status: "pending_delegation" | "managed" | "deleted";
                                /** @description Hosted zone at the DNS provider (an infrastructure id, for debugging); empty until the zone exists. */
                                hosted_zone_id: string;
                                /** @description Nameservers to set at the registrar. */
                                nameservers: string[];
                                /** @description Why the domain is or is not managed, as a CamelCase reason (for example PendingDelegation, NameserversMismatch, Managed). */
                                status_reason: string;
                                /** @description The same in words, with what to do next. */
                                status_message: string;
                                /**
                                 * Format: date-time
                                 * @description Last delegation check.
                                 */
                                last_checked_at?: string;
                                /**
                                 * Format: date-time
                                 * @description When the domain was added.
                                 */
                                created_at: string;
                                /**
                                 * Format: date-time
                                 * @description When the domain was deleted.
                                 */
                                deleted_at?: string;
                                /** @description The TLS certificate the platform obtains and renews for the name and serves by SNI: for a hostname once it is active, for a project domain (the domain and *.domain) once it is managed. */
                                tls: {
                                    /**
                                     * @description none: no certificate exists for it (this install issues none, or none is ordered yet: a host name gets one once active, a domain once managed). pending: waiting to be ordered. issuing: an order is in progress. issued: a valid certificate is served. renewing: served, and its replacement is being ordered. failed: no certificate is served and the last order failed (last_error says why, next_attempt_at when the platform tries again).
                                     * @enum {string}
                                     */
                                    status: "none" | "pending" | "issuing" | "issued" | "renewing" | "failed";
                                    /**
                                     * Format: date-time
                                     * @description When the certificate served expires; null while none is served.
                                     */
                                    not_after: string | null;
                                    /** @description The certificate authority that issued the certificate served; null while none is served. */
                                    issuer: string | null;
                                    /** @description The last failed order, kept until a certificate is issued (also while a renewal keeps failing and the old certificate is still served); null otherwise. */
                                    last_error: {
                                        /** @description CamelCase: CAAForbidden, DnsNotPointingHere, RateLimited, ChallengeFailed, CAUnavailable, NameNotHeld, … */
                                        reason: string;
                                        /** @description What went wrong and what to do. */
                                        message: string;
                                        /**
                                         * Format: date-time
                                         * @description When the order failed.
                                         */
                                        at: string;
                                    } | null;
                                    /**
                                     * Format: date-time
                                     * @description After a failed order: when the platform places the next one (it backs off, doubling); null otherwise.
                                     */
                                    next_attempt_at: string | null;
                                };
                            };
                        };
                    };
                };
                /** @description Default Response */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description A project domain. */
                            domain: {
                                /** @description Domain name. */
                                domain: string;
                                /**
                                 * @description Always zone_delegated.
                                 * @enum {string}
                                 */
                                dns_mode: "zone_delegated";
                                /**
                                 * @description pending_delegation until the parent zone delegates to the nameservers (also while its zone is being created: status_reason Creating, no nameservers yet), then managed (records can be written); deleted only in the answer to DELETE.
                                 * @enum {string}
                                 */
                                status: "pending_delegation" | "managed" | "deleted";
                                /** @description Hosted zone at the DNS provider (an infrastructure id, for debugging); empty until the zone exists. */
                                hosted_zone_id: string;
                                /** @description Nameservers to set at the registrar. */
                                nameservers: string[];
                                /** @description Why the domain is or is not managed, as a CamelCase reason (for example PendingDelegation, NameserversMismatch, Managed). */
                                status_reason: string;
                                /** @description The same in words, with what to do next. */
                                status_message: string;
                                /**
                                 * Format: date-time
                                 * @description Last delegation check.
                                 */
                                last_checked_at?: string;
                                /**
                                 * Format: date-time
                                 * @description When the domain was added.
                                 */
                                created_at: string;
                                /**
                                 * Format: date-time
                                 * @description When the domain was deleted.
                                 */
                                deleted_at?: string;
                                /** @description The TLS certificate the platform obtains and renews for the name and serves by SNI: for a hostname once it is active, for a project domain (the domain and *.domain) once it is managed. */
                                tls: {
                                    /**
                                     * @description none: no certificate exists for it (this install issues none, or none is ordered yet: a host name gets one once active, a domain once managed). pending: waiting to be ordered. issuing: an order is in progress. issued: a valid certificate is served. renewing: served, and its replacement is being ordered. failed: no certificate is served and the last order failed (last_error says why, next_attempt_at when the platform tries again).
                                     * @enum {string}
                                     */
                                    status: "none" | "pending" | "issuing" | "issued" | "renewing" | "failed";
                                    /**
                                     * Format: date-time
                                     * @description When the certificate served expires; null while none is served.
                                     */
                                    not_after: string | null;
                                    /** @description The certificate authority that issued the certificate served; null while none is served. */
                                    issuer: string | null;
                                    /** @description The last failed order, kept until a certificate is issued (also while a renewal keeps failing and the old certificate is still served); null otherwise. */
                                    last_error: {
                                        /** @description CamelCase: CAAForbidden, DnsNotPointingHere, RateLimited, ChallengeFailed, CAUnavailable, NameNotHeld, … */
                                        reason: string;
                                        /** @description What went wrong and what to do. */
                                        message: string;
                                        /**
                                         * Format: date-time
                                         * @description When the order failed.
                                         */
                                        at: string;
                                    } | null;
                                    /**
                                     * Format: date-time
                                     * @description After a failed order: when the platform places the next one (it backs off, doubling); null otherwise.
                                     */
                                    next_attempt_at: string | null;
                                };
                            };
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Error. */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description A dependency is unavailable; retry after `Retry-After` seconds. */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/domains/{domain}/records": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the domain’s records, platform-owned ones included, by name, type and id, a page at a time */
        get: {
            parameters: {
                query?: {
                    /** @description Items per page (default 100, at most 1000). */
                    limit?: number;
                    /** @description The `next` of the previous page, as it was (opaque): the page continues after the item it names. */
                    cursor?: string;
                };
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description The project domain, for example example.com. */
                    domain: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            records: {
                                /** @description Record id. */
                                record_id: string;
                                /** @description Name relative to the domain; `@` is the apex. */
                                name: string;
                                /** @description Fully qualified name. */
                                fqdn: string;
                                /** @description Record type. */
                                type: string;
                                /** @description Values in canonical form. */
                                values: string[];
                                /** @description Time to live in seconds. */
                                ttl: number;
                                /** @description Present on platform-owned records only; those cannot be changed or deleted by hand. */
                                owner?: {
                                    /**
                                     * @description platform_app: written by the platform for an app hostname.
                                     * @enum {string}
                                     */
                                    kind: "platform_app";
                                    /**
                                     * @description runtime_app.
                                     * @enum {string}
                                     */
                                    owner_resource_type: "runtime_app";
                                    /** @description The app id. */
                                    owner_resource_id: string;
                                };
                                /**
                                 * @description applied: in the zone; pending: waiting for the delegation or the DNS provider; failed: refused (see status_message).
                                 * @enum {string}
                                 */
                                status: "applied" | "pending" | "failed";
                                /** @description CamelCase reason of the status. */
                                status_reason: string;
                                /** @description The status in words. */
                                status_message: string;
                                /**
                                 * Format: date-time
                                 * @description When the record was created.
                                 */
                                created_at: string;
                            }[];
                            /** @description An opaque cursor: pass it as `cursor` for the next page; null on the last page. */
                            next: string | null;
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /** Create a record (name, type, values, ttl) and write it to the zone: 201 once the platform has tried (status says how it went), 202 with the record as it stands (pending) when it has not within 10 s. 409 while the domain is not managed, or when the name is taken (one record set per name and type; a CNAME alone at its name) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description The project domain, for example example.com. */
                    domain: string;
                };
                cookie?: never;
            };
            /** @description A record set. `value` is shorthand for one value; give `value` or `values`, not both. */
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Name relative to the domain (`www`, `@` for the apex) or fully qualified inside it. Required on create. */
                        name?: string;
                        /** @description Record type, any case: A, AAAA, CAA, CNAME, MX, NS, SRV or TXT. Required on create. */
                        type?: string;
                        /** @description The values; exactly one for CNAME. On update they replace the stored values. */
                        values?: string[];
                        /** @description One value in zone-file syntax, for example 192.0.2.1 or "10 mail.example.com". */
                        value?: string;
                        /** @description Time to live in seconds (60-86400); default 300. */
                        ttl?: number;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description A DNS record set of a project domain. */
                            record: {
                                /** @description Record id. */
                                record_id: string;
                                /** @description Name relative to the domain; `@` is the apex. */
                                name: string;
                                /** @description Fully qualified name. */
                                fqdn: string;
                                /** @description Record type. */
                                type: string;
                                /** @description Values in canonical form. */
                                values: string[];
                                /** @description Time to live in seconds. */
                                ttl: number;
                                /** @description Present on platform-owned records only; those cannot be changed or deleted by hand. */
                                owner?: {
                                    /**
                                     * @description platform_app: written by the platform for an app hostname.
                                     * @enum {string}
                                     */
                                    kind: "platform_app";
                                    /**
                                     * @description runtime_app.
                                     * @enum {string}
                                     */
                                    owner_resource_type: "runtime_app";
                                    /** @description The app id. */
                                    owner_resource_id: string;
                                };
                                /**
                                 * @description applied: in the zone; pending: waiting for the delegation or the DNS provider; failed: refused (see status_message).
                                 * @enum {string}
                                 */
                                status: "applied" | "pending" | "failed";
                                /** @description CamelCase reason of the status. */
                                status_reason: string;
                                /** @description The status in words. */
                                status_message: string;
                                /**
                                 * Format: date-time
                                 * @description When the record was created.
                                 */
                                created_at: string;
                            };
                        };
                    };
                };
                /** @description Default Response */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description A DNS record set of a project domain. */
                            record: {
                                /** @description Record id. */
                                record_id: string;
                                /** @description Name relative to the domain; `@` is the apex. */
                                name: string;
                                /** @description Fully qualified name. */
                                fqdn: string;
                                /** @description Record type. */
                                type: string;
                                /** @description Values in canonical form. */
                                values: string[];
                                /** @description Time to live in seconds. */
                                ttl: number;
                                /** @description Present on platform-owned records only; those cannot be changed or deleted by hand. */
                                owner?: {
                                    /**
                                     * @description platform_app: written by the platform for an app hostname.
                                     * @enum {string}
                                     */
                                    kind: "platform_app";
                                    /**
                                     * @description runtime_app.
                                     * @enum {string}
                                     */
                                    owner_resource_type: "runtime_app";
                                    /** @description The app id. */
                                    owner_resource_id: string;
                                };
                                /**
                                 * @description applied: in the zone; pending: waiting for the delegation or the DNS provider; failed: refused (see status_message).
                                 * @enum {string}
                                 */
                                status: "applied" | "pending" | "failed";
                                /** @description CamelCase reason of the status. */
                                status_reason: string;
                                /** @description The status in words. */
                                status_message: string;
                                /**
                                 * Format: date-time
                                 * @description When the record was created.
                                 */
                                created_at: string;
                            };
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/domains/{domain}/records/{recordId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Update a record: omitted name, type and ttl keep the stored ones; values replace the stored values. 200 once the platform has tried to write it (status says how it went), 202 with the record as it stands when it has not within 10 s. 409 for platform-owned records and while the domain is not managed */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description The project domain. */
                    domain: string;
                    /** @description Record id, as the record’s `record_id`. */
                    recordId: string;
                };
                cookie?: never;
            };
            /** @description A record set. `value` is shorthand for one value; give `value` or `values`, not both. */
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Name relative to the domain (`www`, `@` for the apex) or fully qualified inside it. Required on create. */
                        name?: string;
                        /** @description Record type, any case: A, AAAA, CAA, CNAME, MX, NS, SRV or TXT. Required on create. */
                        type?: string;
                        /** @description The values; exactly one for CNAME. On update they replace the stored values. */
                        values?: string[];
                        /** @description One value in zone-file syntax, for example 192.0.2.1 or "10 mail.example.com". */
                        value?: string;
                        /** @description Time to live in seconds (60-86400); default 300. */
                        ttl?: number;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description A DNS record set of a project domain. */
                            record: {
                                /** @description Record id. */
                                record_id: string;
                                /** @description Name relative to the domain; `@` is the apex. */
                                name: string;
                                /** @description Fully qualified name. */
                                fqdn: string;
                                /** @description Record type. */
                                type: string;
                                /** @description Values in canonical form. */
                                values: string[];
                                /** @description Time to live in seconds. */
                                ttl: number;
                                /** @description Present on platform-owned records only; those cannot be changed or deleted by hand. */
                                owner?: {
                                    /**
                                     * @description platform_app: written by the platform for an app hostname.
                                     * @enum {string}
                                     */
                                    kind: "platform_app";
                                    /**
                                     * @description runtime_app.
                                     * @enum {string}
                                     */
                                    owner_resource_type: "runtime_app";
                                    /** @description The app id. */
                                    owner_resource_id: string;
                                };
                                /**
                                 * @description applied: in the zone; pending: waiting for the delegation or the DNS provider; failed: refused (see status_message).
                                 * @enum {string}
                                 */
                                status: "applied" | "pending" | "failed";
                                /** @description CamelCase reason of the status. */
                                status_reason: string;
                                /** @description The status in words. */
                                status_message: string;
                                /**
                                 * Format: date-time
                                 * @description When the record was created.
                                 */
                                created_at: string;
                            };
                        };
                    };
                };
                /** @description Default Response */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description A DNS record set of a project domain. */
                            record: {
                                /** @description Record id. */
                                record_id: string;
                                /** @description Name relative to the domain; `@` is the apex. */
                                name: string;
                                /** @description Fully qualified name. */
                                fqdn: string;
                                /** @description Record type. */
                                type: string;
                                /** @description Values in canonical form. */
                                values: string[];
                                /** @description Time to live in seconds. */
                                ttl: number;
                                /** @description Present on platform-owned records only; those cannot be changed or deleted by hand. */
                                owner?: {
                                    /**
                                     * @description platform_app: written by the platform for an app hostname.
                                     * @enum {string}
                                     */
                                    kind: "platform_app";
                                    /**
                                     * @description runtime_app.
                                     * @enum {string}
                                     */
                                    owner_resource_type: "runtime_app";
                                    /** @description The app id. */
                                    owner_resource_id: string;
                                };
                                /**
                                 * @description applied: in the zone; pending: waiting for the delegation or the DNS provider; failed: refused (see status_message).
                                 * @enum {string}
                                 */
                                status: "applied" | "pending" | "failed";
                                /** @description CamelCase reason of the status. */
                                status_reason: string;
                                /** @description The status in words. */
                                status_message: string;
                                /**
                                 * Format: date-time
                                 * @description When the record was created.
                                 */
                                created_at: string;
                            };
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        post?: never;
        /** Delete a record (in every domain state); 409 for platform-owned records. Answers the record as it was: 200 once it has left the zone, 202 when it has not within 10 s (the platform carries on) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description The project domain. */
                    domain: string;
                    /** @description Record id, as the record’s `record_id`. */
                    recordId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description A DNS record set of a project domain. */
                            record: {
                                /** @description Record id. */
                                record_id: string;
                                /** @description Name relative to the domain; `@` is the apex. */
                                name: string;
                                /** @description Fully qualified name. */
                                fqdn: string;
                                /** @description Record type. */
                                type: string;
                                /** @description Values in canonical form. */
                                values: string[];
                                /** @description Time to live in seconds. */
                                ttl: number;
                                /** @description Present on platform-owned records only; those cannot be changed or deleted by hand. */
                                owner?: {
                                    /**
                                     * @description platform_app: written by the platform for an app hostname.
                                     * @enum {string}
                                     */
                                    kind: "platform_app";
                                    /**
                                     * @description runtime_app.
                                     * @enum {string}
                                     */
                                    owner_resource_type: "runtime_app";
                                    /** @description The app id. */
                                    owner_resource_id: string;
                                };
                                /**
                                 * @description applied: in the zone; pending: waiting for the delegation or the DNS provider; failed: refused (see status_message).
                                 * @enum {string}
                                 */
                                status: "applied" | "pending" | "failed";
                                /** @description CamelCase reason of the status. */
                                status_reason: string;
                                /** @description The status in words. */
                                status_message: string;
                                /**
                                 * Format: date-time
                                 * @description When the record was created.
                                 */
                                created_at: string;
                            };
                        };
                    };
                };
                /** @description Default Response */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description A DNS record set of a project domain. */
                            record: {
                                /** @description Record id. */
                                record_id: string;
                                /** @description Name relative to the domain; `@` is the apex. */
                                name: string;
                                /** @description Fully qualified name. */
                                fqdn: string;
                                /** @description Record type. */
                                type: string;
                                /** @description Values in canonical form. */
                                values: string[];
                                /** @description Time to live in seconds. */
                                ttl: number;
                                /** @description Present on platform-owned records only; those cannot be changed or deleted by hand. */
                                owner?: {
                                    /**
                                     * @description platform_app: written by the platform for an app hostname.
                                     * @enum {string}
                                     */
                                    kind: "platform_app";
                                    /**
                                     * @description runtime_app.
                                     * @enum {string}
                                     */
                                    owner_resource_type: "runtime_app";
                                    /** @description The app id. */
                                    owner_resource_id: string;
                                };
                                /**
                                 * @description applied: in the zone; pending: waiting for the delegation or the DNS provider; failed: refused (see status_message).
                                 * @enum {string}
                                 */
                                status: "applied" | "pending" | "failed";
                                /** @description CamelCase reason of the status. */
                                status_reason: string;
                                /** @description The status in words. */
                                status_message: string;
                                /**
                                 * Format: date-time
                                 * @description When the record was created.
                                 */
                                created_at: string;
                            };
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/apps/{appId}/domains": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the hostnames attached to the app, with their state */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description App id, as `POST …/apps` assigned it (a DNS label). */
                    appId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            domains: {
                                /** @description Hostname. */
                                domain: string;
                                /**
                                 * @description Who publishes the records.
                                 * @enum {string}
                                 */
                                dns_mode: "external_records" | "managed_project_domain";
                                /** @description App served on the hostname. */
                                app_id: string;
                                /**
                                 * @description pending until finalize verified the records, then active: the app is served on the hostname; deleting only in the 202 answer to DELETE (detached, its records still leaving the zone).
                                 * @enum {string}
                                 */
                                status: "pending" | "active" | "deleting";
                                /** @description CamelCase reason (Attaching, AwaitingFinalize, DnsNotApplied, Active …). */
                                status_reason: string;
                                /** @description What to do next, in words. */
                                status_message: string;
                                /** @description external_records: the CNAME to the runtime and the ownership TXT challenge to publish. */
                                dns_records?: {
                                    /** @description For example CNAME or TXT. */
                                    record_type: string;
                                    /** @description Fully qualified record name. */
                                    name: string;
                                    /** @description Record value, to publish exactly as given. */
                                    value: string;
                                }[];
                                /** @description managed_project_domain: how applying the records went. */
                                managed_dns?: {
                                    /** @description The managed project domain holding the hostname. */
                                    project_domain: string;
                                    /**
                                     * @description applied: the records are in the zone; pending: they are being written (the platform has not answered yet); failed: writing them failed (repeat the request).
                                     * @enum {string}
                                     */
                                    status: "applied" | "pending" | "failed";
                                    /** @description The platform-owned records, when applied. */
                                    records?: {
                                        /** @description For example CNAME or TXT. */
                                        record_type: string;
                                        /** @description Fully qualified record name. */
                                        name: string;
                                        /** @description Record value, to publish exactly as given. */
                                        value: string;
                                    }[];
                                };
                                /**
                                 * Format: date-time
                                 * @description When the hostname was attached.
                                 */
                                created_at: string;
                                /** @description The TLS certificate the platform obtains and renews for the name and serves by SNI: for a hostname once it is active, for a project domain (the domain and *.domain) once it is managed. */
                                tls: {
                                    /**
                                     * @description none: no certificate exists for it (this install issues none, or none is ordered yet: a host name gets one once active, a domain once managed). pending: waiting to be ordered. issuing: an order is in progress. issued: a valid certificate is served. renewing: served, and its replacement is being ordered. failed: no certificate is served and the last order failed (last_error says why, next_attempt_at when the platform tries again).
                                     * @enum {string}
                                     */
                                    status: "none" | "pending" | "issuing" | "issued" | "renewing" | "failed";
                                    /**
                                     * Format: date-time
                                     * @description When the certificate served expires; null while none is served.
                                     */
                                    not_after: string | null;
                                    /** @description The certificate authority that issued the certificate served; null while none is served. */
                                    issuer: string | null;
                                    /** @description The last failed order, kept until a certificate is issued (also while a renewal keeps failing and the old certificate is still served); null otherwise. */
                                    last_error: {
                                        /** @description CamelCase: CAAForbidden, DnsNotPointingHere, RateLimited, ChallengeFailed, CAUnavailable, NameNotHeld, … */
                                        reason: string;
                                        /** @description What went wrong and what to do. */
                                        message: string;
                                        /**
                                         * Format: date-time
                                         * @description When the order failed.
                                         */
                                        at: string;
                                    } | null;
                                    /**
                                     * Format: date-time
                                     * @description After a failed order: when the platform places the next one (it backs off, doubling); null otherwise.
                                     */
                                    next_attempt_at: string | null;
                                };
                            }[];
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /** Attach a hostname (the runtime first, then DNS). external_records answers the records to publish; managed_project_domain writes them into the managed project domain holding the hostname (which needs `domain:write` too): 200 with managed_dns.status=applied, or 202 with failed when writing them failed (repeat the identical request). 202 with the hostname as it stands (status pending, managed_dns.status pending) when the platform has not answered within 10 s: GET the app’s hostnames, or repeat the request, to follow it. Idempotent */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description App id, as `POST …/apps` assigned it (a DNS label). */
                    appId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The hostname to attach, for example www.example.com. */
                        domain: string;
                        /**
                         * @description external_records (default): you publish dns_records yourself. managed_project_domain: the platform writes the records into the managed project domain holding the hostname.
                         * @enum {string}
                         */
                        dns_mode?: "external_records" | "managed_project_domain";
                    };
                };
            };
            responses: {
                /** @description An app hostname: the attach result, and an entry of the app’s hostname list. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Hostname. */
                            domain: string;
                            /**
                             * @description Who publishes the records.
                             * @enum {string}
                             */
                            dns_mode: "external_records" | "managed_project_domain";
                            /** @description App served on the hostname. */
                            app_id: string;
                            /**
                             * @description pending until finalize verified the records, then active: the app is served on the hostname; deleting only in the 202 answer to DELETE (detached, its records still leaving the zone).
                             * @enum {string}
                             */
                            status: "pending" | "active" | "deleting";
                            /** @description CamelCase reason (Attaching, AwaitingFinalize, DnsNotApplied, Active …). */
                            status_reason: string;
                            /** @description What to do next, in words. */
                            status_message: string;
                            /** @description external_records: the CNAME to the runtime and the ownership TXT challenge to publish. */
                            dns_records?: {
                                /** @description For example CNAME or TXT. */
                                record_type: string;
                                /** @description Fully qualified record name. */
                                name: string;
                                /** @description Record value, to publish exactly as given. */
                                value: string;
                            }[];
                            /** @description managed_project_domain: how applying the records went. */
                            managed_dns?: {
                                /** @description The managed project domain holding the hostname. */
                                project_domain: string;
                                /**
                                 * @description applied: the records are in the zone; pending: they are being written (the platform has not answered yet); failed: writing them failed (repeat the request).
                                 * @enum {string}
                                 */
                                status: "applied" | "pending" | "failed";
                                /** @description The platform-owned records, when applied. */
                                records?: {
                                    /** @description For example CNAME or TXT. */
                                    record_type: string;
                                    /** @description Fully qualified record name. */
                                    name: string;
                                    /** @description Record value, to publish exactly as given. */
                                    value: string;
                                }[];
                            };
                            /**
                             * Format: date-time
                             * @description When the hostname was attached.
                             */
                            created_at: string;
                            /** @description The TLS certificate the platform obtains and renews for the name and serves by SNI: for a hostname once it is active, for a project domain (the domain and *.domain) once it is managed. */
                            tls: {
                                /**
                                 * @description none: no certificate exists for it (this install issues none, or none is ordered yet: a host name gets one once active, a domain once managed). pending: waiting to be ordered. issuing: an order is in progress. issued: a valid certificate is served. renewing: served, and its replacement is being ordered. failed: no certificate is served and the last order failed (last_error says why, next_attempt_at when the platform tries again).
                                 * @enum {string}
                                 */
                                status: "none" | "pending" | "issuing" | "issued" | "renewing" | "failed";
                                /**
                                 * Format: date-time
                                 * @description When the certificate served expires; null while none is served.
                                 */
                                not_after: string | null;
                                /** @description The certificate authority that issued the certificate served; null while none is served. */
                                issuer: string | null;
                                /** @description The last failed order, kept until a certificate is issued (also while a renewal keeps failing and the old certificate is still served); null otherwise. */
                                last_error: {
                                    /** @description CamelCase: CAAForbidden, DnsNotPointingHere, RateLimited, ChallengeFailed, CAUnavailable, NameNotHeld, … */
                                    reason: string;
                                    /** @description What went wrong and what to do. */
                                    message: string;
                                    /**
                                     * Format: date-time
                                     * @description When the order failed.
                                     */
                                    at: string;
                                } | null;
                                /**
                                 * Format: date-time
                                 * @description After a failed order: when the platform places the next one (it backs off, doubling); null otherwise.
                                 */
                                next_attempt_at: string | null;
                            };
                        };
                    };
                };
                /** @description An app hostname: the attach result, and an entry of the app’s hostname list. */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Hostname. */
                            domain: string;
                            /**
                             * @description Who publishes the records.
                             * @enum {string}
                             */
                            dns_mode: "external_records" | "managed_project_domain";
                            /** @description App served on the hostname. */
                            app_id: string;
                            /**
                             * @description pending until finalize verified the records, then active: the app is served on the hostname; deleting only in the 202 answer to DELETE (detached, its records still leaving the zone).
                             * @enum {string}
                             */
                            status: "pending" | "active" | "deleting";
                            /** @description CamelCase reason (Attaching, AwaitingFinalize, DnsNotApplied, Active …). */
                            status_reason: string;
                            /** @description What to do next, in words. */
                            status_message: string;
                            /** @description external_records: the CNAME to the runtime and the ownership TXT challenge to publish. */
                            dns_records?: {
                                /** @description For example CNAME or TXT. */
                                record_type: string;
                                /** @description Fully qualified record name. */
                                name: string;
                                /** @description Record value, to publish exactly as given. */
                                value: string;
                            }[];
                            /** @description managed_project_domain: how applying the records went. */
                            managed_dns?: {
                                /** @description The managed project domain holding the hostname. */
                                project_domain: string;
                                /**
                                 * @description applied: the records are in the zone; pending: they are being written (the platform has not answered yet); failed: writing them failed (repeat the request).
                                 * @enum {string}
                                 */
                                status: "applied" | "pending" | "failed";
                                /** @description The platform-owned records, when applied. */
                                records?: {
                                    /** @description For example CNAME or TXT. */
                                    record_type: string;
                                    /** @description Fully qualified record name. */
                                    name: string;
                                    /** @description Record value, to publish exactly as given. */
                                    value: string;
                                }[];
                            };
                            /**
                             * Format: date-time
                             * @description When the hostname was attached.
                             */
                            created_at: string;
                            /** @description The TLS certificate the platform obtains and renews for the name and serves by SNI: for a hostname once it is active, for a project domain (the domain and *.domain) once it is managed. */
                            tls: {
                                /**
                                 * @description none: no certificate exists for it (this install issues none, or none is ordered yet: a host name gets one once active, a domain once managed). pending: waiting to be ordered. issuing: an order is in progress. issued: a valid certificate is served. renewing: served, and its replacement is being ordered. failed: no certificate is served and the last order failed (last_error says why, next_attempt_at when the platform tries again).
                                 * @enum {string}
                                 */
                                status: "none" | "pending" | "issuing" | "issued" | "renewing" | "failed";
                                /**
                                 * Format: date-time
                                 * @description When the certificate served expires; null while none is served.
                                 */
                                not_after: string | null;
                                /** @description The certificate authority that issued the certificate served; null while none is served. */
                                issuer: string | null;
                                /** @description The last failed order, kept until a certificate is issued (also while a renewal keeps failing and the old certificate is still served); null otherwise. */
                                last_error: {
                                    /** @description CamelCase: CAAForbidden, DnsNotPointingHere, RateLimited, ChallengeFailed, CAUnavailable, NameNotHeld, … */
                                    reason: string;
                                    /** @description What went wrong and what to do. */
                                    message: string;
                                    /**
                                     * Format: date-time
                                     * @description When the order failed.
                                     */
                                    at: string;
                                } | null;
                                /**
                                 * Format: date-time
                                 * @description After a failed order: when the platform places the next one (it backs off, doubling); null otherwise.
                                 */
                                next_attempt_at: string | null;
                            };
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/apps/{appId}/domains/{domain}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Detach a hostname: the app is no longer served on it, the records the platform wrote for it leave the zone and the name is free for others to attach. 204 once gone; 202 with the hostname (status deleting) when that has not finished within 10 s (the platform carries on); 404 when the hostname is not attached to the app. Records you published yourself are yours to remove */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description App id, as `POST …/apps` assigned it (a DNS label). */
                    appId: string;
                    /** @description The hostname attached to the app. */
                    domain: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description An app hostname: the attach result, and an entry of the app’s hostname list. */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Hostname. */
                            domain: string;
                            /**
                             * @description Who publishes the records.
                             * @enum {string}
                             */
                            dns_mode: "external_records" | "managed_project_domain";
                            /** @description App served on the hostname. */
                            app_id: string;
                            /**
                             * @description pending until finalize verified the records, then active: the app is served on the hostname; deleting only in the 202 answer to DELETE (detached, its records still leaving the zone).
                             * @enum {string}
                             */
                            status: "pending" | "active" | "deleting";
                            /** @description CamelCase reason (Attaching, AwaitingFinalize, DnsNotApplied, Active …). */
                            status_reason: string;
                            /** @description What to do next, in words. */
                            status_message: string;
                            /** @description external_records: the CNAME to the runtime and the ownership TXT challenge to publish. */
                            dns_records?: {
                                /** @description For example CNAME or TXT. */
                                record_type: string;
                                /** @description Fully qualified record name. */
                                name: string;
                                /** @description Record value, to publish exactly as given. */
                                value: string;
                            }[];
                            /** @description managed_project_domain: how applying the records went. */
                            managed_dns?: {
                                /** @description The managed project domain holding the hostname. */
                                project_domain: string;
                                /**
                                 * @description applied: the records are in the zone; pending: they are being written (the platform has not answered yet); failed: writing them failed (repeat the request).
                                 * @enum {string}
                                 */
                                status: "applied" | "pending" | "failed";
                                /** @description The platform-owned records, when applied. */
                                records?: {
                                    /** @description For example CNAME or TXT. */
                                    record_type: string;
                                    /** @description Fully qualified record name. */
                                    name: string;
                                    /** @description Record value, to publish exactly as given. */
                                    value: string;
                                }[];
                            };
                            /**
                             * Format: date-time
                             * @description When the hostname was attached.
                             */
                            created_at: string;
                            /** @description The TLS certificate the platform obtains and renews for the name and serves by SNI: for a hostname once it is active, for a project domain (the domain and *.domain) once it is managed. */
                            tls: {
                                /**
                                 * @description none: no certificate exists for it (this install issues none, or none is ordered yet: a host name gets one once active, a domain once managed). pending: waiting to be ordered. issuing: an order is in progress. issued: a valid certificate is served. renewing: served, and its replacement is being ordered. failed: no certificate is served and the last order failed (last_error says why, next_attempt_at when the platform tries again).
                                 * @enum {string}
                                 */
                                status: "none" | "pending" | "issuing" | "issued" | "renewing" | "failed";
                                /**
                                 * Format: date-time
                                 * @description When the certificate served expires; null while none is served.
                                 */
                                not_after: string | null;
                                /** @description The certificate authority that issued the certificate served; null while none is served. */
                                issuer: string | null;
                                /** @description The last failed order, kept until a certificate is issued (also while a renewal keeps failing and the old certificate is still served); null otherwise. */
                                last_error: {
                                    /** @description CamelCase: CAAForbidden, DnsNotPointingHere, RateLimited, ChallengeFailed, CAUnavailable, NameNotHeld, … */
                                    reason: string;
                                    /** @description What went wrong and what to do. */
                                    message: string;
                                    /**
                                     * Format: date-time
                                     * @description When the order failed.
                                     */
                                    at: string;
                                } | null;
                                /**
                                 * Format: date-time
                                 * @description After a failed order: when the platform places the next one (it backs off, doubling); null otherwise.
                                 */
                                next_attempt_at: string | null;
                            };
                        };
                    };
                };
                /** @description Default Response */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/apps/{appId}/domains/{domain}/finalize": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Finalize: sets the binding’s finalize intent and has the records verified now (external: through the platform’s resolver; managed: applied), then the app is served on the hostname. 409 saying what is missing (the platform keeps re-checking and activates the hostname by itself once they are live); 202 when the check has not answered within 10 s; repeatable */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description App id, as `POST …/apps` assigned it (a DNS label). */
                    appId: string;
                    /** @description The hostname attached to the app. */
                    domain: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description An app hostname: the attach result, and an entry of the app’s hostname list. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Hostname. */
                            domain: string;
                            /**
                             * @description Who publishes the records.
                             * @enum {string}
                             */
                            dns_mode: "external_records" | "managed_project_domain";
                            /** @description App served on the hostname. */
                            app_id: string;
                            /**
                             * @description pending until finalize verified the records, then active: the app is served on the hostname; deleting only in the 202 answer to DELETE (detached, its records still leaving the zone).
                             * @enum {string}
                             */
                            status: "pending" | "active" | "deleting";
                            /** @description CamelCase reason (Attaching, AwaitingFinalize, DnsNotApplied, Active …). */
                            status_reason: string;
                            /** @description What to do next, in words. */
                            status_message: string;
                            /** @description external_records: the CNAME to the runtime and the ownership TXT challenge to publish. */
                            dns_records?: {
                                /** @description For example CNAME or TXT. */
                                record_type: string;
                                /** @description Fully qualified record name. */
                                name: string;
                                /** @description Record value, to publish exactly as given. */
                                value: string;
                            }[];
                            /** @description managed_project_domain: how applying the records went. */
                            managed_dns?: {
                                /** @description The managed project domain holding the hostname. */
                                project_domain: string;
                                /**
                                 * @description applied: the records are in the zone; pending: they are being written (the platform has not answered yet); failed: writing them failed (repeat the request).
                                 * @enum {string}
                                 */
                                status: "applied" | "pending" | "failed";
                                /** @description The platform-owned records, when applied. */
                                records?: {
                                    /** @description For example CNAME or TXT. */
                                    record_type: string;
                                    /** @description Fully qualified record name. */
                                    name: string;
                                    /** @description Record value, to publish exactly as given. */
                                    value: string;
                                }[];
                            };
                            /**
                             * Format: date-time
                             * @description When the hostname was attached.
                             */
                            created_at: string;
                            /** @description The TLS certificate the platform obtains and renews for the name and serves by SNI: for a hostname once it is active, for a project domain (the domain and *.domain) once it is managed. */
                            tls: {
                                /**
                                 * @description none: no certificate exists for it (this install issues none, or none is ordered yet: a host name gets one once active, a domain once managed). pending: waiting to be ordered. issuing: an order is in progress. issued: a valid certificate is served. renewing: served, and its replacement is being ordered. failed: no certificate is served and the last order failed (last_error says why, next_attempt_at when the platform tries again).
                                 * @enum {string}
                                 */
                                status: "none" | "pending" | "issuing" | "issued" | "renewing" | "failed";
                                /**
                                 * Format: date-time
                                 * @description When the certificate served expires; null while none is served.
                                 */
                                not_after: string | null;
                                /** @description The certificate authority that issued the certificate served; null while none is served. */
                                issuer: string | null;
                                /** @description The last failed order, kept until a certificate is issued (also while a renewal keeps failing and the old certificate is still served); null otherwise. */
                                last_error: {
                                    /** @description CamelCase: CAAForbidden, DnsNotPointingHere, RateLimited, ChallengeFailed, CAUnavailable, NameNotHeld, … */
                                    reason: string;
                                    /** @description What went wrong and what to do. */
                                    message: string;
                                    /**
                                     * Format: date-time
                                     * @description When the order failed.
                                     */
                                    at: string;
                                } | null;
                                /**
                                 * Format: date-time
                                 * @description After a failed order: when the platform places the next one (it backs off, doubling); null otherwise.
                                 */
                                next_attempt_at: string | null;
                            };
                        };
                    };
                };
                /** @description An app hostname: the attach result, and an entry of the app’s hostname list. */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Hostname. */
                            domain: string;
                            /**
                             * @description Who publishes the records.
                             * @enum {string}
                             */
                            dns_mode: "external_records" | "managed_project_domain";
                            /** @description App served on the hostname. */
                            app_id: string;
                            /**
                             * @description pending until finalize verified the records, then active: the app is served on the hostname; deleting only in the 202 answer to DELETE (detached, its records still leaving the zone).
                             * @enum {string}
                             */
                            status: "pending" | "active" | "deleting";
                            /** @description CamelCase reason (Attaching, AwaitingFinalize, DnsNotApplied, Active …). */
                            status_reason: string;
                            /** @description What to do next, in words. */
                            status_message: string;
                            /** @description external_records: the CNAME to the runtime and the ownership TXT challenge to publish. */
                            dns_records?: {
                                /** @description For example CNAME or TXT. */
                                record_type: string;
                                /** @description Fully qualified record name. */
                                name: string;
                                /** @description Record value, to publish exactly as given. */
                                value: string;
                            }[];
                            /** @description managed_project_domain: how applying the records went. */
                            managed_dns?: {
                                /** @description The managed project domain holding the hostname. */
                                project_domain: string;
                                /**
                                 * @description applied: the records are in the zone; pending: they are being written (the platform has not answered yet); failed: writing them failed (repeat the request).
                                 * @enum {string}
                                 */
                                status: "applied" | "pending" | "failed";
                                /** @description The platform-owned records, when applied. */
                                records?: {
                                    /** @description For example CNAME or TXT. */
                                    record_type: string;
                                    /** @description Fully qualified record name. */
                                    name: string;
                                    /** @description Record value, to publish exactly as given. */
                                    value: string;
                                }[];
                            };
                            /**
                             * Format: date-time
                             * @description When the hostname was attached.
                             */
                            created_at: string;
                            /** @description The TLS certificate the platform obtains and renews for the name and serves by SNI: for a hostname once it is active, for a project domain (the domain and *.domain) once it is managed. */
                            tls: {
                                /**
                                 * @description none: no certificate exists for it (this install issues none, or none is ordered yet: a host name gets one once active, a domain once managed). pending: waiting to be ordered. issuing: an order is in progress. issued: a valid certificate is served. renewing: served, and its replacement is being ordered. failed: no certificate is served and the last order failed (last_error says why, next_attempt_at when the platform tries again).
                                 * @enum {string}
                                 */
                                status: "none" | "pending" | "issuing" | "issued" | "renewing" | "failed";
                                /**
                                 * Format: date-time
                                 * @description When the certificate served expires; null while none is served.
                                 */
                                not_after: string | null;
                                /** @description The certificate authority that issued the certificate served; null while none is served. */
                                issuer: string | null;
                                /** @description The last failed order, kept until a certificate is issued (also while a renewal keeps failing and the old certificate is still served); null otherwise. */
                                last_error: {
                                    /** @description CamelCase: CAAForbidden, DnsNotPointingHere, RateLimited, ChallengeFailed, CAUnavailable, NameNotHeld, … */
                                    reason: string;
                                    /** @description What went wrong and what to do. */
                                    message: string;
                                    /**
                                     * Format: date-time
                                     * @description When the order failed.
                                     */
                                    at: string;
                                } | null;
                                /**
                                 * Format: date-time
                                 * @description After a failed order: when the platform places the next one (it backs off, doubling); null otherwise.
                                 */
                                next_attempt_at: string | null;
                            };
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/databases": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the project’s databases by name, a page at a time (never a token; an empty list when there are none) */
        get: {
            parameters: {
                query?: {
                    /** @description Items per page (default 100, at most 1000). */
                    limit?: number;
                    /** @description The `next` of the previous page, as it was (opaque): the page continues after the item it names. */
                    cursor?: string;
                };
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            databases: {
                                /** @description Stable identifier (also the tenant of the database_url). */
                                database_id: string;
                                /** @description Name given at creation. */
                                name: string;
                                /**
                                 * @description provisioning until the engine serves it; restoring while a point-in-time restore copies its source; ready when it answers SQL; deleting while it and its copies are removed; failed when it cannot be provisioned (status_message says why).
                                 * @enum {string}
                                 */
                                status: "provisioning" | "restoring" | "ready" | "deleting" | "failed";
                                /** @description ISO 8601 UTC timestamp. */
                                created_at: string;
                                /** @description SQL data endpoint {db_url}/v1/<tenant_id>, for @libsql/client with a database token. */
                                database_url?: string;
                                /** @description The same endpoint over Hrana over WebSocket (ws:// or wss://): what @libsql/client needs for interactive transactions that idle between statements. */
                                database_ws_url?: string;
                            }[];
                            /** @description An opaque cursor: pass it as `cursor` for the next page; null on the last page. */
                            next: string | null;
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /** Create a database (or restore one: restore_from copies another of the project as it was at a time). 201 with database_token, shown only here, once it answers SQL; 202 likewise when it is still being provisioned after 10 s (60 s for a restore). The same name again: 200 with created false and no token (rotate to get a new one). 422 for a restore point outside the source’s restore_window */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Database name: 1 to 63 lowercase letters, digits and dashes, starting and ending with a letter or digit. */
                        name: string;
                        /**
                         * @description async (default): commits reach the object store within about a second, so losing the engine’s disk loses at most that; sync: a commit is acknowledged only once it is in the object store.
                         * @enum {string}
                         */
                        durability?: "async" | "sync";
                        /** @description Point-in-time restore: the new database starts as a copy of this project’s database as it was at timestamp. */
                        restore_from?: {
                            /** @description The database’s name or its database_id. */
                            database: string;
                            /** @description ISO 8601 time within the source’s restore_window. */
                            timestamp: string;
                        };
                        /** @description Limits of the database; what is left out is the engine’s default. 422 past the engine’s maxima. */
                        limits?: {
                            /** @description A statement running longer is interrupted (SQLITE_INTERRUPT). Default 5000; at most what the engine allows (30000 by default). */
                            statement_timeout_ms?: number;
                            /** @description The size quota: a write that would grow the database past it fails (SQLITE_FULL). Default 1 GiB; at most what the engine allows (10 GiB by default). */
                            max_size_bytes?: number;
                            /** @description Rows statements may return per UTC day; once reached, every statement is refused (QUOTA_EXCEEDED) until midnight UTC. Default 100,000,000; at most what the engine allows (10,000,000,000 by default). */
                            rows_read_per_day?: number;
                            /** @description Rows statements may change per UTC day; once reached, writes are refused (QUOTA_EXCEEDED) until midnight UTC while reads still work. Default 10,000,000; at most what the engine allows (1,000,000,000 by default). */
                            rows_written_per_day?: number;
                        };
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            database_id: string;
                            database_url?: string;
                            /** @description The same endpoint over Hrana over WebSocket. */
                            database_ws_url?: string;
                            /** @description True when this request provisioned it; false when a database of this name existed (no token then). */
                            created: boolean;
                            /**
                             * @description provisioning until the engine serves it; restoring while a point-in-time restore copies its source; ready when it answers SQL; deleting while it and its copies are removed; failed when it cannot be provisioned (status_message says why).
                             * @enum {string}
                             */
                            status: "provisioning" | "restoring" | "ready" | "deleting" | "failed";
                            /** @description The connection token (Authorization: Bearer). Shown here once; only on creation and rotation. */
                            database_token?: string;
                            /**
                             * Format: date-time
                             * @description When database_token expires: never, unless the API token that created the database expires (then at the same time).
                             */
                            database_token_expires_at?: string;
                        };
                    };
                };
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            database_id: string;
                            database_url?: string;
                            /** @description The same endpoint over Hrana over WebSocket. */
                            database_ws_url?: string;
                            /** @description True when this request provisioned it; false when a database of this name existed (no token then). */
                            created: boolean;
                            /**
                             * @description provisioning until the engine serves it; restoring while a point-in-time restore copies its source; ready when it answers SQL; deleting while it and its copies are removed; failed when it cannot be provisioned (status_message says why).
                             * @enum {string}
                             */
                            status: "provisioning" | "restoring" | "ready" | "deleting" | "failed";
                            /** @description The connection token (Authorization: Bearer). Shown here once; only on creation and rotation. */
                            database_token?: string;
                            /**
                             * Format: date-time
                             * @description When database_token expires: never, unless the API token that created the database expires (then at the same time).
                             */
                            database_token_expires_at?: string;
                        };
                    };
                };
                /** @description Default Response */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            database_id: string;
                            database_url?: string;
                            /** @description The same endpoint over Hrana over WebSocket. */
                            database_ws_url?: string;
                            /** @description True when this request provisioned it; false when a database of this name existed (no token then). */
                            created: boolean;
                            /**
                             * @description provisioning until the engine serves it; restoring while a point-in-time restore copies its source; ready when it answers SQL; deleting while it and its copies are removed; failed when it cannot be provisioned (status_message says why).
                             * @enum {string}
                             */
                            status: "provisioning" | "restoring" | "ready" | "deleting" | "failed";
                            /** @description The connection token (Authorization: Bearer). Shown here once; only on creation and rotation. */
                            database_token?: string;
                            /**
                             * Format: date-time
                             * @description When database_token expires: never, unless the API token that created the database expires (then at the same time).
                             */
                            database_token_expires_at?: string;
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Error. */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description A dependency is unavailable; retry after `Retry-After` seconds. */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/databases/{database}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a database with its status, usage and restore window (never a token) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description The database’s name or its database_id. */
                    database: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            database: {
                                /** @description Stable identifier (also the tenant of the database_url). */
                                database_id: string;
                                /** @description Name given at creation. */
                                name: string;
                                /**
                                 * @description provisioning until the engine serves it; restoring while a point-in-time restore copies its source; ready when it answers SQL; deleting while it and its copies are removed; failed when it cannot be provisioned (status_message says why).
                                 * @enum {string}
                                 */
                                status: "provisioning" | "restoring" | "ready" | "deleting" | "failed";
                                /** @description ISO 8601 UTC timestamp. */
                                created_at: string;
                                /** @description SQL data endpoint {db_url}/v1/<tenant_id>, for @libsql/client with a database token. */
                                database_url?: string;
                                /** @description The same endpoint over Hrana over WebSocket (ws:// or wss://): what @libsql/client needs for interactive transactions that idle between statements. */
                                database_ws_url?: string;
                                /**
                                 * @description async (default): commits reach the object store within about a second, so losing the engine’s disk loses at most that; sync: a commit is acknowledged only once it is in the object store.
                                 * @enum {string}
                                 */
                                durability: "async" | "sync";
                                /** @description Why the database is not ready. */
                                status_message?: string;
                                usage: {
                                    /** @description Bytes on the engine’s disk (database and write-ahead log). */
                                    size_bytes: number;
                                    /** @description The size quota: writes past it fail (SQLITE_FULL). */
                                    size_quota_bytes?: number;
                                    /** @description Rows returned by statements since creation. */
                                    rows_read: number;
                                    /** @description Rows changed by statements since creation. */
                                    rows_written: number;
                                    /** @description When a statement last changed rows; null before any. */
                                    last_write_at: string | null;
                                    /** @description The current UTC day’s counts, as the engine last reported them. */
                                    today?: {
                                        /** @description The UTC day, YYYY-MM-DD. */
                                        day: string;
                                        /** @description Rows returned by statements since midnight UTC (the rows_read_per_day quota counts these). */
                                        rows_read: number;
                                        /** @description Rows changed by statements since midnight UTC (the rows_written_per_day quota counts these). */
                                        rows_written: number;
                                    };
                                };
                                /** @description The usage figures every five minutes over the last day, oldest first (rows are totals since creation). */
                                usage_history: {
                                    /** Format: date-time */
                                    at: string;
                                    size_bytes: number;
                                    rows_read: number;
                                    rows_written: number;
                                }[];
                                /** @description The limits the engine applies (those asked for, else its defaults); absent until it serves the database. */
                                limits?: {
                                    statement_timeout_ms: number;
                                    max_size_bytes: number;
                                    rows_read_per_day?: number;
                                    rows_written_per_day?: number;
                                };
                                /** @description Present while a quota refuses statements (the Database’s LimitReached condition). */
                                limit_reached?: {
                                    /**
                                     * @description The quota reached: the database's own, or the storage its project's databases may hold together on their cw-db server (project_storage_quota), or the free space that server keeps (disk_reserve).
                                     * @enum {string}
                                     */
                                    quota: "max_size_bytes" | "rows_read_per_day" | "rows_written_per_day" | "project_storage_quota" | "disk_reserve";
                                    /** @description What is refused, with the figures, and until when. */
                                    message: string;
                                };
                                /** @description The times point-in-time restore can reach (earliest: the oldest copy kept; latest: the newest commit shipped); null before the first copy. */
                                restore_window: {
                                    earliest?: string;
                                    latest?: string;
                                } | null;
                                restored_from?: {
                                    database: string;
                                    timestamp: string;
                                };
                                /** @description The last in-place restore and its outcome. */
                                last_restore?: {
                                    /** @description Restored, RestorePointUnavailable or InvalidRequest. */
                                    outcome: string;
                                    message: string;
                                    /**
                                     * Format: date-time
                                     * @description The time whose data the database holds since.
                                     */
                                    restored_to?: string;
                                    /**
                                     * Format: date-time
                                     * @description The state just before the restore: restore in place to it to undo the restore.
                                     */
                                    undo_point?: string;
                                    /** Format: date-time */
                                    handled_at: string;
                                };
                                /** @description An in-place restore is under way. */
                                restore_pending?: boolean;
                                /** @description The Secret with the minted token, for a database declared without tokens (kubectl, GitOps). */
                                token_secret?: string;
                            };
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /** Delete a database: its endpoint stops answering, its data and its copies in the object store are deleted, and its name can be used again. 204 once gone; 202 when still deleting after 10 s */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description The database’s name or its database_id. */
                    database: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            database: {
                                /** @description Stable identifier (also the tenant of the database_url). */
                                database_id: string;
                                /** @description Name given at creation. */
                                name: string;
                                /**
                                 * @description provisioning until the engine serves it; restoring while a point-in-time restore copies its source; ready when it answers SQL; deleting while it and its copies are removed; failed when it cannot be provisioned (status_message says why).
                                 * @enum {string}
                                 */
                                status: "provisioning" | "restoring" | "ready" | "deleting" | "failed";
                                /** @description ISO 8601 UTC timestamp. */
                                created_at: string;
                                /** @description SQL data endpoint {db_url}/v1/<tenant_id>, for @libsql/client with a database token. */
                                database_url?: string;
                                /** @description The same endpoint over Hrana over WebSocket (ws:// or wss://): what @libsql/client needs for interactive transactions that idle between statements. */
                                database_ws_url?: string;
                            };
                        };
                    };
                };
                /** @description Default Response */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        /** Change a database’s limits (statement time limit, size quota; what is left out goes back to the default, or keeps the value a GitOps tool applies). 200 once the engine applies them; 202 if that took over 10 s; 422 past what the engine allows (the database keeps the limits it had) */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description The database’s name or its database_id. */
                    database: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Limits of the database; what is left out is the engine’s default. 422 past the engine’s maxima. */
                        limits: {
                            /** @description A statement running longer is interrupted (SQLITE_INTERRUPT). Default 5000; at most what the engine allows (30000 by default). */
                            statement_timeout_ms?: number;
                            /** @description The size quota: a write that would grow the database past it fails (SQLITE_FULL). Default 1 GiB; at most what the engine allows (10 GiB by default). */
                            max_size_bytes?: number;
                            /** @description Rows statements may return per UTC day; once reached, every statement is refused (QUOTA_EXCEEDED) until midnight UTC. Default 100,000,000; at most what the engine allows (10,000,000,000 by default). */
                            rows_read_per_day?: number;
                            /** @description Rows statements may change per UTC day; once reached, writes are refused (QUOTA_EXCEEDED) until midnight UTC while reads still work. Default 10,000,000; at most what the engine allows (1,000,000,000 by default). */
                            rows_written_per_day?: number;
                        };
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            database: {
                                /** @description Stable identifier (also the tenant of the database_url). */
                                database_id: string;
                                /** @description Name given at creation. */
                                name: string;
                                /**
                                 * @description provisioning until the engine serves it; restoring while a point-in-time restore copies its source; ready when it answers SQL; deleting while it and its copies are removed; failed when it cannot be provisioned (status_message says why).
                                 * @enum {string}
                                 */
                                status: "provisioning" | "restoring" | "ready" | "deleting" | "failed";
                                /** @description ISO 8601 UTC timestamp. */
                                created_at: string;
                                /** @description SQL data endpoint {db_url}/v1/<tenant_id>, for @libsql/client with a database token. */
                                database_url?: string;
                                /** @description The same endpoint over Hrana over WebSocket (ws:// or wss://): what @libsql/client needs for interactive transactions that idle between statements. */
                                database_ws_url?: string;
                                /**
                                 * @description async (default): commits reach the object store within about a second, so losing the engine’s disk loses at most that; sync: a commit is acknowledged only once it is in the object store.
                                 * @enum {string}
                                 */
                                durability: "async" | "sync";
                                /** @description Why the database is not ready. */
                                status_message?: string;
                                usage: {
                                    /** @description Bytes on the engine’s disk (database and write-ahead log). */
                                    size_bytes: number;
                                    /** @description The size quota: writes past it fail (SQLITE_FULL). */
                                    size_quota_bytes?: number;
                                    /** @description Rows returned by statements since creation. */
                                    rows_read: number;
                                    /** @description Rows changed by statements since creation. */
                                    rows_written: number;
                                    /** @description When a statement last changed rows; null before any. */
                                    last_write_at: string | null;
                                    /** @description The current UTC day’s counts, as the engine last reported them. */
                                    today?: {
                                        /** @description The UTC day, YYYY-MM-DD. */
                                        day: string;
                                        /** @description Rows returned by statements since midnight UTC (the rows_read_per_day quota counts these). */
                                        rows_read: number;
                                        /** @description Rows changed by statements since midnight UTC (the rows_written_per_day quota counts these). */
                                        rows_written: number;
                                    };
                                };
                                /** @description The usage figures every five minutes over the last day, oldest first (rows are totals since creation). */
                                usage_history: {
                                    /** Format: date-time */
                                    at: string;
                                    size_bytes: number;
                                    rows_read: number;
                                    rows_written: number;
                                }[];
                                /** @description The limits the engine applies (those asked for, else its defaults); absent until it serves the database. */
                                limits?: {
                                    statement_timeout_ms: number;
                                    max_size_bytes: number;
                                    rows_read_per_day?: number;
                                    rows_written_per_day?: number;
                                };
                                /** @description Present while a quota refuses statements (the Database’s LimitReached condition). */
                                limit_reached?: {
                                    /**
                                     * @description The quota reached: the database's own, or the storage its project's databases may hold together on their cw-db server (project_storage_quota), or the free space that server keeps (disk_reserve).
                                     * @enum {string}
                                     */
                                    quota: "max_size_bytes" | "rows_read_per_day" | "rows_written_per_day" | "project_storage_quota" | "disk_reserve";
                                    /** @description What is refused, with the figures, and until when. */
                                    message: string;
                                };
                                /** @description The times point-in-time restore can reach (earliest: the oldest copy kept; latest: the newest commit shipped); null before the first copy. */
                                restore_window: {
                                    earliest?: string;
                                    latest?: string;
                                } | null;
                                restored_from?: {
                                    database: string;
                                    timestamp: string;
                                };
                                /** @description The last in-place restore and its outcome. */
                                last_restore?: {
                                    /** @description Restored, RestorePointUnavailable or InvalidRequest. */
                                    outcome: string;
                                    message: string;
                                    /**
                                     * Format: date-time
                                     * @description The time whose data the database holds since.
                                     */
                                    restored_to?: string;
                                    /**
                                     * Format: date-time
                                     * @description The state just before the restore: restore in place to it to undo the restore.
                                     */
                                    undo_point?: string;
                                    /** Format: date-time */
                                    handled_at: string;
                                };
                                /** @description An in-place restore is under way. */
                                restore_pending?: boolean;
                                /** @description The Secret with the minted token, for a database declared without tokens (kubectl, GitOps). */
                                token_secret?: string;
                            };
                        };
                    };
                };
                /** @description Default Response */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            database: {
                                /** @description Stable identifier (also the tenant of the database_url). */
                                database_id: string;
                                /** @description Name given at creation. */
                                name: string;
                                /**
                                 * @description provisioning until the engine serves it; restoring while a point-in-time restore copies its source; ready when it answers SQL; deleting while it and its copies are removed; failed when it cannot be provisioned (status_message says why).
                                 * @enum {string}
                                 */
                                status: "provisioning" | "restoring" | "ready" | "deleting" | "failed";
                                /** @description ISO 8601 UTC timestamp. */
                                created_at: string;
                                /** @description SQL data endpoint {db_url}/v1/<tenant_id>, for @libsql/client with a database token. */
                                database_url?: string;
                                /** @description The same endpoint over Hrana over WebSocket (ws:// or wss://): what @libsql/client needs for interactive transactions that idle between statements. */
                                database_ws_url?: string;
                                /**
                                 * @description async (default): commits reach the object store within about a second, so losing the engine’s disk loses at most that; sync: a commit is acknowledged only once it is in the object store.
                                 * @enum {string}
                                 */
                                durability: "async" | "sync";
                                /** @description Why the database is not ready. */
                                status_message?: string;
                                usage: {
                                    /** @description Bytes on the engine’s disk (database and write-ahead log). */
                                    size_bytes: number;
                                    /** @description The size quota: writes past it fail (SQLITE_FULL). */
                                    size_quota_bytes?: number;
                                    /** @description Rows returned by statements since creation. */
                                    rows_read: number;
                                    /** @description Rows changed by statements since creation. */
                                    rows_written: number;
                                    /** @description When a statement last changed rows; null before any. */
                                    last_write_at: string | null;
                                    /** @description The current UTC day’s counts, as the engine last reported them. */
                                    today?: {
                                        /** @description The UTC day, YYYY-MM-DD. */
                                        day: string;
                                        /** @description Rows returned by statements since midnight UTC (the rows_read_per_day quota counts these). */
                                        rows_read: number;
                                        /** @description Rows changed by statements since midnight UTC (the rows_written_per_day quota counts these). */
                                        rows_written: number;
                                    };
                                };
                                /** @description The usage figures every five minutes over the last day, oldest first (rows are totals since creation). */
                                usage_history: {
                                    /** Format: date-time */
                                    at: string;
                                    size_bytes: number;
                                    rows_read: number;
                                    rows_written: number;
                                }[];
                                /** @description The limits the engine applies (those asked for, else its defaults); absent until it serves the database. */
                                limits?: {
                                    statement_timeout_ms: number;
                                    max_size_bytes: number;
                                    rows_read_per_day?: number;
                                    rows_written_per_day?: number;
                                };
                                /** @description Present while a quota refuses statements (the Database’s LimitReached condition). */
                                limit_reached?: {
                                    /**
                                     * @description The quota reached: the database's own, or the storage its project's databases may hold together on their cw-db server (project_storage_quota), or the free space that server keeps (disk_reserve).
                                     * @enum {string}
                                     */
                                    quota: "max_size_bytes" | "rows_read_per_day" | "rows_written_per_day" | "project_storage_quota" | "disk_reserve";
                                    /** @description What is refused, with the figures, and until when. */
                                    message: string;
                                };
                                /** @description The times point-in-time restore can reach (earliest: the oldest copy kept; latest: the newest commit shipped); null before the first copy. */
                                restore_window: {
                                    earliest?: string;
                                    latest?: string;
                                } | null;
                                restored_from?: {
                                    database: string;
                                    timestamp: string;
                                };
                                /** @description The last in-place restore and its outcome. */
                                last_restore?: {
                                    /** @description Restored, RestorePointUnavailable or InvalidRequest. */
                                    outcome: string;
                                    message: string;
                                    /**
                                     * Format: date-time
                                     * @description The time whose data the database holds since.
                                     */
                                    restored_to?: string;
                                    /**
                                     * Format: date-time
                                     * @description The state just before the restore: restore in place to it to undo the restore.
                                     */
                                    undo_point?: string;
                                    /** Format: date-time */
                                    handled_at: string;
                                };
                                /** @description An in-place restore is under way. */
                                restore_pending?: boolean;
                                /** @description The Secret with the minted token, for a database declared without tokens (kubectl, GitOps). */
                                token_secret?: string;
                            };
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Error. */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/v1/projects/{projectId}/databases/{database}/restore": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Restore a database IN PLACE to its data at timestamp (within restore_window), keeping its id, URL and tokens. Open transactions are rolled back (DATABASE_RESTORED); requests arriving meanwhile wait and then run on the restored data. 200 with undo_point, the state just before: restore to it to undo. 202 when still restoring after 60 s; 409 while another restore runs; 422 outside the window */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description The database’s name or its database_id. */
                    database: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /**
                         * Format: date-time
                         * @description Restore the data as it was at this time (RFC 3339), within the database’s restore_window.
                         */
                        timestamp: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            database: {
                                /** @description Stable identifier (also the tenant of the database_url). */
                                database_id: string;
                                /** @description Name given at creation. */
                                name: string;
                                /**
                                 * @description provisioning until the engine serves it; restoring while a point-in-time restore copies its source; ready when it answers SQL; deleting while it and its copies are removed; failed when it cannot be provisioned (status_message says why).
                                 * @enum {string}
                                 */
                                status: "provisioning" | "restoring" | "ready" | "deleting" | "failed";
                                /** @description ISO 8601 UTC timestamp. */
                                created_at: string;
                                /** @description SQL data endpoint {db_url}/v1/<tenant_id>, for @libsql/client with a database token. */
                                database_url?: string;
                                /** @description The same endpoint over Hrana over WebSocket (ws:// or wss://): what @libsql/client needs for interactive transactions that idle between statements. */
                                database_ws_url?: string;
                                /**
                                 * @description async (default): commits reach the object store within about a second, so losing the engine’s disk loses at most that; sync: a commit is acknowledged only once it is in the object store.
                                 * @enum {string}
                                 */
                                durability: "async" | "sync";
                                /** @description Why the database is not ready. */
                                status_message?: string;
                                usage: {
                                    /** @description Bytes on the engine’s disk (database and write-ahead log). */
                                    size_bytes: number;
                                    /** @description The size quota: writes past it fail (SQLITE_FULL). */
                                    size_quota_bytes?: number;
                                    /** @description Rows returned by statements since creation. */
                                    rows_read: number;
                                    /** @description Rows changed by statements since creation. */
                                    rows_written: number;
                                    /** @description When a statement last changed rows; null before any. */
                                    last_write_at: string | null;
                                    /** @description The current UTC day’s counts, as the engine last reported them. */
                                    today?: {
                                        /** @description The UTC day, YYYY-MM-DD. */
                                        day: string;
                                        /** @description Rows returned by statements since midnight UTC (the rows_read_per_day quota counts these). */
                                        rows_read: number;
                                        /** @description Rows changed by statements since midnight UTC (the rows_written_per_day quota counts these). */
                                        rows_written: number;
                                    };
                                };
                                /** @description The usage figures every five minutes over the last day, oldest first (rows are totals since creation). */
                                usage_history: {
                                    /** Format: date-time */
                                    at: string;
                                    size_bytes: number;
                                    rows_read: number;
                                    rows_written: number;
                                }[];
                                /** @description The limits the engine applies (those asked for, else its defaults); absent until it serves the database. */
                                limits?: {
                                    statement_timeout_ms: number;
                                    max_size_bytes: number;
                                    rows_read_per_day?: number;
                                    rows_written_per_day?: number;
                                };
                                /** @description Present while a quota refuses statements (the Database’s LimitReached condition). */
                                limit_reached?: {
                                    /**
                                     * @description The quota reached: the database's own, or the storage its project's databases may hold together on their cw-db server (project_storage_quota), or the free space that server keeps (disk_reserve).
                                     * @enum {string}
                                     */
                                    quota: "max_size_bytes" | "rows_read_per_day" | "rows_written_per_day" | "project_storage_quota" | "disk_reserve";
                                    /** @description What is refused, with the figures, and until when. */
                                    message: string;
                                };
                                /** @description The times point-in-time restore can reach (earliest: the oldest copy kept; latest: the newest commit shipped); null before the first copy. */
                                restore_window: {
                                    earliest?: string;
                                    latest?: string;
                                } | null;
                                restored_from?: {
                                    database: string;
                                    timestamp: string;
                                };
                                /** @description The last in-place restore and its outcome. */
                                last_restore?: {
                                    /** @description Restored, RestorePointUnavailable or InvalidRequest. */
                                    outcome: string;
                                    message: string;
                                    /**
                                     * Format: date-time
                                     * @description The time whose data the database holds since.
                                     */
                                    restored_to?: string;
                                    /**
                                     * Format: date-time
                                     * @description The state just before the restore: restore in place to it to undo the restore.
                                     */
                                    undo_point?: string;
                                    /** Format: date-time */
                                    handled_at: string;
                                };
                                /** @description An in-place restore is under way. */
                                restore_pending?: boolean;
                                /** @description The Secret with the minted token, for a database declared without tokens (kubectl, GitOps). */
                                token_secret?: string;
                            };
                            /**
                             * Format: date-time
                             * @description The time whose data the database now holds (absent in a 202: still restoring).
                             */
                            restored_to?: string;
                            /**
                             * Format: date-time
                             * @description The state just before this restore, as a restore point: restore in place to it to undo the restore.
                             */
                            undo_point?: string;
                        };
                    };
                };
                /** @description Default Response */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            database: {
                                /** @description Stable identifier (also the tenant of the database_url). */
                                database_id: string;
                                /** @description Name given at creation. */
                                name: string;
                                /**
                                 * @description provisioning until the engine serves it; restoring while a point-in-time restore copies its source; ready when it answers SQL; deleting while it and its copies are removed; failed when it cannot be provisioned (status_message says why).
                                 * @enum {string}
                                 */
                                status: "provisioning" | "restoring" | "ready" | "deleting" | "failed";
                                /** @description ISO 8601 UTC timestamp. */
                                created_at: string;
                                /** @description SQL data endpoint {db_url}/v1/<tenant_id>, for @libsql/client with a database token. */
                                database_url?: string;
                                /** @description The same endpoint over Hrana over WebSocket (ws:// or wss://): what @libsql/client needs for interactive transactions that idle between statements. */
                                database_ws_url?: string;
                                /**
                                 * @description async (default): commits reach the object store within about a second, so losing the engine’s disk loses at most that; sync: a commit is acknowledged only once it is in the object store.
                                 * @enum {string}
                                 */
                                durability: "async" | "sync";
                                /** @description Why the database is not ready. */
                                status_message?: string;
                                usage: {
                                    /** @description Bytes on the engine’s disk (database and write-ahead log). */
                                    size_bytes: number;
                                    /** @description The size quota: writes past it fail (SQLITE_FULL). */
                                    size_quota_bytes?: number;
                                    /** @description Rows returned by statements since creation. */
                                    rows_read: number;
                                    /** @description Rows changed by statements since creation. */
                                    rows_written: number;
                                    /** @description When a statement last changed rows; null before any. */
                                    last_write_at: string | null;
                                    /** @description The current UTC day’s counts, as the engine last reported them. */
                                    today?: {
                                        /** @description The UTC day, YYYY-MM-DD. */
                                        day: string;
                                        /** @description Rows returned by statements since midnight UTC (the rows_read_per_day quota counts these). */
                                        rows_read: number;
                                        /** @description Rows changed by statements since midnight UTC (the rows_written_per_day quota counts these). */
                                        rows_written: number;
                                    };
                                };
                                /** @description The usage figures every five minutes over the last day, oldest first (rows are totals since creation). */
                                usage_history: {
                                    /** Format: date-time */
                                    at: string;
                                    size_bytes: number;
                                    rows_read: number;
                                    rows_written: number;
                                }[];
                                /** @description The limits the engine applies (those asked for, else its defaults); absent until it serves the database. */
                                limits?: {
                                    statement_timeout_ms: number;
                                    max_size_bytes: number;
                                    rows_read_per_day?: number;
                                    rows_written_per_day?: number;
                                };
                                /** @description Present while a quota refuses statements (the Database’s LimitReached condition). */
                                limit_reached?: {
                                    /**
                                     * @description The quota reached: the database's own, or the storage its project's databases may hold together on their cw-db server (project_storage_quota), or the free space that server keeps (disk_reserve).
                                     * @enum {string}
                                     */
                                    quota: "max_size_bytes" | "rows_read_per_day" | "rows_written_per_day" | "project_storage_quota" | "disk_reserve";
                                    /** @description What is refused, with the figures, and until when. */
                                    message: string;
                                };
                                /** @description The times point-in-time restore can reach (earliest: the oldest copy kept; latest: the newest commit shipped); null before the first copy. */
                                restore_window: {
                                    earliest?: string;
                                    latest?: string;
                                } | null;
                                restored_from?: {
                                    database: string;
                                    timestamp: string;
                                };
                                /** @description The last in-place restore and its outcome. */
                                last_restore?: {
                                    /** @description Restored, RestorePointUnavailable or InvalidRequest. */
                                    outcome: string;
                                    message: string;
                                    /**
                                     * Format: date-time
                                     * @description The time whose data the database holds since.
                                     */
                                    restored_to?: string;
                                    /**
                                     * Format: date-time
                                     * @description The state just before the restore: restore in place to it to undo the restore.
                                     */
                                    undo_point?: string;
                                    /** Format: date-time */
                                    handled_at: string;
                                };
                                /** @description An in-place restore is under way. */
                                restore_pending?: boolean;
                                /** @description The Secret with the minted token, for a database declared without tokens (kubectl, GitOps). */
                                token_secret?: string;
                            };
                            /**
                             * Format: date-time
                             * @description The time whose data the database now holds (absent in a 202: still restoring).
                             */
                            restored_to?: string;
                            /**
                             * Format: date-time
                             * @description The state just before this restore, as a restore point: restore in place to it to undo the restore.
                             */
                            undo_point?: string;
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Error. */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/databases/{database}/tokens/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Rotate the database token: a new database_token (shown once; read-only or expiring if asked), and every earlier token of the database, query tokens included, is refused once the engine has it (200; 202 if that took over 10 s) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description The database’s name or its database_id. */
                    database: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The token can read but not write (default false). */
                        read_only?: boolean;
                        /** @description The token stops working this long from now (default: never). */
                        expires_in_seconds?: number;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description The new connection token. Every earlier token of the database (query tokens too) is refused from now on. */
                            database_token: string;
                            token_id: string;
                            read_only: boolean;
                            /**
                             * Format: date-time
                             * @description As asked, but never later than the API token that made it expires.
                             */
                            expires_at?: string;
                        };
                    };
                };
                /** @description Default Response */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description The new connection token. Every earlier token of the database (query tokens too) is refused from now on. */
                            database_token: string;
                            token_id: string;
                            read_only: boolean;
                            /**
                             * Format: date-time
                             * @description As asked, but never later than the API token that made it expires.
                             */
                            expires_at?: string;
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/databases/{database}/query-tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create a query token for the query route (shown once; read-only and expiring if asked). Earlier tokens keep working; a rotation revokes them all. 409 past 32 live tokens */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description The database’s name or its database_id. */
                    database: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The token can read but not write (default false). */
                        read_only?: boolean;
                        /** @description The token stops working this long from now (default: never). */
                        expires_in_seconds?: number;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description A token for the query route (and for @libsql/client); shown once. Revoked with every other by a rotation. */
                            query_token: string;
                            token_id: string;
                            read_only: boolean;
                            /**
                             * Format: date-time
                             * @description As asked, but never later than the API token that made it expires.
                             */
                            expires_at?: string;
                        };
                    };
                };
                /** @description Default Response */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description A token for the query route (and for @libsql/client); shown once. Revoked with every other by a rotation. */
                            query_token: string;
                            token_id: string;
                            read_only: boolean;
                            /**
                             * Format: date-time
                             * @description As asked, but never later than the API token that made it expires.
                             */
                            expires_at?: string;
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/databases/{database}/query": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Run SQL with a query token (Authorization: Bearer <query_token>): {sql, params} for one statement, or {statements: [{sql, params}]} for several in one transaction. Rows come back as JSON values (integers beyond 2^53 as strings, blobs as {base64}). 400 for a SQL error (nothing of the batch is kept), 401 for a token that is not this database’s, 429 or 503 with Retry-After when the engine did not run them (the project’s share of the engine busy; the database locked by another transaction, moving or restarting), 413 for statements too large; 502 or 504 without Retry-After when they ran or may have (the engine failed or restarted while running them, or answered too late or more than the API reads; a synchronous database’s commit applied but not yet in the object store): the detail says which, and they are not to be run again unchecked */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description The database’s name or its database_id. */
                    database: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description One statement. */
                        sql?: string;
                        /** @description Positional ([…]) or named ({"name": …}) parameters. */
                        params?: unknown[] | {
                            [key: string]: unknown;
                        };
                        /** @description Several statements, run as one transaction (all or nothing). */
                        statements?: {
                            sql: string;
                            /** @description Positional ([…]) or named ({"name": …}) parameters. */
                            params?: unknown[] | {
                                [key: string]: unknown;
                            };
                        }[];
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            results: {
                                columns: string[];
                                rows: unknown[][];
                                rows_read: number;
                                rows_written: number;
                                changes: number;
                                last_insert_id: number | string | null;
                            }[];
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Error. */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description A dependency is unavailable; retry after `Retry-After` seconds. */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Error. */
                504: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/databases/{database}/migrations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Apply a migrations folder with a query token (Authorization: Bearer <query_token>, not read-only): the files not yet recorded in the database’s _cw_migrations table, in the order of their names, each in a transaction; the first that fails stops the run and is named with its statement and SQLite’s message (nothing of it kept). dry_run only lists the pending files. The same table as deploys’ migrations: neither applies what the other did. 409 when an applied file changed */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description The database’s name or its database_id. */
                    database: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The migrations folder, every file (those applied already are skipped by name and checked by checksum). */
                        files: {
                            /** @description File name, e.g. 0001_init.sql: they apply in the order of their names. */
                            name: string;
                            /** @description The file’s statements. */
                            sql: string;
                        }[];
                        /** @description Only list the pending files. */
                        dry_run?: boolean;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Files not applied before this call, in order. */
                            pending: string[];
                            /** @description Files this call applied (none in a dry run). */
                            applied: string[];
                            failed?: {
                                /** @description The file that failed. */
                                file: string;
                                /** @description The statement that failed (cut at 1 KiB). */
                                statement: string;
                                /** @description SQLite’s message. */
                                message: string;
                            };
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description A dependency is unavailable; retry after `Retry-After` seconds. */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/git-tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the project’s git tokens, every member’s, newest first (revoked and expired ones included; never their values) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description The repository service as users reach it (CW_GIT_PUBLIC_URL); the project’s repositories are `{git_url}/{project_id}/{repository}`. null when the platform does not say. */
                            git_url: string | null;
                            tokens: {
                                /** @description Stable id of the token (never the token itself); use it to revoke. */
                                token_id: string;
                                description: string;
                                scopes: ("read" | "write")[];
                                /** @description The member who made it: it works only while they are a member of the project, and acts as them (the pusher of its pushes). */
                                user: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC timestamp.
                                 */
                                created_at: string;
                                /**
                                 * Format: date-time
                                 * @description From this instant on the token is refused; null: it does not expire.
                                 */
                                expires_at: string | null;
                                /** @enum {string} */
                                state: "active" | "expired" | "revoked";
                            }[];
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /**
         * Make a git token for the project’s repositories (clone, fetch and, with write, push; LFS and the repository API too)
         * @description The response carries the token itself in `git_token`; it is never shown again (listings carry only `token_id`). It reaches only this project’s repositories (`{git_url}/{project_id}/…`), acts as the caller, and works only while the caller is a member. Needs `tokens:write`, and `repositories:read` for the read scope or `repositories:write` for write; it expires no later than the calling token. A project holds at most 100 live git tokens (409 past that).
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description What the token is for, shown in listings (not blank; no control characters or bidirectional overrides). */
                        description: string;
                        /** @description What the token may do with the project’s repositories. */
                        scopes: ("read" | "write")[];
                        /** @description Lifetime in seconds (60 s to 366 days); omit for a token that does not expire. Never later than the calling token’s own expiry. */
                        expires_in_seconds?: number;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description A git token as listings show it: never its value, never its hash. */
                            token: {
                                /** @description Stable id of the token (never the token itself); use it to revoke. */
                                token_id: string;
                                description: string;
                                scopes: ("read" | "write")[];
                                /** @description The member who made it: it works only while they are a member of the project, and acts as them (the pusher of its pushes). */
                                user: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC timestamp.
                                 */
                                created_at: string;
                                /**
                                 * Format: date-time
                                 * @description From this instant on the token is refused; null: it does not expire.
                                 */
                                expires_at: string | null;
                                /** @enum {string} */
                                state: "active" | "expired" | "revoked";
                            };
                            /** @description The token itself (`cwg_…`), the password of any user name for git and git-lfs (or `Authorization: Bearer`). Returned only in this response; store it now, it cannot be shown again. */
                            git_token: string;
                            /** @description The repository service as users reach it (CW_GIT_PUBLIC_URL); the project’s repositories are `{git_url}/{project_id}/{repository}`. null when the platform does not say. */
                            git_url: string | null;
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Conflicts with the current state; `detail` says with what. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/git-tokens/{tokenId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke a git token of the project: your own, or any as an owner of the project
         * @description Revocation is final; revoking a revoked token succeeds again. The repository service refuses it as soon as it sees the change (normally within a second).
         */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                    /** @description The token id (`gtk-…`), as listed. */
                    tokenId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Revoked. */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The project’s audit trail: who changed what and when, newest first
         * @description Every request through this API that changed (or tried to change) the project, its apps (deploys, rollbacks, environment, hostnames), domains, DNS records, databases and git tokens, with its principal, request id and status code. Entries are kept for a retention the platform sets (default 90 days and 10,000 entries per project), after the project’s deletion too (administrators read those). Changes made with kubectl do not pass through the API and are not here: Kubernetes audit logging records them.
         */
        get: {
            parameters: {
                query?: {
                    /** @description Entries per page (default 50, at most 100). */
                    limit?: number;
                    /** @description The `next` of the previous page: continue after it. */
                    cursor?: string;
                    /** @description Only entries about this kind of resource. */
                    resource_type?: "project" | "member" | "app" | "environment_variable" | "hostname" | "domain" | "dns_record" | "database" | "git_token";
                };
                header?: never;
                path: {
                    /** @description Project id: lowercase letters, digits and dashes (a DNS label); also the name of its namespace. */
                    projectId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Newest first. */
                            entries: {
                                /** @description Unique and time-ordered. */
                                id: string;
                                /**
                                 * Format: date-time
                                 * @description When the API received the request (ISO 8601 UTC).
                                 */
                                time: string;
                                project_id: string;
                                /** @description Who made the request. */
                                principal: {
                                    user_id: string;
                                    /** @description The id of the token or console session that made the request, never the token. */
                                    token_id: string;
                                    /** @description The token’s description; null when the token was gone by then. */
                                    token_name: string | null;
                                    /**
                                     * @description A console sign-in or an access token.
                                     * @enum {string}
                                     */
                                    kind: "session" | "access_token";
                                };
                                /** @description `<resource type>.<verb>`, such as `app.deploy`, `environment_variable.set`, `dns_record.delete`. */
                                action: string;
                                /** @description What the request acted on. */
                                resource: {
                                    /** @enum {string} */
                                    type: "project" | "member" | "app" | "environment_variable" | "hostname" | "domain" | "dns_record" | "database" | "git_token";
                                    /** @description The resource’s id (an environment variable’s key, a hostname, a record id); null for a create that made none. */
                                    id: string | null;
                                    /** @description The app, for environment variables and hostnames. */
                                    app_id?: string;
                                    /** @description The project domain, for DNS records. */
                                    domain?: string;
                                };
                                /** @description Names and options of the request (a deploy’s host names, a record’s name and type, a git token’s scopes): never values that could be secret. */
                                details: {
                                    [key: string]: unknown;
                                };
                                method: string;
                                /** @description The request’s path, without its query. */
                                path: string;
                                /** @description The request’s x-request-id, as its answer and the API’s log carry it. */
                                request_id: string;
                                /** @description The answer’s status code; null while the request runs, or when its answer could not be recorded. */
                                status: number | null;
                            }[];
                            /** @description Pass as `cursor` for the next page; null at the end. */
                            next: string | null;
                        };
                    };
                };
                /** @description The request is invalid; `detail` names the offending field. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, malformed, unknown, expired or revoked token (`WWW-Authenticate: Bearer`). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The token lacks the scope this route needs, or the project is not one of the caller’s. */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such resource. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description A dependency is unavailable; retry after `Retry-After` seconds. */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/device/code": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start a device sign-in (RFC 8628 device authorization request)
         * @description Public. Send `scope` (space-separated scope names) as JSON or as a form body. Show the user `user_code` and `verification_uri`, then poll `POST /v1/device/token`. Errors here are problem details; a 400 also carries the OAuth members `error` (`invalid_scope` or `invalid_request`) and `error_description`, which OAuth clients read (RFC 8628 §3.2). Limited to 10 sign-ins at once and one every 10 s after that per client address (429), and per API process to 1000 within a code lifetime (503).
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            /** @description Unrecognized parameters are ignored (RFC 6749 §3.2). */
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The scopes the device asks for, separated by spaces (the OAuth `scope` parameter), e.g. `projects:read apps:write`. */
                        scope: string;
                        /** @description Accepted and ignored: the API registers no OAuth clients. */
                        client_id?: string;
                    } & {
                        [key: string]: unknown;
                    };
                    "application/x-www-form-urlencoded": {
                        /** @description The scopes the device asks for, separated by spaces (the OAuth `scope` parameter), e.g. `projects:read apps:write`. */
                        scope: string;
                        /** @description Accepted and ignored: the API registers no OAuth clients. */
                        client_id?: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            responses: {
                /** @description The RFC 8628 §3.2 device authorization response (unwrapped, as OAuth clients expect). */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description The device keeps this secret and polls `POST /v1/device/token` with it. */
                            device_code: string;
                            /** @description What the user types on the verification page, `XXXX-XXXX`. */
                            user_code: string;
                            /** @description Where the user approves the sign-in. */
                            verification_uri: string;
                            /** @description The verification URI with the user code filled in (for a link or QR code). */
                            verification_uri_complete: string;
                            /** @description Seconds until the codes expire. */
                            expires_in: number;
                            /** @description Minimum seconds between two polls of the token endpoint. */
                            interval: number;
                        };
                    };
                };
                /** @description Invalid request or unknown scope. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"] & {
                            /** @description RFC 6749 §5.2 error code: `invalid_scope` for an unknown or missing scope, `invalid_request` for anything else. */
                            error: "invalid_scope" | "invalid_request";
                            /** @description The same as `detail`. */
                            error_description: string;
                        };
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Too many requests; retry after `Retry-After` seconds. */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description A dependency is unavailable; retry after `Retry-After` seconds. */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/device/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Poll for the token of a device sign-in (RFC 8628 device access token request)
         * @description Public. Form or JSON body with `grant_type=urn:ietf:params:oauth:grant-type:device_code` and `device_code`. Until the user answers, 400 with `error` `authorization_pending` (or `slow_down`: polled too fast). Unlike every other route, 400 answers carry an OAuth error body `{error, error_description}` instead of a problem detail (RFC 8628 §3.5), because OAuth clients branch on `error`.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            /** @description Unrecognized parameters are ignored (RFC 6749 §3.2). */
            requestBody: {
                content: {
                    "application/json": {
                        /** @enum {string} */
                        grant_type: "urn:ietf:params:oauth:grant-type:device_code";
                        /** @description The `device_code` from `POST /v1/device/code`. */
                        device_code: string;
                        /** @description Accepted and ignored: the API registers no OAuth clients. */
                        client_id?: string;
                    } & {
                        [key: string]: unknown;
                    };
                    "application/x-www-form-urlencoded": {
                        /** @enum {string} */
                        grant_type: "urn:ietf:params:oauth:grant-type:device_code";
                        /** @description The `device_code` from `POST /v1/device/code`. */
                        device_code: string;
                        /** @description Accepted and ignored: the API registers no OAuth clients. */
                        client_id?: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            responses: {
                /** @description RFC 6749 §5.1 access token response. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description A `cwt_` token acting as the approving user. Returned once. */
                            access_token: string;
                            /** @enum {string} */
                            token_type: "Bearer";
                            /** @description The granted scopes, separated by spaces. */
                            scope: string;
                            /** @description Seconds until the token expires; absent when it does not. */
                            expires_in?: number;
                        };
                    };
                };
                /** @description OAuth error (RFC 8628 §3.5), the one exception to problem details in this API: `authorization_pending` (poll again after `interval`), `slow_down` (add 5 s to the interval for good), `access_denied`, `expired_token` (start over), `invalid_grant` (unknown device code, or its token was already handed out), `invalid_request` (missing or extra parameters), `unsupported_grant_type`. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description RFC 8628 §3.5 / RFC 6749 §5.2 error code; clients branch on it. */
                            error: "authorization_pending" | "slow_down" | "access_denied" | "expired_token" | "invalid_grant" | "invalid_request" | "unsupported_grant_type";
                            /** @description The same in words. */
                            error_description: string;
                        };
                    };
                };
                /** @description The body is larger than this route accepts; `detail` gives the limit. */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body’s content type is not one this route accepts. */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The request line and headers together are larger than the server accepts (a very long URL, or too many or too large headers). */
                431: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The server failed; nothing internal is disclosed. */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description RFC 9457 problem details (application/problem+json). */
        Problem: {
            /** @description Short summary of the status code, e.g. Not Found. */
            title: string;
            /** @description The HTTP status code, repeated. */
            status: number;
            /** @description What went wrong with this request, in words a person can act on. */
            detail: string;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
