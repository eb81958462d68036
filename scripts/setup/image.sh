#!/usr/bin/env bash
# `make image`: Cloudwright's one container image, built without a container daemon. A Debian base made by
# mmdebstrap (no registry image can be pulled here), then, with buildah: Node 24 and npm (builds run in this
# image too), the production node_modules (workerd among them), the platform's sources and the built console,
# the commands cw-api, cw-operator, cw-runtime, cw-git and cw-db, tini as PID 1, and a non-root user. Written as
# an OCI archive, tagged and cached by a hash of everything that goes into it, and linked as
# .tools/cloudwright-image.oci.tar (its name beside it, in .name).
source "$(dirname "$0")/lib.sh"
SUITE=bookworm
MIRROR=http://deb.debian.org/debian
BASE_PACKAGES=ca-certificates,git,git-lfs,tini,passwd
# npm for builds run in this image (push to deploy's Jobs run `npm ci` and the like); the servers never use it.
NPM_VERSION=11.21.2
UID_GID=10001
use_buildah_storage
apt_install mmdebstrap buildah
[[ $(id -u) == 0 ]] || die "building the image needs root (mmdebstrap and buildah run as root here)"

# The base: Debian with git, git-lfs and tini, once per package list (rebuild it for Debian's updates by
# removing $CACHE/image-base-*).
base_key=$(printf '%s\n' "$SUITE" "$BASE_PACKAGES" | sha256sum | cut -c1-16)
base=$CACHE/image-base-$base_key
if [[ ! -f $base/rootfs.tar ]]; then
  log "building the Debian base with mmdebstrap (about half a minute, once)"
  tmp=$(mktemp -d "$CACHE/.image-base.XXXXXX")
  mmdebstrap --quiet --variant=minbase --include="$BASE_PACKAGES" --mode=root "$SUITE" "$tmp/rootfs.tar" "$MIRROR" >&2
  publish "$tmp" "$base"
fi

# What the image holds of the checkout: the servers' sources (tests left out) and the built console.
files=$(cd "$ROOT" && git ls-files -co --exclude-standard bin api src operator runtime-server git-server database-server package.json package-lock.json tsconfig.json | grep -v '\.test\.ts$' | LC_ALL=C sort)
[[ -f $ROOT/console/dist/index.html ]] || die "the console is not built: run make console"
console=$(cd "$ROOT" && find console/dist -type f | LC_ALL=C sort)
node_bin=$(readlink -f "$TOOLS_BIN/node")
# cw-db's SQLite extension (scripts/setup/sqlite-bounds.sh), where the engine looks for it: .tools/lib.
bounds=$(readlink -f "$ROOT/.tools/lib/cw-sqlite-bounds.so" || true)
[[ -f $bounds ]] || die "cw-db's SQLite extension is not built: run make setup"
key=$( (echo "$base_key"; "$node_bin" --version; cat "$0" "$bounds"; cd "$ROOT" && for f in $files $console; do echo "$f"; cat "$f"; done) | sha256sum | cut -c1-16)
out=$CACHE/image-$key
if [[ ! -f $out/cloudwright.oci.tar ]]; then
  log "building the image cloudwright:$key"
  stage=$(mktemp -d "$CACHE/.image-stage.XXXXXX")
  app=$stage/opt/cloudwright
  mkdir -p "$app" "$stage/usr/local/bin"
  (cd "$ROOT" && tar -cf - $files $console) | tar -C "$app" -xf -
  install -D -m 0644 "$bounds" "$app/.tools/lib/cw-sqlite-bounds.so"
  # The lockfile's production packages only; the CLI and console workspaces are not part of the servers.
  (cd "$app" && npm ci --omit=dev --no-audit --no-fund --ignore-scripts --workspaces=false --include-workspace-root >&2)
  install -m 0755 "$node_bin" "$stage/usr/local/bin/node"
  mkdir -p "$stage/usr/local/lib/node_modules/npm"
  (cd "$stage" && npm pack --silent "npm@$NPM_VERSION" >/dev/null && tar -xzf npm-*.tgz -C usr/local/lib/node_modules/npm --strip-components=1 && rm npm-*.tgz)
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$stage/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$stage/usr/local/bin/npx"
  # cw-runtime's Node flags: runtime-server/node-flags.ts says why (its test keeps this line in step).
  RUNTIME_NODE_FLAGS="--max-semi-space-size=4"
  for cmd in cw-api cw-operator cw-runtime cw-git cw-db; do
    flags=""
    if [[ $cmd == cw-runtime ]]; then flags="$RUNTIME_NODE_FLAGS "; fi
    # NODE_ENV for the servers only, not in the image's environment: builds run in this image too, and npm
    # leaves devDependencies (a build's tools) out under NODE_ENV=production.
    printf '#!/bin/sh\nexport NODE_ENV="${NODE_ENV:-production}"\nexec node %s/opt/cloudwright/bin/%s.ts "$@"\n' "$flags" "$cmd" >"$stage/usr/local/bin/$cmd"
    chmod 0755 "$stage/usr/local/bin/$cmd"
  done
  epoch=$(git -C "$ROOT" log -1 --format=%ct 2>/dev/null || echo 0)
  c=$(buildah from scratch)
  trap 'buildah rm "$c" >/dev/null 2>&1 || true; rm -rf "$stage"' EXIT
  buildah add --quiet "$c" "$base/rootfs.tar" / >/dev/null
  buildah add --quiet "$c" "$stage" / >/dev/null
  buildah run --isolation chroot "$c" -- useradd --system --uid "$UID_GID" --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin cloudwright
  # PATH too: an image from scratch has none, and containerd (unlike Docker) adds no default.
  buildah config --user "$UID_GID:$UID_GID" --workingdir /opt/cloudwright \
    --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --entrypoint '["/usr/bin/tini", "--"]' --cmd cw-api \
    --label org.opencontainers.image.title=cloudwright --label dev.cloudwright.source-hash="$key" "$c"
  buildah commit --quiet --timestamp "$epoch" "$c" "localhost/cloudwright:$key" >/dev/null
  tmp=$(mktemp -d "$CACHE/.image.XXXXXX")
  buildah push --quiet "localhost/cloudwright:$key" "oci-archive:$tmp/cloudwright.oci.tar:localhost/cloudwright:$key" >&2
  # The archive is the product: the image in buildah's storage (vfs: whole copies, ~700 MB each) goes.
  buildah rmi "localhost/cloudwright:$key" >/dev/null
  publish "$tmp" "$out"
fi
touch "$out"
# Each change of the sources is a new image: keep the few most recently used, so the cache does not grow
# by ~220 MB a build (a checkout and a CI clone built at once each keep theirs).
ls -1dt "$CACHE"/image-* | grep -E '/image-[0-9a-f]{16}$' | tail -n +5 | xargs -r rm -rf
for old in $(buildah images --format '{{.Name}}:{{.Tag}}' 2>/dev/null | grep '^localhost/cloudwright:' || true); do
  [[ -d $CACHE/image-${old##*:} ]] || buildah rmi "$old" >/dev/null 2>&1 || true
done
ln -sfn "$out/cloudwright.oci.tar" "$ROOT/.tools/cloudwright-image.oci.tar"
echo "localhost/cloudwright:$key" >"$ROOT/.tools/cloudwright-image.oci.tar.name"
log "image localhost/cloudwright:$key: $(du -h "$out/cloudwright.oci.tar" | cut -f1) as an OCI archive (.tools/cloudwright-image.oci.tar)"
echo "localhost/cloudwright:$key"
