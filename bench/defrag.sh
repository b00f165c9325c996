#!/usr/bin/env bash
# Defrag benchmark (see testbed/src/bin/defrag-bench/ for what is measured).
#
#   bench/defrag.sh [BASELINE]
#
# Three runs: ~300 MB per member with ~10% in use (3 interleaved rounds,
# medians); >= 1 GB in use so a defrag takes longer than etcd's request
# timeout (3 rounds); and a cluster where only one member is over the
# threshold (3 rounds). Every failed or slow client request is sorted by
# etcd's error and the sweep step it met; each round's steps are printed.
# With BASELINE (an earlier kubectl-etcd binary), its sweep runs beside this
# one in the same rounds as `before:<mode>`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/lib.sh
ensure_testbed
cargo build --release --locked -p kubectl-etcd -p kubectl-etcd-testbed
bin="${CARGO_TARGET_DIR:-target}/release"
bench="$bin/defrag-bench"
tool="$bin/kubectl-etcd"
baseline=()
before_small=""
before_large=""
if [[ $# -ge 1 ]]; then
  baseline=(--baseline "$1")
  before_small="before:auto,"
  before_large="before:never,before:auto,"
fi

echo "## ~300 MB per member, ~10% in use (medians of 3 rounds)"
$bench --kubectl-etcd "$tool" "${baseline[@]}" --write-mb 300 --keep 0.1 --reps 3 \
  --contenders "etcdctl,${before_small}auto,always" --timelines
echo
echo "## only one member over the threshold (medians of 3 rounds)"
$bench --kubectl-etcd "$tool" --write-mb 300 --keep 0.1 --reps 3 --only-one-fragmented \
  --contenders etcdctl,auto
echo
echo "## >= 1 GB in use per member (medians of 3 rounds)"
$bench --kubectl-etcd "$tool" "${baseline[@]}" --write-mb 1500 --keep 0.75 --reps 3 \
  --contenders "etcdctl,${before_large}never,auto" --timelines
