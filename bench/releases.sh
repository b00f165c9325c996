#!/usr/bin/env bash
# Round trips of `status` on each etcd release (issue 39): a 3-member
# mutual-TLS cluster of each release, 0 and 40 ms of round trip away behind
# the test bed's delay proxy, found from one seed; two builds of the tool
# and etcdctl (`endpoint status --cluster`) interleaved, each run RUNS
# times; the median wall time of each. What 40 ms costs over 0 ms, divided
# by 40 ms, is the round trips a command makes.
#
#   bench/releases.sh OLD_BINARY NEW_BINARY [RUNS (7)] [RELEASES (3.4 3.5 3.7)]
#
# Build the two binaries from the commits to compare (`cargo build`, any
# profile: at 40 ms the distance dominates).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/lib.sh
old=${1:?the first build of kubectl-etcd}
new=${2:?the second build of kubectl-etcd}
runs=${3:-7}
releases=${4:-3.4 3.5 3.7}
ensure_testbed
cargo build --locked -q -p kubectl-etcd-testbed --bin testbed
testbed="${CARGO_TARGET_DIR:-target}/debug/testbed"
cache="${KUBECTL_ETCD_TESTBED_CACHE:-$HOME/.cache/kubectl-etcd-testbed}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { tr ' ' '\n' | grep . | sort -n | sed -n "$(( (runs + 1) / 2 ))p"; }
ms() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); }

printf '%-8s %6s %8s %8s %8s\n' release rtt old new etcdctl
for release in $releases; do
  case $release in
    3.4) etcdctl=$(find "$cache" -maxdepth 2 -path '*etcd-3.4*' -name etcdctl | head -1) ;;
    *) etcdctl=$(find "$cache" -maxdepth 2 -path "*etcd-v$release.*" -name etcdctl | head -1) ;;
  esac
  for rtt in 0 40; do
    rm -f "$work/env"
    "$testbed" up --version "$release" --security mtls --rtt-ms "$rtt" \
      --env-file "$work/env" >"$work/testbed.log" 2>&1 &
    pid=$!
    for _ in $(seq 1 90); do [ -s "$work/env" ] && break; sleep 1; done
    [ -s "$work/env" ] || { cat "$work/testbed.log" >&2; exit 1; }
    # shellcheck disable=SC1091
    . "$work/env"
    export ETCDCTL_ENDPOINTS=${ETCDCTL_ENDPOINTS%%,*} ETCDCTL_API=3
    t_old='' t_new='' t_ctl=''
    for _ in $(seq 1 "$runs"); do
      t_old+=" $(ms "$old" status -o json)"
      t_new+=" $(ms "$new" status -o json)"
      t_ctl+=" $(ms "$etcdctl" endpoint status --cluster -w json)"
    done
    printf '%-8s %4sms %6sms %6sms %6sms\n' "$release" "$rtt" \
      "$(echo "$t_old" | median)" "$(echo "$t_new" | median)" "$(echo "$t_ctl" | median)"
    kill -TERM "$pid"
    wait "$pid" 2>/dev/null || true
  done
done
