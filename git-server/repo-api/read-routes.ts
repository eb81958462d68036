// The read routes of the JSON API (`read` scope), in the order the reference lists them.
import { archiveRoutes } from './archive.ts';
import { blobRoutes } from './blob.ts';
import { commitRoutes } from './commit.ts';
import { commitsRoutes } from './commits.ts';
import { compareRoutes } from './compare.ts';
import type { RepoApiRoutes } from './index.ts';
import { refsRoutes } from './refs.ts';
import { resolveRoutes } from './resolve.ts';
import { summaryRoutes } from './summary.ts';
import { treeRoutes } from './tree.ts';

export const READ_ROUTES: readonly RepoApiRoutes[] = [summaryRoutes, refsRoutes, resolveRoutes, treeRoutes, blobRoutes, commitsRoutes, commitRoutes, compareRoutes, archiveRoutes];
