// Git LFS for cw-git: the batch API and basic transfer, objects in the bucket.
export { lfsRoutes, LFS_MEDIA_TYPE, type LfsDependencies } from './lfs-routes.ts';
export { ACTION_TTL_SECONDS } from './links.ts';
