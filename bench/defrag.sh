#!/usr/bin/env bash
# Defrag benchmark (see testbed/src/bin/defrag-bench.rs for what is measured).
# Three runs: ~300 MB per member with ~10% in use (3 interleaved rounds,
# medians); >= 1 GB in use so a defrag takes seconds (2 rounds, ~25 min);
# and a cluster where only one member is over the threshold (3 rounds).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/lib.sh
ensure_testbed
cargo build --release --locked -p kubectl-etcd -p kubectl-etcd-testbed
bin="${CARGO_TARGET_DIR:-target}/release"
bench="$bin/defrag-bench"
tool="$bin/kubectl-etcd"

echo "## ~300 MB per member, ~10% in use (medians of 3 rounds)"
$bench --kubectl-etcd "$tool" --write-mb 300 --keep 0.1 --reps 3
echo
echo "## only one member over the threshold (medians of 3 rounds)"
$bench --kubectl-etcd "$tool" --write-mb 300 --keep 0.1 --reps 3 --only-one-fragmented --contenders etcdctl,auto
echo
echo "## >= 1 GB in use per member (medians of 2 rounds)"
$bench --kubectl-etcd "$tool" --write-mb 1500 --keep 0.75 --reps 2
