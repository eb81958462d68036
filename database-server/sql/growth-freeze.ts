/**
 * Why a database may not grow now though it is under its own size quota, as the main process tells the engine
 * before each request (storage-budget.ts): its project's databases on this replica reached their storage quota,
 * or the replica's disk is down to its reserve. Writes that need new pages fail with SQLITE_FULL and `message`;
 * deletes, and updates that fit in the pages the database has, still work, so the tenant can make room.
 */
export interface GrowthFreeze {
  readonly reason: 'project_storage_quota' | 'disk_reserve';
  readonly message: string;
}
