#!/usr/bin/env bash
# Binary size and start-up time of the release binary (the static musl one
# scripts/release.sh ships), against etcdctl 3.6 of the test bed, in the
# same run:
#   - size on disk (etcdctl as the test bed builds it, and stripped as the
#     etcd project ships it);
#   - start-up with hyperfine: `version`, `--help`, and `status` against an
#     endpoint where nothing listens (connection refused at once), so the
#     time is the tool's own, not the network's.
#
#   bench/binary.sh                 # the above
#   PANIC_ABORT=1 bench/binary.sh   # also the size with panic = "abort"
#                                   # (another full LTO build)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/lib.sh
ensure_testbed
if ! command -v hyperfine >/dev/null 2>&1; then
  say "installing hyperfine"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq hyperfine >/dev/null
fi

target=x86_64-unknown-linux-musl
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
scripts/release.sh --targets "$target" --no-write-manifest --out "$work/dist" >/dev/null
tool="${CARGO_TARGET_DIR:-target}/$target/release/kubectl-etcd"
etcdctl="$(testbed/build.sh etcd-v3.6 2>/dev/null)/etcd-v3.6/etcdctl"
cp "$etcdctl" "$work/etcdctl-stripped"
strip "$work/etcdctl-stripped"

size() { stat -c %s "$1"; }
mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }
archive="$(ls "$work"/dist/*.tar.gz)"
echo "## Size"
echo
echo "| binary | bytes | |"
echo "|---|---|---|"
echo "| kubectl-etcd (static musl, LTO, stripped) | $(size "$tool") | $(mib "$(size "$tool")") |"
echo "| its krew archive (.tar.gz) | $(size "$archive") | $(mib "$(size "$archive")") |"
echo "| etcdctl 3.6 (test bed build, with symbols) | $(size "$etcdctl") | $(mib "$(size "$etcdctl")") |"
echo "| etcdctl 3.6 stripped (as released) | $(size "$work/etcdctl-stripped") | $(mib "$(size "$work/etcdctl-stripped")") |"
if [ "${PANIC_ABORT:-0}" = 1 ]; then
  CARGO_PROFILE_RELEASE_PANIC=abort CARGO_TARGET_DIR="$work/abort-target" \
    cargo build --locked -q --release --target "$target" -p kubectl-etcd
  abort="$work/abort-target/$target/release/kubectl-etcd"
  echo "| kubectl-etcd with panic = \"abort\" | $(size "$abort") | $(mib "$(size "$abort")") |"
fi
echo
echo "## Start-up (hyperfine, warm cache)"
echo
hyperfine --warmup 3 --runs 20 --style basic --export-markdown "$work/startup.md" -N \
  -n 'kubectl-etcd version' "$tool version" \
  -n 'etcdctl version' "$work/etcdctl-stripped version" \
  -n 'kubectl-etcd --help' "$tool --help" \
  -n 'etcdctl --help' "$work/etcdctl-stripped --help" \
  -n 'kubectl-etcd status (refused)' "$tool status --endpoints http://127.0.0.1:1 -o json" \
  -n 'etcdctl endpoint status (refused)' "$work/etcdctl-stripped endpoint status --endpoints http://127.0.0.1:1 -w json" \
  -i >/dev/null
cat "$work/startup.md"
