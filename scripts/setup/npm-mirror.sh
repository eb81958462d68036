#!/usr/bin/env bash
# Verdaccio, the npm registry mirror the local node's build pods install packages through (pods on the node
# cannot leave its bridge, e2e/harness/npm-mirror.ts): installed from npm into the cache once per version and
# linked as .tools/bin/verdaccio. Run by the node's Node 24.
source "$(dirname "$0")/lib.sh"
VERDACCIO_VERSION=6.10.4
dir=$CACHE/verdaccio-$VERDACCIO_VERSION
if [[ ! -x $dir/node_modules/.bin/verdaccio ]]; then
  log "installing Verdaccio $VERDACCIO_VERSION from the npm registry"
  tmp=$(mktemp -d "$CACHE/.verdaccio.XXXXXX")
  # A dependency asks for node-fetch by the dist-tag `cjs`, which this registry does not serve; 2.7.0 is that line.
  printf '{"private":true,"dependencies":{"verdaccio":"%s"},"overrides":{"node-fetch":"2.7.0"}}\n' "$VERDACCIO_VERSION" >"$tmp/package.json"
  (cd "$tmp" && npm install --no-audit --no-fund --loglevel=error >&2)
  [[ -x $tmp/node_modules/.bin/verdaccio ]] || die "verdaccio@$VERDACCIO_VERSION did not install its command"
  publish "$tmp" "$dir"
fi
link verdaccio "$dir/node_modules/.bin/verdaccio"
