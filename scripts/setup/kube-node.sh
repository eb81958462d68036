#!/usr/bin/env bash
# What the local Kubernetes node needs (e2e/harness/kube-node.ts): Debian's containerd, runc, CNI plugins,
# iptables and ipset, the control plane's build (it is the node's kubelet and kube-proxy too), CoreDNS,
# kube-router (its network-policy controller: the bridge plugins enforce no NetworkPolicy), Verdaccio (the npm
# registry mirror its build pods install through), and the pod
# sandbox ("pause") image, built here from e2e/pause with buildah since no registry's can be pulled. The image
# is cached by the hash of its source and linked as .tools/pause-image.oci.tar (its name beside it, .name).
source "$(dirname "$0")/lib.sh"
[[ $(id -u) == 0 ]] || die "the local node needs root (containerd, runc, the bridge and iptables)"
# Docker's own containerd package conflicts with Debian's: installing this one would remove Docker.
if dpkg-query -W -f='${Status}' containerd.io 2>/dev/null | grep -q 'install ok installed'; then
  die "Docker's containerd.io is installed; the local node uses Debian's containerd, and installing it would remove Docker's"
fi
apt_install containerd runc containernetworking-plugins iptables ipset buildah
"$(dirname "$0")/go-tools.sh" controlplane
"$(dirname "$0")/go-tools.sh" coredns
"$(dirname "$0")/go-tools.sh" kube-router
"$(dirname "$0")/npm-mirror.sh"
use_buildah_storage

src=$ROOT/e2e/pause/main.go
key=$( (go_version; cat "$src" "$0") | sha256sum | cut -c1-16)
out=$CACHE/pause-image-$key
name=localhost/cloudwright-pause:$key
if [[ ! -f $out/pause.oci.tar ]]; then
  log "building the pod sandbox image $name"
  tmp=$(mktemp -d "$CACHE/.pause-image.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags=-s -o "$tmp/pause" "$src" >&2
  c=$(buildah from scratch)
  trap 'buildah rm "$c" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
  buildah copy --quiet "$c" "$tmp/pause" /pause >/dev/null
  buildah config --entrypoint '["/pause"]' --user 65535:65535 "$c"
  buildah commit --quiet --timestamp 0 "$c" "$name" >/dev/null
  buildah push --quiet "$name" "oci-archive:$tmp/pause.oci.tar:$name" >&2
  rm "$tmp/pause"
  publish "$tmp" "$out"
fi
ln -sfn "$out/pause.oci.tar" "$ROOT/.tools/pause-image.oci.tar"
echo "$name" >"$ROOT/.tools/pause-image.oci.tar.name"
