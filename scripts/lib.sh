# Shared by scripts/*.sh: install what a fresh machine lacks.
# shellcheck shell=bash

say() { printf '==> %s\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

# etcd-client compiles etcd's protobuf definitions at build time.
ensure_protoc() {
  if ! command -v protoc >/dev/null 2>&1; then
    say "installing protobuf-compiler (etcd-client's build needs protoc)"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq protobuf-compiler >/dev/null
  fi
}

# scripts/house.py, the house rules' check (docs/house.md), is Python 3
# with its standard library only.
ensure_python() {
  if ! command -v python3 >/dev/null 2>&1; then
    say "installing python3 (scripts/house.py checks the house rules)"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends python3 >/dev/null
  fi
}

ensure_toolchains() {
  if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
  fi
  if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
    export PATH="/usr/local/go/bin:$PATH"
  fi
  command -v cargo >/dev/null 2>&1 || { say "cargo not found: install Rust with rustup"; exit 2; }
  command -v go >/dev/null 2>&1 || { say "go not found: install Go (the test bed builds etcd from its module)"; exit 2; }
}

# The real node's container runtime and networking (tests/node/node.rs and
# the suites on it): containerd, runc, the CNI plugins, iptables for
# kube-proxy, nsenter/unshare (util-linux) and ip (iproute2) for its
# confinement, buildah for the tool's image, curl and script for the
# monitoring test.
ensure_node_packages() {
  local missing=()
  command -v containerd >/dev/null 2>&1 || missing+=(containerd)
  command -v runc >/dev/null 2>&1 || [ -x /usr/sbin/runc ] || missing+=(runc)
  [ -x /usr/lib/cni/bridge ] || missing+=(containernetworking-plugins)
  command -v iptables >/dev/null 2>&1 || [ -x /usr/sbin/iptables ] || missing+=(iptables)
  command -v ip >/dev/null 2>&1 || [ -x /usr/sbin/ip ] || missing+=(iproute2)
  # The tool's image is built from Containerfile with buildah, offline.
  command -v buildah >/dev/null 2>&1 || missing+=(buildah)
  # tests/node/monitoring.rs asks Prometheus's API with curl, and runs the
  # alerts' advice on a terminal with script (util-linux).
  command -v curl >/dev/null 2>&1 || missing+=(curl)
  command -v script >/dev/null 2>&1 || missing+=(bsdutils)
  install_missing "the test bed's real node" "${missing[@]}"
}

# Installs the Debian packages named after $1 (why they are needed), if any.
install_missing() {
  local why="$1"
  shift
  if [ "$#" -gt 0 ]; then
    say "installing $* ($why)"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "$@" >/dev/null
  fi
}

# tests/cli/cli.rs completes in the real shells: bash (here already),
# zsh and fish, on a terminal made by script (util-linux).
ensure_shells() {
  local missing=()
  command -v zsh >/dev/null 2>&1 || missing+=(zsh)
  command -v fish >/dev/null 2>&1 || missing+=(fish)
  command -v script >/dev/null 2>&1 || missing+=(bsdutils)
  install_missing "the completion tests' shells" "${missing[@]}"
}

# Everything the test bed needs, then the servers themselves (built from
# their Go modules into a cache on first use).
ensure_testbed() {
  ensure_toolchains
  ensure_protoc
  ensure_node_packages
  ensure_shells
  say "building the test bed servers (cached after the first run)"
  testbed/build.sh >/dev/null
  # The pinned older releases the upgrade and advisory tests run
  # (tests/etcd/doctor.rs), and kubeadm for the control plane laid out by
  # its own phases (tests/node/kubeadm.rs): built only when named.
  testbed/build.sh etcd-v3.6.5 etcd-v3.5.23 kubeadm >/dev/null
}
