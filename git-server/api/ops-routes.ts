// The repository's operational routes: its overview (`read`), the operations (`GET` read, `POST` write) and the
// tasks they run on this instance (`read`).
import type { RepoApiRoutes } from './index.ts';
import { opsRoutes } from './ops.ts';
import { overviewRoutes } from './overview.ts';
import { tasksRoutes } from './tasks.ts';

export const OPS_ROUTES: readonly RepoApiRoutes[] = [overviewRoutes, opsRoutes, tasksRoutes];
