#!/usr/bin/env bash
# Builds (or reuses) the real servers the tests run against, from their
# published Go modules, into a cache outside the repository; etcd 3.4 is
# unpacked from Debian's packages instead.
#
#   testbed/build.sh            # build what is missing, print the cache dir
#   testbed/build.sh etcd-v3.6  # only the servers named
#   testbed/build.sh etcd-v3.6.5 etcd-v3.5.23  # the pinned older releases:
#                               # built only when named, never by default
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

# One tools module per etcd minor version (and one per pinned older
# release). Builds the server (our own tiny main over etcdmain), and etcdctl
# and etcdutl of the same release (go.mod tools; etcdutl restores the
# snapshots the tests save).
#   build_etcd DIR [TOOLS_DIR]   (TOOLS_DIR: the module etcdctl and etcdutl
#                                 are built from, default DIR)
build_etcd() {
  local dir="$1" tools="${2:-$1}" version key out
  version="$(awk '{ for (i = 1; i < NF; i++) if ($i == "go.etcd.io/etcd/server/v3") print $(i + 1) }' "$here/go/$dir/go.mod")"
  if [ "$tools" = "$dir" ]; then
    key="$(sha256sum "$here/go/$dir/go.sum" | cut -c1-12)"
  else
    # Both pins name the folder: changing either rebuilds.
    key="$(cat "$here/go/$dir/go.sum" "$here/go/$tools/go.sum" | sha256sum | cut -c1-12)"
  fi
  out="$cache/etcd-$version-$key"
  if [ -x "$out/etcd" ] && [ -x "$out/etcdctl" ] && [ -x "$out/etcdutl" ]; then
    log "etcd $version: cached in $out"
  else
    log "etcd $version: building from go.etcd.io/etcd/server/v3@$version (a few minutes cold)"
    local tmp="$out.tmp.$$"
    rm -rf "$tmp" && mkdir -p "$tmp"
    (cd "$here/go/$dir" \
      && GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -o "$tmp/etcd" .)
    (cd "$here/go/$tools" \
      && GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -o "$tmp/etcdctl" go.etcd.io/etcd/etcdctl/v3 \
      && GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -o "$tmp/etcdutl" go.etcd.io/etcd/etcdutl/v3)
    rm -rf "$out" && mv "$tmp" "$out"
  fi
  # A stable name the tests look up: etcd-v3.6 -> $cache/current/etcd-v3.6
  mkdir -p "$cache/current"
  ln -sfn "$out" "$cache/current/$dir"
}

# etcd 3.4 (the oldest release in the matrix) from the distribution's
# etcd-server and etcd-client packages (Debian 12: 3.4.23), not from a Go
# module. The .debs are fetched with `apt-get download` and unpacked with
# `dpkg-deb -x`: nothing is installed, so no system etcd service is set up or
# started. The folder is keyed by the packages' versions, so a new Debian
# revision is fetched again and nothing stale is reused.
deb_version() {
  apt-cache policy "$1" 2>/dev/null | awk '$1 == "Candidate:" && $2 != "(none)" { print $2 }'
}

deb_out() {
  # etcd-3.4.23-deb-<key>: upstream version (epoch and Debian revision cut)
  # plus a hash of both package versions.
  local server="$1" client="$2" upstream key
  upstream="${server#*:}"; upstream="${upstream%%-*}"
  key="$(printf 'etcd-server %s\netcd-client %s\n' "$server" "$client" | sha256sum | cut -c1-12)"
  echo "$cache/etcd-$upstream-deb-$key"
}

fetch_etcd_deb() {
  local dir="$1" server client out
  if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg-deb >/dev/null 2>&1; then
    log "etcd 3.4 comes from Debian's etcd-server/etcd-client packages: apt-get and dpkg-deb are required"
    exit 2
  fi
  server="$(deb_version etcd-server)"
  client="$(deb_version etcd-client)"
  if [ -n "$server" ] && [ -n "$client" ]; then
    out="$(deb_out "$server" "$client")"
    if [ -x "$out/etcd" ] && [ -x "$out/etcdctl" ]; then
      log "etcd $server (Debian): cached in $out"
      mkdir -p "$cache/current"
      ln -sfn "$out" "$cache/current/$dir"
      return
    fi
  fi
  log "etcd 3.4: fetching Debian's etcd-server and etcd-client packages (unpacked, not installed)"
  deb_tmp="$(mktemp -d "${TMPDIR:-/tmp}/kubectl-etcd-testbed-deb.XXXXXX")"
  trap 'rm -rf "$deb_tmp"' EXIT
  local tmp="$deb_tmp"
  # apt-get download as root fetches as the _apt user: let it write here
  # (and only it), so apt neither warns nor falls back to root.
  if [ "$(id -u)" = 0 ] && id _apt >/dev/null 2>&1; then chown _apt "$tmp"; fi
  if ! (cd "$tmp" && apt-get download -q etcd-server etcd-client >&2); then
    log "etcd 3.4: apt-get download failed; refreshing the package lists (apt-get update) and retrying"
    apt-get update -qq >&2
    (cd "$tmp" && apt-get download -q etcd-server etcd-client >&2)
  fi
  local server_deb client_deb
  server_deb="$(ls "$tmp"/etcd-server_*.deb)"
  client_deb="$(ls "$tmp"/etcd-client_*.deb)"
  # The versions actually fetched name the folder (apt's lists may have
  # been missing above).
  server="$(dpkg-deb -f "$server_deb" Version)"
  client="$(dpkg-deb -f "$client_deb" Version)"
  out="$(deb_out "$server" "$client")"
  dpkg-deb -x "$server_deb" "$tmp/root"
  dpkg-deb -x "$client_deb" "$tmp/root"
  local stage="$out.tmp.$$"
  rm -rf "$stage" && mkdir -p "$stage"
  cp "$tmp/root/usr/bin/etcd" "$tmp/root/usr/bin/etcdctl" "$stage/"
  local reported
  reported="$("$stage/etcd" --version)"
  reported="${reported%%$'\n'*}"
  if [[ "$reported" != "etcd Version: 3.4."* ]]; then
    log "Debian's etcd-server $server is not a 3.4 release: $reported"
    rm -rf "$stage"
    exit 2
  fi
  rm -rf "$out" && mv "$stage" "$out"
  log "etcd $server (Debian): unpacked into $out"
  mkdir -p "$cache/current"
  ln -sfn "$out" "$cache/current/$dir"
}

# Commands of k8s.io/kubernetes, from the module pinned in testbed/go/<dir>
# (one replace per staging module): kube-apiserver, whose first build takes
# several minutes on two cores, in three releases — the current one (1.37),
# v1.34 (the last before PreferSameZone/PreferSameNode went GA) and v1.30
# (an API server that predates spec.trafficDistribution being on, for the
# traffic tests) — and kubectl of the current one, so the plugin is tested
# through the kubectl that matches the server.
#   build_k8s DIR COMMAND LINK   (LINK: the name under $cache/current)
build_k8s() {
  local dir="$1" cmd="$2" link="$3" version key out
  version="$(awk '$1 == "require" && $2 == "k8s.io/kubernetes" { print $3 } $1 == "k8s.io/kubernetes" && $2 ~ /^v/ { print $2 }' "$here/go/$dir/go.mod" | head -1)"
  # Stamp the version as the Kubernetes release build does (a module build
  # otherwise reports v0.0.0-master), so /version tells the truth.
  local minor="${version#v1.}"; minor="${minor%%.*}"
  local ldflags="-X k8s.io/component-base/version.gitVersion=$version -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean"
  key="$( (cat "$here/go/$dir/go.sum"; echo "$ldflags") | sha256sum | cut -c1-12)"
  out="$cache/$cmd-$version-$key"
  if [ -x "$out/$cmd" ]; then
    log "$cmd $version: cached in $out"
  else
    log "$cmd $version: building from k8s.io/kubernetes@$version (several minutes cold)"
    local tmp="$out.tmp.$$"
    rm -rf "$tmp" && mkdir -p "$tmp"
    (cd "$here/go/$dir" \
      && GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$tmp/$cmd" "k8s.io/kubernetes/cmd/$cmd")
    rm -rf "$out" && mv "$tmp" "$out"
  fi
  mkdir -p "$cache/current"
  ln -sfn "$out" "$cache/current/$link"
}

# Small Go programs of the test bed's own (a module each under
# testbed/go/<dir>): the fake kubelet that serves port-forward for the member
# Pods' Node, and krew (kubectl-krew and its manifest validator).
build_tools() {
  local dir="$1" key out
  shift
  key="$( (cat "$here/go/$dir/go.sum"; cat "$here/go/$dir"/*.go 2>/dev/null || true) | sha256sum | cut -c1-12)"
  out="$cache/$dir-$key"
  local have=1 pkg
  for pkg in "$@"; do [ -x "$out/${pkg%%=*}" ] || have=0; done
  if [ "$have" = 1 ]; then
    log "$dir: cached in $out"
  else
    log "$dir: building from testbed/go/$dir (a minute or two cold)"
    local tmp="$out.tmp.$$"
    rm -rf "$tmp" && mkdir -p "$tmp"
    for pkg in "$@"; do
      (cd "$here/go/$dir" && GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -o "$tmp/${pkg%%=*}" "${pkg#*=}")
    done
    rm -rf "$out" && mv "$tmp" "$out"
  fi
  mkdir -p "$cache/current"
  ln -sfn "$out" "$cache/current/$dir"
}

# The real etcd-operator (`testbed node up --operator`), from its source
# beside the project: its module path is not served by the module proxy,
# its dependencies are. Two versions, each from its own folder of
# ../shared/anchors: `operator` is the one that shipped the EtcdDefrag type
# ahead of its controller (etcd-operator, or $KUBECTL_ETCD_OPERATOR_SRC),
# `operator-defrag` the one with its own EtcdDefrag and EtcdDefragPolicy
# controllers (etcd-operator-with-defrag, or
# $KUBECTL_ETCD_OPERATOR_DEFRAG_SRC). Built read-only (-mod=readonly:
# nothing is written into the source), keyed by a hash of its go.sum and
# Go files; its CRDs and RBAC rules are copied from the same source.
#   build_operator SRC LINK   (LINK: the name under $cache/current)
build_operator() {
  local src="$1" link="$2" key out
  if [ ! -f "$src/go.mod" ]; then
    log "the etcd-operator's source ($link) is not at $src: set KUBECTL_ETCD_OPERATOR_SRC or KUBECTL_ETCD_OPERATOR_DEFRAG_SRC to its folder"
    exit 2
  fi
  src="$(cd "$src" && pwd)"
  local chart="$src/charts/etcd-operator"
  key="$( (cd "$src" && cat go.mod go.sum && find . -name '*.go' ! -name '*_test.go' | LC_ALL=C sort | xargs cat && cat "$chart"/crd-bases/*.yaml "$chart/files/manager-role-rules.yaml") | sha256sum | cut -c1-12)"
  out="$cache/$link-$key"
  if [ -x "$out/manager" ] && [ -f "$out/manager-role-rules.yaml" ]; then
    log "$link: cached in $out"
  else
    log "$link: building from $src (two or three minutes cold)"
    local tmp="$out.tmp.$$"
    rm -rf "$tmp" && mkdir -p "$tmp"
    (cd "$src" && GOFLAGS=-mod=readonly CGO_ENABLED=0 go build -trimpath -o "$tmp/manager" .)
    # Its CRDs and the ClusterRole rules its chart generates from the
    # +kubebuilder:rbac markers, read by the test bed at start.
    mkdir -p "$tmp/crds"
    cp "$chart"/crd-bases/*.yaml "$tmp/crds/"
    cp "$chart/files/manager-role-rules.yaml" "$tmp/"
    rm -rf "$out" && mv "$tmp" "$out"
  fi
  mkdir -p "$cache/current"
  ln -sfn "$out" "$cache/current/$link"
}

# The etcd project's own operator (`operator.etcd.io`, `testbed node up
# --etcd-io-operator`), from ../shared/anchors/etcd-io-etcd-operator (or
# $KUBECTL_ETCD_ETCDIO_OPERATOR_SRC). Its module path is not served by the
# module proxy and its go.sum is not complete for its build, so it is built
# from a copy with -mod=mod (the source stays untouched); keyed by a hash
# of its go.mod, go.sum and Go files. Its CRD and the ClusterRole its
# kubebuilder markers generate are copied from the same source.
build_etcdio_operator() {
  local src="${KUBECTL_ETCD_ETCDIO_OPERATOR_SRC:-$here/../../shared/anchors/etcd-io-etcd-operator}" key out
  if [ ! -f "$src/go.mod" ]; then
    log "the etcd project's operator's source is not at $src: set KUBECTL_ETCD_ETCDIO_OPERATOR_SRC to its folder"
    exit 2
  fi
  src="$(cd "$src" && pwd)"
  key="$( (cd "$src" && cat go.mod go.sum && find . -name '*.go' ! -name '*_test.go' | LC_ALL=C sort | xargs cat && cat config/crd/bases/*.yaml config/rbac/role.yaml) | sha256sum | cut -c1-12)"
  out="$cache/etcd-io-operator-$key"
  if [ -x "$out/manager" ] && [ -f "$out/role.yaml" ]; then
    log "etcd-io-operator: cached in $out"
  else
    log "etcd-io-operator: building from a copy of $src (two or three minutes cold)"
    local tmp="$out.tmp.$$"
    rm -rf "$tmp" && mkdir -p "$tmp/src" "$tmp/crds"
    cp -r "$src"/. "$tmp/src/"
    (cd "$tmp/src" && GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -o "$tmp/manager" ./cmd/)
    cp "$src"/config/crd/bases/*.yaml "$tmp/crds/"
    cp "$src/config/rbac/role.yaml" "$tmp/role.yaml"
    rm -rf "$tmp/src"
    rm -rf "$out" && mv "$tmp" "$out"
  fi
  mkdir -p "$cache/current"
  ln -sfn "$out" "$cache/current/etcd-io-operator"
}

# Everything by default; or only the servers named (the first look needs
# only etcd-v3.6).
build_one() {
  case "$1" in
    etcd-v3.7|etcd-v3.6|etcd-v3.5) build_etcd "$1" ;;
    # Older releases pinned for the defects they carry (below the upgrade
    # floors, before the auth fixes); not in the default list below. 3.6.5
    # has etcdctl and etcdutl of its own release; the module proxy serves no
    # etcdctl or etcdutl v3.5.23 (none between 3.5.11 and 3.5.33), so
    # 3.5.23's come from etcd-v3.5's module (3.5.35).
    etcd-v3.6.5) build_etcd "$1" ;;
    etcd-v3.5.23) build_etcd "$1" etcd-v3.5 ;;
    etcd-v3.4) fetch_etcd_deb "$1" ;;
    kube-apiserver|kube-apiserver-v1.34|kube-apiserver-v1.30) build_k8s "$1" kube-apiserver "$1" ;;
    kubectl) build_k8s kube-apiserver kubectl kubectl ;;
    # kubeadm of the same release, for control planes laid out by kubeadm's
    # own phases (issue 42); built only when named until a suite needs it.
    kubeadm) build_k8s kube-apiserver kubeadm kubeadm ;;
    kubelet) build_tools kubelet fake-kubelet=. ;;
    krew) build_tools krew kubectl-krew=sigs.k8s.io/krew/cmd/krew validate-krew-manifest=sigs.k8s.io/krew/cmd/validate-krew-manifest ;;
    # A real node (`testbed node up`): the node's and the control plane's
    # other commands from the same k8s.io/kubernetes as kube-apiserver, the
    # sandbox ("pause") program of the test bed's own, and the cluster DNS
    # (CoreDNS from its module, with only the plugins the node uses).
    node)
      for cmd in kubelet kube-proxy kube-controller-manager kube-scheduler; do
        build_k8s kube-apiserver "$cmd" "node-$cmd"
      done
      build_tools pause pause=.
      build_one coredns ;;
    coredns) build_tools coredns coredns=. ;;
    # Prometheus and promtool (issue 43): the alert rules checked and unit
    # tested, doctor --serve scraped and its alerts read back.
    prometheus) build_tools prometheus prometheus=github.com/prometheus/prometheus/cmd/prometheus promtool=github.com/prometheus/prometheus/cmd/promtool ;;
    operator) build_operator "${KUBECTL_ETCD_OPERATOR_SRC:-$here/../../shared/anchors/etcd-operator}" etcd-operator ;;
    operator-defrag) build_operator "${KUBECTL_ETCD_OPERATOR_DEFRAG_SRC:-$here/../../shared/anchors/etcd-operator-with-defrag}" etcd-operator-defrag ;;
    etcd-io-operator) build_etcdio_operator ;;
    *) log "unknown server $1 (etcd-v3.7, etcd-v3.6, etcd-v3.5, etcd-v3.4, etcd-v3.6.5, etcd-v3.5.23, kube-apiserver, kube-apiserver-v1.34, kube-apiserver-v1.30, kubectl, kubeadm, kubelet, krew, node, coredns, prometheus, operator, operator-defrag, etcd-io-operator)"; exit 2 ;;
  esac
}

# The pinned older releases (etcd-v3.6.5, etcd-v3.5.23) and kubeadm are left
# out: only the suites that need them build them, by name.
if [ "$#" -eq 0 ]; then
  set -- etcd-v3.7 etcd-v3.6 etcd-v3.5 etcd-v3.4 kube-apiserver kube-apiserver-v1.34 kube-apiserver-v1.30 kubectl kubelet krew node prometheus operator operator-defrag etcd-io-operator
fi
for server in "$@"; do
  build_one "$server"
done

echo "$cache/current"
