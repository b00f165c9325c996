#!/usr/bin/env bash
# The first look: builds etcd 3.6 (only it) and kubectl-etcd, starts a
# local 3-member mutual-TLS etcd cluster from the test bed, fragments it,
# and shows the main job: `status`, the `defrag --dry-run` plan, the
# health-gated follower-first sweep, and `status` after. The cluster is
# stopped when the script ends (pass --keep to leave it running until
# Ctrl-C, with its ETCDCTL_* settings printed for your own shell).
# FRAGMENT_MB (default 300) sets how much is written per member: with 10%
# kept, each member has about 270 MB to reclaim, over the default 200Mi rule.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/lib.sh

keep=false
[ "${1:-}" = "--keep" ] && keep=true
FRAGMENT_MB="${FRAGMENT_MB:-300}"

ensure_toolchains
ensure_protoc
work="$(mktemp -d)"
etcd_build=""
testbed_pid=""
cleanup() {
  for pid in $etcd_build $testbed_pid; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
# etcd (Go) and the tool (Rust) build side by side.
say "building etcd 3.6 from its Go module and kubectl-etcd (both cached after the first run)"
testbed/build.sh etcd-v3.6 >"$work/etcd-build.log" 2>&1 &
etcd_build=$!
cargo build --profile quick --locked -p kubectl-etcd -p kubectl-etcd-testbed
wait "$etcd_build" || { cat "$work/etcd-build.log" >&2; exit 1; }
etcd_build=""
bin="$(cd "${CARGO_TARGET_DIR:-target}/quick" && pwd)"

say "starting a 3-member mTLS etcd cluster and fragmenting it (${FRAGMENT_MB} MB written per member, 10% kept)"
"$bin/testbed" up --members 3 --security mtls --fragment-mb "$FRAGMENT_MB" --keep 0.1 \
  --env-file "$work/env" 2>"$work/testbed.log" &
testbed_pid=$!

for _ in $(seq 1 600); do
  [ -s "$work/env" ] && break
  kill -0 "$testbed_pid" 2>/dev/null || { cat "$work/testbed.log" >&2; exit 1; }
  sleep 0.1
done
[ -s "$work/env" ] || { say "cluster did not start"; cat "$work/testbed.log" >&2; exit 1; }
. "$work/env"
export PATH="$bin:$PATH"

show() { printf '\n$ %s\n' "$*"; "$@"; }
say "the cluster is up and fragmented; ETCDCTL_* point at it"
show kubectl-etcd status
show kubectl-etcd defrag --dry-run
show kubectl-etcd defrag --yes
show kubectl-etcd status
if $keep; then
  printf '\nThe cluster keeps running until Ctrl-C. In another shell:\n'
  sed 's/^/  /' "$work/env"
  printf '  export PATH=%s:$PATH\n' "$bin"
  wait "$testbed_pid"
fi
