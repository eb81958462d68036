#!/usr/bin/env bash
# Builds cw-db's SQLite extension (database-server/sql/bounds/cw-sqlite-bounds.c: its bounds on values, LIKE/GLOB
# patterns and the functions a statement's deadline cannot interrupt), which every tenant connection loads; cw-db
# opens no database without it. Needs a C compiler and SQLite's headers (Debian: gcc, libsqlite3-dev; only
# sqlite3ext.h's API table is used, so their version need not be libSQL's). Cached by the source's hash, linked
# as .tools/lib/cw-sqlite-bounds.so; the image copies it (image.sh).
source "$(dirname "$0")/lib.sh"
src=$ROOT/database-server/sql/bounds/cw-sqlite-bounds.c
command -v cc >/dev/null || die "a C compiler (cc) is needed to build $src: apt-get install gcc"
[[ -f /usr/include/sqlite3ext.h ]] || apt_install libsqlite3-dev
key=$( (cat "$src" "$0"; cc --version | head -1) | sha256sum | cut -c1-16)
dir=$CACHE/sqlite-bounds-$key
if [[ ! -f $dir/cw-sqlite-bounds.so ]]; then
  log "building cw-sqlite-bounds.so (SQLite extension of cw-db)"
  tmp=$(mktemp -d "$CACHE/.sqlite-bounds.XXXXXX")
  cc -O2 -fPIC -shared -Wall -Wextra -Werror -o "$tmp/cw-sqlite-bounds.so" "$src"
  publish "$tmp" "$dir"
fi
mkdir -p "$ROOT/.tools/lib"
ln -sfn "$dir/cw-sqlite-bounds.so" "$ROOT/.tools/lib/cw-sqlite-bounds.so"
