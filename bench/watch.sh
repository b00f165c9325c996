#!/usr/bin/env bash
# `defrag --watch` benchmark (bench/watch.rs says what is measured): idle
# RSS with 50 EtcdClusters and 200 finished EtcdDefrags in scope, the
# watcher's API requests in an idle minute (from the API server's audit
# log), and creation-to-Running latency on a healthy cluster.
#
#   bench/watch.sh [--runs 20] [--idle-seconds 60]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/lib.sh
ensure_testbed
cargo bench --locked --bench watch -- "$@"
