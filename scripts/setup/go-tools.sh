#!/usr/bin/env bash
# Builds the Go binaries the local platform runs: the control plane (kube-apiserver + etcd + the
# controllers, the scheduler, and the node's kubelet and kube-proxy, from e2e/controlplane), MinIO, Helm (the
# chart's tests render charts/cloudwright with it), kubectl, CoreDNS (the local node's cluster DNS), kube-router
# (its network-policy controller enforces the node's NetworkPolicies) and Pebble (a real ACME CA). Each is
# cached by its version, the Go version and (for our own code) the source hash. And Flux's source- and
# kustomize-controller with their CRDs (e2e/flux), which the GitOps tests and `make gitops` run.
source "$(dirname "$0")/lib.sh"
MINIO_VERSION=v0.0.0-20260212201848-7aac2a2c5b7c # github.com/minio/minio, 2026-02-12; conditional PUTs are atomic
HELM_VERSION=v3.22.0
COREDNS_VERSION=v1.15.0
# The only version the module proxy serves (v2.1.0 has published advisories: docs/kube-node.md says which and
# why they do not touch the local node). sigs.k8s.io/kube-network-policies cannot run here: it queues packets
# with nftables' `queue`, which this kernel lacks (CONFIG_NFT_QUEUE).
KUBE_ROUTER_VERSION=v2.1.0
# Let's Encrypt's test CA and its DNS/challenge test server (the non-/v2 module path is refused by the proxy).
PEBBLE_VERSION=v2.10.3
gover=$(go_version)

# A pinned module's command, built with `go install` into the cache once per version and Go version.
go_install() { # go_install NAME MODULE@VERSION WHAT-IT-TAKES
  local name=$1 module=${2%@*} version=${2#*@}
  local dir=$CACHE/$name-$version-$gover
  if [[ ! -x $dir/$name ]]; then
    log "building $name $version with $gover ($3, once per machine)"
    local tmp; tmp=$(mktemp -d "$CACHE/.$name.XXXXXX")
    GOBIN=$tmp GOFLAGS="-trimpath -buildvcs=false" go install "$module@$version" >&2
    publish "$tmp" "$dir"
  fi
  link "$name" "$dir/$name"
}

build_minio() { go_install minio "github.com/minio/minio@$MINIO_VERSION" "a few minutes"; }
build_helm() { go_install helm "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" "a minute or two"; }
build_coredns() { go_install coredns "github.com/coredns/coredns@$COREDNS_VERSION" "a minute or two"; }
build_kube_router() { go_install kube-router "github.com/cloudnativelabs/kube-router/v2/cmd/kube-router@$KUBE_ROUTER_VERSION" "a few minutes"; }

# Pebble and pebble-challtestsrv, with the certificate Pebble's own HTTPS listener uses and the root that signed
# it (the module's test data: a client of Pebble trusts minica.pem).
build_pebble() {
  local dir=$CACHE/pebble-$PEBBLE_VERSION-$gover
  if [[ ! -x $dir/pebble || ! -x $dir/pebble-challtestsrv ]]; then
    log "building pebble $PEBBLE_VERSION with $gover (a minute or two, once per machine)"
    local tmp; tmp=$(mktemp -d "$CACHE/.pebble.XXXXXX")
    GOBIN=$tmp GOFLAGS="-trimpath -buildvcs=false" go install "github.com/letsencrypt/pebble/v2/cmd/pebble@$PEBBLE_VERSION" "github.com/letsencrypt/pebble/v2/cmd/pebble-challtestsrv@$PEBBLE_VERSION" >&2
    local certs; certs=$(go env GOMODCACHE)/github.com/letsencrypt/pebble/v2@$PEBBLE_VERSION/test/certs
    cp "$certs/pebble.minica.pem" "$tmp/minica.pem" && cp "$certs/localhost/cert.pem" "$tmp/cert.pem" && cp "$certs/localhost/key.pem" "$tmp/key.pem"
    publish "$tmp" "$dir"
  fi
  link pebble "$dir/pebble"
  link pebble-challtestsrv "$dir/pebble-challtestsrv"
}

# The version the Kubernetes components report (kubectl version, a node's kubeletVersion), which `go build`
# of a module cannot know on its own.
version_ldflags() { # version_ldflags vX.Y.Z
  echo "-X k8s.io/component-base/version.gitVersion=$1 -X k8s.io/client-go/pkg/version.gitVersion=$1"
}

build_controlplane() {
  local src=$ROOT/e2e/controlplane
  local k8s; k8s=$(awk '$1=="k8s.io/kubernetes"{print $2}' "$src/go.mod")
  local hash; hash=$(cat "$src"/go.mod "$src"/go.sum "$src"/*.go | sha256sum | cut -c1-12)
  local dir=$CACHE/controlplane-$k8s-$gover-$hash
  if [[ ! -x $dir/cw-controlplane ]]; then
    log "building the local control plane (Kubernetes $k8s) with $gover (10+ minutes cold, once per machine)"
    local tmp; tmp=$(mktemp -d "$CACHE/.controlplane.XXXXXX")
    (cd "$src" && go build -trimpath -buildvcs=false -ldflags "$(version_ldflags "$k8s")" -o "$tmp/cw-controlplane" .) >&2
    publish "$tmp" "$dir"
  fi
  link cw-controlplane "$dir/cw-controlplane"
}

# kubectl, from its published module at the control plane's Kubernetes version (e2e/kubectl), for the tests
# that drive the platform as a GitOps tool does (server-side apply and diff).
build_kubectl() {
  local src=$ROOT/e2e/kubectl
  local version; version=$(awk '$1=="k8s.io/kubectl"{print $2}' "$src/go.mod")
  local hash; hash=$(cat "$src"/go.mod "$src"/go.sum "$src"/*.go | sha256sum | cut -c1-12)
  local dir=$CACHE/kubectl-$version-$gover-$hash
  if [[ ! -x $dir/kubectl ]]; then
    log "building kubectl $version with $gover (a minute or two, once per machine)"
    local tmp; tmp=$(mktemp -d "$CACHE/.kubectl.XXXXXX")
    local git=v1.${version#v0.}
    (cd "$src" && go build -trimpath -buildvcs=false -ldflags "$(version_ldflags "$git")" -o "$tmp/kubectl" .) >&2
    publish "$tmp" "$dir"
  fi
  link kubectl "$dir/kubectl"
}

# Flux's source-controller and kustomize-controller from the wrapper module e2e/flux (its go.mod says why each
# `replace`), with the CustomResourceDefinitions of their module zips (config/crd/bases) beside them in crds/.
build_flux() {
  local src=$ROOT/e2e/flux
  local source kustomize
  source=$(awk '$1=="github.com/fluxcd/source-controller" && $2 ~ /^v/ {print $2}' "$src/go.mod")
  kustomize=$(awk '$1=="github.com/fluxcd/kustomize-controller" && $2 ~ /^v/ {print $2}' "$src/go.mod")
  local hash; hash=$(cat "$src"/go.mod "$src"/go.sum | sha256sum | cut -c1-12)
  local dir=$CACHE/flux-$source-$kustomize-$gover-$hash
  if [[ ! -x $dir/source-controller || ! -x $dir/kustomize-controller ]]; then
    log "building Flux source-controller $source and kustomize-controller $kustomize with $gover (15+ minutes cold, once per machine)"
    local tmp; tmp=$(mktemp -d "$CACHE/.flux.XXXXXX")
    (cd "$src" && go build -trimpath -buildvcs=false -o "$tmp/" github.com/fluxcd/source-controller github.com/fluxcd/kustomize-controller) >&2
    local mods; mods=$(go env GOMODCACHE)/github.com/fluxcd
    mkdir "$tmp/crds"
    cp "$mods/source-controller@$source"/config/crd/bases/*.yaml "$mods/kustomize-controller@$kustomize"/config/crd/bases/*.yaml "$tmp/crds/"
    publish "$tmp" "$dir"
  fi
  link source-controller "$dir/source-controller"
  link kustomize-controller "$dir/kustomize-controller"
  link flux-crds "$dir/crds"
}

case ${1:-all} in
  minio) build_minio ;;
  controlplane) build_controlplane ;;
  helm) build_helm ;;
  kubectl) build_kubectl ;;
  coredns) build_coredns ;;
  kube-router) build_kube_router ;;
  pebble) build_pebble ;;
  flux) build_flux ;;
  all) build_controlplane; build_minio; build_helm; build_kubectl; build_coredns; build_pebble; build_flux ;;
  *) die "unknown tool: $1" ;;
esac
