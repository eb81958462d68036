#!/usr/bin/env bash
# Builds docs/examples/nextjs (Next.js with OpenNext's Cloudflare adapter) into a runtime artifact, once per
# version of its sources: the cache key is a hash of the example's files and the Node version. The artifact
# is linked as .tools/nextjs-example.tar.zst for e2e/nextjs-example.test.ts.
source "$(dirname "$0")/lib.sh"
src=$ROOT/docs/examples/nextjs
# The example's own files: tracked, or new and not ignored (so build output never enters the key).
files=$(cd "$src" && git ls-files -co --exclude-standard . | LC_ALL=C sort)
key=$( (node --version; cd "$src" && for f in $files; do echo "$f"; cat "$f"; done) | sha256sum | cut -c1-16)
dir=$CACHE/nextjs-example-$key
if [[ ! -f $dir/next.tar.zst ]]; then
  log "building the Next.js example with OpenNext (about a minute, once per version of the example)"
  tmp=$(mktemp -d "$CACHE/.nextjs.XXXXXX")
  (cd "$src" && tar -cf - $files) | tar -C "$tmp" -xf -
  # The example's lockfile is not shipped (the registry mirror lacks other platforms' packages): npm install.
  (cd "$tmp" && npm install --no-audit --no-fund --loglevel=error >&2 && ./build.sh "$tmp/next.tar.zst" >&2)
  mkdir -p "$dir.tmp" && mv "$tmp/next.tar.zst" "$dir.tmp/" && rm -rf "$tmp"
  publish "$dir.tmp" "$dir"
fi
ln -sfn "$dir/next.tar.zst" "$ROOT/.tools/nextjs-example.tar.zst"
