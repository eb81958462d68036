/**
 * What a tenant's SQL may touch, as data (the engine turns it into its authorizer). Many tenants share one cw-db
 * process, so a statement may reach nothing but its own database: no other file (ATTACH, VACUUM INTO, the
 * file functions and virtual tables this libSQL build carries), no setting that is the engine's (journal, WAL,
 * checkpoints, memory, size quota, the read-only switch), no extension, and no TEMP table, index, view or trigger:
 * a database's connection serves every request and token it gets, and the shard's memory every tenant of it, so a
 * temporary object would outlive its request, be seen by the database's read-only callers, and hold the shard's
 * SQLite memory for as long as the connection stays open. Everything else SQLite offers stays.
 */

/**
 * The PRAGMAs a tenant may run, also as table-valued functions (`pragma_table_info(…)`): schema introspection,
 * checks, and the settings that only change the tenant's own data or its own connection's SQL semantics.
 * `page_size` and `data_version` are here because FTS5 and R*Tree read them (in WAL mode the page size of an
 * existing database cannot change).
 */
export const ALLOWED_PRAGMAS: readonly string[] = [
  'analysis_limit',
  'application_id',
  'automatic_index',
  'collation_list',
  'data_version',
  'defer_foreign_keys',
  'encoding',
  'foreign_key_check',
  'foreign_key_list',
  'foreign_keys',
  'freelist_count',
  'function_list',
  'index_info',
  'index_list',
  'index_xinfo',
  'integrity_check',
  'legacy_alter_table',
  'module_list',
  'optimize',
  'page_count',
  'page_size',
  'pragma_list',
  'quick_check',
  'recursive_triggers',
  'table_info',
  'table_list',
  'table_xinfo',
  'user_version',
];

/**
 * Functions that reach outside the database or the engine's configuration (`glob` patterns), or run SQL text of
 * their own (`sha3_query`: an ATTACH inside it is a SELECT to every check that reads the statement); and libSQL's
 * vector index (`libsql_vector_idx`, DiskANN): its nodes are rows of plain tables the tenant can write, and the
 * engine trusts what they say, so a tenant's UPDATE of them crashed the shard (every database of it) at the
 * next DELETE. The vector functions themselves (`vector`, `vector_distance_cos`, …) stay: a search is a scan.
 * And REGEXP (`regexp`, `regexpi`: SQLite's ext/misc/regexp.c in this build), whose NFA matches in O(n·m) within
 * one call, which a statement's deadline cannot interrupt: a 3 MB subject held a shard until its watchdog (review-184).
 */
export const DENIED_FUNCTIONS: readonly string[] = [
  'readfile',
  'writefile',
  'edit',
  'load_extension',
  'fts3_tokenizer',
  'sqlite3mc_*',
  'sqlite_log',
  'sha3_query',
  'libsql_vector_idx',
  'regexp',
  'regexpi',
];

/** Virtual table modules a tenant may create: full-text search and spatial indexes. */
export const ALLOWED_VIRTUAL_TABLE_MODULES: readonly string[] = ['fts3', 'fts4', 'fts5', 'fts5vocab', 'rtree', 'rtree_i32', 'geopoly'];

/** Eponymous virtual tables that read the file system or the raw pages of the database file, or a vector index (above). */
export const DENIED_TABLES: readonly string[] = ['fsdir', 'sqlite_dbpage', 'vector_top_k'];

/** A connection's mode, applied before each request: a read-only caller's connection refuses every write. */
export type SqlMode = 'read-write' | 'read-only';
