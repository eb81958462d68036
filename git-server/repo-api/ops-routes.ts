// The repository's operational routes: its overview (`read`), the operations (`GET` read, `POST` write), the
// tasks they run on this instance (`read`), and its per-repository webhooks with their delivery logs.
import { hooksRoutes } from './hooks.ts';
import type { RepoApiRoutes } from './index.ts';
import { opsRoutes } from './ops.ts';
import { overviewRoutes } from './overview.ts';
import { tasksRoutes } from './tasks.ts';

export const OPS_ROUTES: readonly RepoApiRoutes[] = [overviewRoutes, opsRoutes, tasksRoutes, hooksRoutes];
