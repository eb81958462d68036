# Shared by the setup scripts. Expensive builds live outside the checkout, keyed by version, so a fresh clone
# on the same machine reuses them; .tools/ in the checkout only holds links into that cache.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CACHE=${CLOUDWRIGHT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cloudwright}
TOOLS_BIN=$ROOT/.tools/bin
mkdir -p "$CACHE" "$TOOLS_BIN"

log() { printf 'setup: %s\n' "$*" >&2; }
die() { printf 'setup: %s\n' "$*" >&2; exit 1; }

# link NAME TARGET: expose a cached tool as .tools/bin/NAME.
link() { ln -sfn "$2" "$TOOLS_BIN/$1"; }

# A build is published into the cache by renaming a finished temporary directory, so an interrupted build
# never leaves a half-written entry that a later run would trust.
publish() { # publish TMPDIR FINALDIR
  rm -rf "$2" && mv "$1" "$2"
}

go_version() { go env GOVERSION 2>/dev/null || die "Go is required to build the local control plane and MinIO (go not found)"; }

# buildah keeps its layers under the cache, apart from any other containers storage on the machine.
use_buildah_storage() {
  export STORAGE_DRIVER=vfs CONTAINERS_STORAGE_CONF=$CACHE/image-storage.conf
  [[ -f $CONTAINERS_STORAGE_CONF ]] || printf '[storage]\ndriver = "vfs"\ngraphroot = "%s"\nrunroot = "%s"\n' "$CACHE/image-storage" "$CACHE/image-storage-run" >"$CONTAINERS_STORAGE_CONF"
}

# apt_install PACKAGE...: installs the Debian packages not installed yet (as root).
apt_install() {
  local missing=() pkg
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  ((${#missing[@]})) || return 0
  [[ $(id -u) == 0 ]] || die "missing Debian packages (${missing[*]}), and installing them needs root"
  log "installing Debian packages: ${missing[*]}"
  apt-get update -qq >&2 && apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}
