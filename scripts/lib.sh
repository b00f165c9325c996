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

# Everything the test bed needs, then the servers themselves (built from
# their Go modules into a cache on first use).
ensure_testbed() {
  ensure_toolchains
  ensure_protoc
  say "building the test bed servers (cached after the first run)"
  testbed/build.sh >/dev/null
}
