#!/usr/bin/env bash
# The first look: builds kubectl-etcd, starts a local 3-member mutual-TLS
# etcd cluster from the test bed, and shows what the tool sees. The cluster
# is stopped when the script ends (pass --keep to leave it running until
# Ctrl-C, with its ETCDCTL_* settings printed for your own shell).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/lib.sh

keep=false
[ "${1:-}" = "--keep" ] && keep=true

ensure_testbed
say "building kubectl-etcd"
cargo build --release --locked -p kubectl-etcd -p kubectl-etcd-testbed

work="$(mktemp -d)"
target/release/testbed up --members 3 --security mtls --env-file "$work/env" 2>"$work/testbed.log" &
testbed_pid=$!
cleanup() { kill "$testbed_pid" 2>/dev/null || true; wait "$testbed_pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

for _ in $(seq 1 600); do
  [ -s "$work/env" ] && break
  kill -0 "$testbed_pid" 2>/dev/null || { cat "$work/testbed.log" >&2; exit 1; }
  sleep 0.1
done
[ -s "$work/env" ] || { say "cluster did not start"; cat "$work/testbed.log" >&2; exit 1; }
. "$work/env"
export PATH="$PWD/target/release:$PATH"

show() { printf '\n$ %s\n' "$*"; "$@"; }
say "a 3-member mTLS cluster is up; ETCDCTL_* point at it"
show kubectl-etcd members
show kubectl-etcd status
show kubectl-etcd status -o wide
show kubectl-etcd status --check
if $keep; then
  printf '\nThe cluster keeps running until Ctrl-C. In another shell:\n'
  sed 's/^/  /' "$work/env"
  printf '  export PATH=%s/target/release:$PATH\n' "$PWD"
  wait "$testbed_pid"
fi
