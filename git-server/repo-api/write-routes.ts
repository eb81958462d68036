// The write routes of the JSON API (`write` scope): both lanes get them; the browser lane refuses writes from
// origins outside `server.cors_origins` before any of them runs.
import type { RepoApiRoutes } from './index.ts';
import { commitsWriteRoutes } from './write/commits-write.ts';
import { headWriteRoutes } from './write/head-write.ts';
import { importWriteRoutes } from './write/import-write.ts';
import { initializeWriteRoutes } from './write/initialize-write.ts';
import { mergesWriteRoutes } from './write/merges-write.ts';
import { refsWriteRoutes } from './write/refs-write.ts';

export const WRITE_ROUTES: readonly RepoApiRoutes[] = [refsWriteRoutes, headWriteRoutes, commitsWriteRoutes, mergesWriteRoutes, initializeWriteRoutes, importWriteRoutes];
