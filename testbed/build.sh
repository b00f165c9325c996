#!/usr/bin/env bash
# Builds (or reuses) the real servers the tests run against, from their
# published Go modules, into a cache outside the repository.
#
#   testbed/build.sh            # build what is missing, print the cache dir
#
# Cache: $KUBECTL_ETCD_TESTBED_CACHE, default ~/.cache/kubectl-etcd-testbed.
# Each binary lives in a folder named after the module version and a hash of
# the go.sum that pinned it, so changing a pin rebuilds and nothing stale is
# reused.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${KUBECTL_ETCD_TESTBED_CACHE:-$HOME/.cache/kubectl-etcd-testbed}"
mkdir -p "$cache"

log() { printf 'testbed: %s\n' "$*" >&2; }

if ! command -v go >/dev/null 2>&1; then
  if [ -x /usr/local/go/bin/go ]; then
    export PATH="/usr/local/go/bin:$PATH"
  else
    log "Go is required to build etcd from its module; install Go and retry"
    exit 2
  fi
fi

# One tools module per etcd minor version. Builds the server (our own tiny
# main over etcdmain) and etcdctl of the same release (a go.mod tool).
build_etcd() {
  local dir="$1" version key out
  version="$(awk '{ for (i = 1; i < NF; i++) if ($i == "go.etcd.io/etcd/server/v3") print $(i + 1) }' "$here/go/$dir/go.mod")"
  key="$(sha256sum "$here/go/$dir/go.sum" | cut -c1-12)"
  out="$cache/etcd-$version-$key"
  if [ -x "$out/etcd" ] && [ -x "$out/etcdctl" ]; then
    log "etcd $version: cached in $out"
  else
    log "etcd $version: building from go.etcd.io/etcd/server/v3@$version (a few minutes cold)"
    local tmp="$out.tmp.$$"
    rm -rf "$tmp" && mkdir -p "$tmp"
    (cd "$here/go/$dir" \
      && GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -o "$tmp/etcd" . \
      && GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -o "$tmp/etcdctl" go.etcd.io/etcd/etcdctl/v3)
    rm -rf "$out" && mv "$tmp" "$out"
  fi
  # A stable name the tests look up: etcd-v3.6 -> $cache/current/etcd-v3.6
  mkdir -p "$cache/current"
  ln -sfn "$out" "$cache/current/$dir"
}

# kube-apiserver from k8s.io/kubernetes, with one replace per staging
# module (testbed/go/<dir>/go.mod). Its first build takes several minutes on
# two cores. Two releases: the current one, and v1.30 (an API server that
# predates spec.trafficDistribution being on, for the traffic tests).
build_kube_apiserver() {
  local dir="$1" version key out
  version="$(awk '$1 == "require" && $2 == "k8s.io/kubernetes" { print $3 } $1 == "k8s.io/kubernetes" && $2 ~ /^v/ { print $2 }' "$here/go/$dir/go.mod" | head -1)"
  # Stamp the version as the Kubernetes release build does (a module build
  # otherwise reports v0.0.0-master), so /version tells the truth.
  local minor="${version#v1.}"; minor="${minor%%.*}"
  local ldflags="-X k8s.io/component-base/version.gitVersion=$version -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean"
  key="$( (cat "$here/go/$dir/go.sum"; echo "$ldflags") | sha256sum | cut -c1-12)"
  out="$cache/kube-apiserver-$version-$key"
  if [ -x "$out/kube-apiserver" ]; then
    log "kube-apiserver $version: cached in $out"
  else
    log "kube-apiserver $version: building from k8s.io/kubernetes@$version (several minutes cold)"
    local tmp="$out.tmp.$$"
    rm -rf "$tmp" && mkdir -p "$tmp"
    (cd "$here/go/$dir" \
      && GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$tmp/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver)
    rm -rf "$out" && mv "$tmp" "$out"
  fi
  mkdir -p "$cache/current"
  ln -sfn "$out" "$cache/current/$dir"
}

build_etcd etcd-v3.6
build_etcd etcd-v3.5
build_kube_apiserver kube-apiserver
build_kube_apiserver kube-apiserver-v1.30

echo "$cache/current"
