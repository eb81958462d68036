// The read routes of the JSON API (`read` scope), in the order the reference lists them.
import { commitRoutes } from './commit.ts';
import { commitsRoutes } from './commits.ts';
import { compareRoutes } from './compare.ts';
import type { RepoApiRoutes } from './index.ts';
import { summaryRoutes } from './summary.ts';

export const READ_ROUTES: readonly RepoApiRoutes[] = [summaryRoutes, commitsRoutes, commitRoutes, compareRoutes];
