// The write routes of the JSON API (`write` scope), in the order the reference lists them.
import type { RepoApiRoutes } from './index.ts';
import { mergesWriteRoutes } from './write/merges-write.ts';

export const WRITE_ROUTES: readonly RepoApiRoutes[] = [mergesWriteRoutes];
