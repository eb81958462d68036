// The read routes of the JSON API (`read` scope), in the order the reference lists them.
import { archiveRoutes } from './archive.ts';
import type { RepoApiRoutes } from './index.ts';
import { summaryRoutes } from './summary.ts';

export const READ_ROUTES: readonly RepoApiRoutes[] = [summaryRoutes, archiveRoutes];
