/*
** cw-db's bounds on what one SQLite function call may cost, loaded into every tenant connection
** (database-server/sql/libsql-engine.ts). SQLite checks a statement's deadline between the opcodes of its program,
** so one call of a built-in function runs to its end whatever the deadline: instr, replace, trim, LIKE and GLOB
** compare their arguments in O(n·m), and a 100-byte statement building multi-megabyte strings kept its shard busy
** for hours of CPU, until the shard's watchdog killed it with every other database of the shard (review-184 H1).
**
** So each connection gets lower limits (the longest value, the longest LIKE/GLOB pattern), and these functions are
** replaced, answering what the built-ins answer: instr and replace search with glibc's memmem (two-way: linear in
** both lengths); LIKE, GLOB and trim's two-argument forms refuse arguments whose product passes a budget of work
** (about a quarter of a second here), and otherwise call the built-in, compiled once in a private in-memory
** connection that has only the built-ins (through the tenant's connection it would find the replacement again).
** The node addon exposes neither sqlite3_limit nor sqlite3_create_function, hence an extension.
**
** Built by scripts/setup/sqlite-bounds.sh into .tools/lib/cw-sqlite-bounds.so (and into the image).
*/
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1
#include <string.h>

/* The longest text or blob (SQLITE_LIMIT_LENGTH): SQLITE_TOOBIG past it. */
#define CW_MAX_LENGTH (8 * 1024 * 1024)
/* The longest LIKE or GLOB pattern (SQLITE_LIMIT_LIKE_PATTERN_LENGTH; SQLite's default is 50,000). */
#define CW_MAX_LIKE_PATTERN 4096
/*
** The most instructions a compiled statement may have (SQLITE_LIMIT_VDBE_OP; SQLite's default is 250,000,000).
** SQLite compiles a statement whole before its deadline applies, and CTEs (or views) are copied at each reference:
** a 2 KB text doubling one 17 times compiled for 3 s (review-184 H2). Compiling fails (SQLITE_NOMEM) once the
** program passes the bound, which the engine sets before compiling each statement from its text's length
** (cw_set_vdbe_limit: two per byte, at least CW_BASE_VDBE_OPS, at most CW_MAX_VDBE_OPS): a statement that copies nothing
** compiles to at most about 1.5 instructions a byte (a 1 MiB IN list: 1.57 million; a 1 MiB INSERT … VALUES: 524,000).
*/
#define CW_BASE_VDBE_OPS 250000
#define CW_MAX_VDBE_OPS 2500000

/*
** The most work one call may do, as the product of its arguments' lengths in bytes, from what each took here per
** step (LIKE and GLOB ~5 ns a step; trim ~7 ns).
*/
#define CW_PATTERN_BUDGET 50000000LL
#define CW_TRIM_BUDGET 30000000LL
/*
** json_patch merges objects by searching the target's keys for each of the patch's: 10,000 keys each took 2 s, 40,000
** took 30 s. A key takes ~10 bytes of text at least, so this is some 2e7 key comparisons (~20 ns each) at most.
*/
#define CW_PATCH_BUDGET 2000000000LL

/* Functions whose result carries a subtype (JSON) must say so since SQLite 3.45 (the system header may be older). */
#ifndef SQLITE_RESULT_SUBTYPE
#define SQLITE_RESULT_SUBTYPE 0x001000000
#endif

enum { CW_LIKE2, CW_LIKE3, CW_GLOB, CW_TRIM, CW_LTRIM, CW_RTRIM, CW_JSON_PATCH, CW_JSONB_PATCH, CW_COUNT };

static const struct {
  const char *name;
  int nArg;
  const char *sql;
} cw_functions[CW_COUNT] = {
  {"like", 2, "SELECT like(?1, ?2)"},
  {"like", 3, "SELECT like(?1, ?2, ?3)"},
  {"glob", 2, "SELECT glob(?1, ?2)"},
  {"trim", 2, "SELECT trim(?1, ?2)"},
  {"ltrim", 2, "SELECT ltrim(?1, ?2)"},
  {"rtrim", 2, "SELECT rtrim(?1, ?2)"},
  {"json_patch", 2, "SELECT json_patch(?1, ?2)"},
  {"jsonb_patch", 2, "SELECT jsonb_patch(?1, ?2)"},
};

/* What a tenant connection's replacements share: the private connection and its statements (freed with the last). */
typedef struct Builtins {
  sqlite3 *db;
  sqlite3_stmt *stmt[CW_COUNT];
  int refs;
} Builtins;

typedef struct Replacement {
  Builtins *builtins;
  int which;
} Replacement;

/*
** One private connection serves every tenant connection opened on the thread that opened the first (cw-db's shard
** runs all SQL on one thread; each would otherwise take some 70 KiB more). A connection opened on another thread gets
** its own.
*/
static Builtins *cw_shared;
static pthread_t cw_shared_thread;

static void cw_unref(Builtins *builtins) {
  if (--builtins->refs > 0) return;
  if (builtins == cw_shared) cw_shared = 0;
  for (int i = 0; i < CW_COUNT; i++) sqlite3_finalize(builtins->stmt[i]);
  sqlite3_close(builtins->db);
  sqlite3_free(builtins);
}

static void cw_release(void *p) {
  Replacement *replacement = (Replacement *)p;
  Builtins *builtins = replacement->builtins;
  sqlite3_free(replacement);
  cw_unref(builtins);
}

static sqlite3_int64 cw_bytes(sqlite3_value *value) {
  return sqlite3_value_type(value) == SQLITE_NULL ? 0 : sqlite3_value_bytes(value);
}

/*
** instr(H, N) as SQLite's instrFunc answers it: the 1-based position of N's first occurrence in H, in characters
** for text (bytes for two blobs; a blob and a text are both read as text), 0 for none, 1 for an empty N, NULL if
** either is NULL. SQLite compares at the start of H and at each byte that starts a character; so does this: a
** match memmem finds starts with N's first byte, which starts a character unless N begins with a continuation byte
** (then only H's start can match).
*/
static void cw_instr(sqlite3_context *context, int argc, sqlite3_value **argv) {
  (void)argc;
  int typeH = sqlite3_value_type(argv[0]), typeN = sqlite3_value_type(argv[1]);
  if (typeH == SQLITE_NULL || typeN == SQLITE_NULL) return;
  sqlite3_value *copyH = 0, *copyN = 0;
  const unsigned char *h, *n;
  int nH, nN, isText;
  sqlite3_int64 position = 1;
  if (typeH == SQLITE_BLOB && typeN == SQLITE_BLOB) {
    h = sqlite3_value_blob(argv[0]);
    n = sqlite3_value_blob(argv[1]);
    isText = 0;
  } else if (typeH != SQLITE_BLOB && typeN != SQLITE_BLOB) {
    h = sqlite3_value_text(argv[0]);
    n = sqlite3_value_text(argv[1]);
    isText = 1;
  } else {
    copyH = sqlite3_value_dup(argv[0]);
    copyN = sqlite3_value_dup(argv[1]);
    h = copyH ? sqlite3_value_text(copyH) : 0;
    n = copyN ? sqlite3_value_text(copyN) : 0;
    isText = 1;
  }
  nH = sqlite3_value_bytes(copyH ? copyH : argv[0]);
  nN = sqlite3_value_bytes(copyN ? copyN : argv[1]);
  if (nN > 0) {
    if (n == 0 || (nH > 0 && h == 0)) {
      sqlite3_result_error_nomem(context);
      goto done;
    }
    const unsigned char *found = 0;
    if (nN <= nH) {
      if (isText && (n[0] & 0xc0) == 0x80) found = memcmp(h, n, nN) == 0 ? h : 0;
      else found = memmem(h, nH, n, nN);
    }
    if (found == 0) position = 0;
    else if (!isText) position = found - h + 1;
    else
      for (const unsigned char *c = h + 1; c <= found; c++) position += (*c & 0xc0) != 0x80;
  }
  sqlite3_result_int64(context, position);
done:
  sqlite3_value_free(copyH);
  sqlite3_value_free(copyN);
}

/*
** replace(X, Y, Z) as SQLite's replaceFunc answers it: X as text with every occurrence of Y (bytes, left to right,
** not overlapping) replaced by Z; X if Y is empty; NULL if any is NULL; SQLITE_TOOBIG past the longest value.
*/
static void cw_replace(sqlite3_context *context, int argc, sqlite3_value **argv) {
  (void)argc;
  const unsigned char *x = sqlite3_value_text(argv[0]);
  if (x == 0) return;
  sqlite3_int64 nX = sqlite3_value_bytes(argv[0]);
  const unsigned char *y = sqlite3_value_text(argv[1]);
  if (y == 0) return;
  if (y[0] == 0) {
    sqlite3_result_text64(context, (const char *)x, nX, SQLITE_TRANSIENT, SQLITE_UTF8);
    return;
  }
  sqlite3_int64 nY = sqlite3_value_bytes(argv[1]);
  const unsigned char *z = sqlite3_value_text(argv[2]);
  if (z == 0) return;
  sqlite3_int64 nZ = sqlite3_value_bytes(argv[2]);
  sqlite3_int64 matches = 0;
  for (const unsigned char *at = x; (at = memmem(at, x + nX - at, y, nY)) != 0; at += nY) matches++;
  sqlite3_int64 nOut = nX + matches * (nZ - nY);
  if (nOut > sqlite3_limit(sqlite3_context_db_handle(context), SQLITE_LIMIT_LENGTH, -1)) {
    sqlite3_result_error_toobig(context);
    return;
  }
  unsigned char *out = sqlite3_malloc64(nOut + 1);
  if (out == 0) {
    sqlite3_result_error_nomem(context);
    return;
  }
  unsigned char *to = out;
  const unsigned char *from = x;
  for (const unsigned char *at; (at = memmem(from, x + nX - from, y, nY)) != 0; from = at + nY) {
    memcpy(to, from, at - from);
    to += at - from;
    memcpy(to, z, nZ);
    to += nZ;
  }
  memcpy(to, from, x + nX - from);
  to += x + nX - from;
  *to = 0;
  sqlite3_result_text64(context, (const char *)out, to - out, sqlite3_free, SQLITE_UTF8);
}

/* Binds `value` as it is, without copying a text or a blob: the call ends before the argument does. */
static void cw_bind(sqlite3_stmt *stmt, int i, sqlite3_value *value) {
  switch (sqlite3_value_type(value)) {
    case SQLITE_INTEGER:
      sqlite3_bind_int64(stmt, i, sqlite3_value_int64(value));
      break;
    case SQLITE_FLOAT:
      sqlite3_bind_double(stmt, i, sqlite3_value_double(value));
      break;
    case SQLITE_TEXT:
      sqlite3_bind_text64(stmt, i, (const char *)sqlite3_value_text(value), sqlite3_value_bytes(value), SQLITE_STATIC, SQLITE_UTF8);
      break;
    case SQLITE_BLOB:
      sqlite3_bind_blob64(stmt, i, sqlite3_value_blob(value), sqlite3_value_bytes(value), SQLITE_STATIC);
      break;
    default:
      sqlite3_bind_null(stmt, i);
  }
}

static void cw_call(sqlite3_context *context, int argc, sqlite3_value **argv) {
  Replacement *replacement = (Replacement *)sqlite3_user_data(context);
  sqlite3_int64 work, budget;
  switch (replacement->which) {
    case CW_LIKE2:
    case CW_LIKE3:
    case CW_GLOB:
      /* X LIKE Y is like(Y, X): the pattern first. */
      work = cw_bytes(argv[0]) * cw_bytes(argv[1]);
      budget = CW_PATTERN_BUDGET;
      break;
    case CW_JSON_PATCH:
    case CW_JSONB_PATCH:
      work = cw_bytes(argv[0]) * cw_bytes(argv[1]);
      budget = CW_PATCH_BUDGET;
      break;
    default:
      work = cw_bytes(argv[0]) * cw_bytes(argv[1]);
      budget = CW_TRIM_BUDGET;
      break;
  }
  if (work > budget) {
    char message[256];
    snprintf(message, sizeof message,
             "%s(): its arguments are too long together (%lld by %lld bytes): one call may not take more than a moment of "
             "the shard's time, which a statement's time limit cannot interrupt; use shorter values",
             cw_functions[replacement->which].name, (long long)cw_bytes(argv[0]), (long long)cw_bytes(argv[1]));
    sqlite3_result_error(context, message, -1);
    return;
  }
  Builtins *builtins = replacement->builtins;
  sqlite3_stmt *stmt = builtins->stmt[replacement->which];
  for (int i = 0; i < argc; i++) cw_bind(stmt, i + 1, argv[i]);
  int rc = sqlite3_step(stmt);
  if (rc == SQLITE_ROW) {
    sqlite3_value *result = sqlite3_column_value(stmt, 0);
    sqlite3_result_value(context, result);
    /* json_patch's text is JSON to the functions it is given to (json_object(…, json_patch(…)) nests it). */
    if (sqlite3_value_subtype(result) != 0) sqlite3_result_subtype(context, sqlite3_value_subtype(result));
  } else {
    rc = sqlite3_errcode(builtins->db);
    if (rc == SQLITE_NOMEM) sqlite3_result_error_nomem(context);
    else if (rc == SQLITE_TOOBIG) sqlite3_result_error_toobig(context);
    else {
      sqlite3_result_error(context, sqlite3_errmsg(builtins->db), -1);
      sqlite3_result_error_code(context, rc);
    }
  }
  sqlite3_reset(stmt);
  sqlite3_clear_bindings(stmt);
}

static void cw_limit(sqlite3 *db) {
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, CW_MAX_LENGTH);
  sqlite3_limit(db, SQLITE_LIMIT_LIKE_PATTERN_LENGTH, CW_MAX_LIKE_PATTERN);
  sqlite3_limit(db, SQLITE_LIMIT_VDBE_OP, CW_BASE_VDBE_OPS);
}

/*
** cw_set_vdbe_limit(N): the connection's program bound for the statements compiled next, kept within
** [CW_BASE_VDBE_OPS, CW_MAX_VDBE_OPS] (a tenant calling it gains nothing past the most the engine would set).
*/
static void cw_set_vdbe_limit(sqlite3_context *context, int argc, sqlite3_value **argv) {
  (void)argc;
  sqlite3_int64 n = sqlite3_value_int64(argv[0]);
  if (n < CW_BASE_VDBE_OPS) n = CW_BASE_VDBE_OPS;
  if (n > CW_MAX_VDBE_OPS) n = CW_MAX_VDBE_OPS;
  sqlite3_result_int64(context, sqlite3_limit(sqlite3_context_db_handle(context), SQLITE_LIMIT_VDBE_OP, (int)n));
}

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_cwsqlitebounds_init(sqlite3 *db, char **error, const sqlite3_api_routines *api) {
  SQLITE_EXTENSION_INIT2(api);
  cw_limit(db);
  int shared = cw_shared != 0 && pthread_equal(cw_shared_thread, pthread_self());
  Builtins *builtins = shared ? cw_shared : sqlite3_malloc(sizeof(Builtins));
  if (builtins == 0) return SQLITE_NOMEM;
  int rc = SQLITE_OK;
  if (!shared) {
    memset(builtins, 0, sizeof(Builtins));
    rc = sqlite3_open_v2(":memory:", &builtins->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, 0);
    if (rc == SQLITE_OK) {
      cw_limit(builtins->db);
      for (int i = 0; i < CW_COUNT && rc == SQLITE_OK; i++) rc = sqlite3_prepare_v2(builtins->db, cw_functions[i].sql, -1, &builtins->stmt[i], 0);
    }
    if (rc != SQLITE_OK) {
      *error = sqlite3_mprintf("cw-sqlite-bounds: %s", builtins->db ? sqlite3_errmsg(builtins->db) : "out of memory");
      for (int i = 0; i < CW_COUNT; i++) sqlite3_finalize(builtins->stmt[i]);
      sqlite3_close(builtins->db);
      sqlite3_free(builtins);
      return rc;
    }
    if (cw_shared == 0) {
      cw_shared = builtins;
      cw_shared_thread = pthread_self();
    }
  }
  /*
  ** Innocuous and deterministic as the built-ins are, so views, indexes and triggers keep using them. `builtins` is
  ** held by each replacement until SQLite lets it go (the connection closes, or it is replaced), and by this
  ** function until its loop ends.
  */
  int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
  builtins->refs++;
  for (int i = 0; i < CW_COUNT && rc == SQLITE_OK; i++) {
    Replacement *replacement = sqlite3_malloc(sizeof(Replacement));
    if (replacement == 0) {
      rc = SQLITE_NOMEM;
      break;
    }
    replacement->builtins = builtins;
    replacement->which = i;
    builtins->refs++;
    int subtype = i == CW_JSON_PATCH || i == CW_JSONB_PATCH ? SQLITE_RESULT_SUBTYPE : 0;
    rc = sqlite3_create_function_v2(db, cw_functions[i].name, cw_functions[i].nArg, flags | subtype, replacement, cw_call, 0, 0, cw_release);
  }
  cw_unref(builtins);
  if (rc == SQLITE_OK) rc = sqlite3_create_function_v2(db, "instr", 2, flags, 0, cw_instr, 0, 0, 0);
  if (rc == SQLITE_OK) rc = sqlite3_create_function_v2(db, "replace", 3, flags, 0, cw_replace, 0, 0, 0);
  if (rc == SQLITE_OK) rc = sqlite3_create_function_v2(db, "cw_set_vdbe_limit", 1, SQLITE_UTF8 | SQLITE_DIRECTONLY, 0, cw_set_vdbe_limit, 0, 0, 0);
  if (rc != SQLITE_OK) *error = sqlite3_mprintf("cw-sqlite-bounds: %s", sqlite3_errmsg(db));
  return rc;
}
