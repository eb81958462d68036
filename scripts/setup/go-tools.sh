#!/usr/bin/env bash
# Builds the Go binaries the local platform runs: the control plane (kube-apiserver + etcd + the
# garbage-collector and namespace controllers, from e2e/controlplane) and MinIO. Each is cached by its
# version, the Go version and (for our own code) the source hash.
source "$(dirname "$0")/lib.sh"
MINIO_VERSION=v0.0.0-20260212201848-7aac2a2c5b7c # github.com/minio/minio, 2026-02-12; conditional PUTs are atomic
gover=$(go_version)

build_minio() {
  local dir=$CACHE/minio-$MINIO_VERSION-$gover
  if [[ ! -x $dir/minio ]]; then
    log "building MinIO $MINIO_VERSION with $gover (a few minutes, once per machine)"
    local tmp; tmp=$(mktemp -d "$CACHE/.minio.XXXXXX")
    GOBIN=$tmp GOFLAGS="-trimpath -buildvcs=false" go install "github.com/minio/minio@$MINIO_VERSION" >&2
    publish "$tmp" "$dir"
  fi
  link minio "$dir/minio"
}

build_controlplane() {
  local src=$ROOT/e2e/controlplane
  local k8s; k8s=$(awk '$1=="k8s.io/kubernetes"{print $2}' "$src/go.mod")
  local hash; hash=$(cat "$src"/go.mod "$src"/go.sum "$src"/*.go | sha256sum | cut -c1-12)
  local dir=$CACHE/controlplane-$k8s-$gover-$hash
  if [[ ! -x $dir/cw-controlplane ]]; then
    log "building the local control plane (Kubernetes $k8s) with $gover (10+ minutes cold, once per machine)"
    local tmp; tmp=$(mktemp -d "$CACHE/.controlplane.XXXXXX")
    (cd "$src" && go build -trimpath -buildvcs=false -o "$tmp/cw-controlplane" .) >&2
    publish "$tmp" "$dir"
  fi
  link cw-controlplane "$dir/cw-controlplane"
}

case ${1:-all} in
  minio) build_minio ;;
  controlplane) build_controlplane ;;
  all) build_controlplane; build_minio ;;
  *) die "unknown tool: $1" ;;
esac
