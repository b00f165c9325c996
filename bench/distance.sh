#!/usr/bin/env bash
# Distance benchmark (bench/distance.rs says what is measured): one cluster
# 0, 10 and 40 ms of round trip away behind the test bed's delay proxy;
# `status` against etcdctl, and `defrag` with nothing due against `status`,
# interleaved in one run, with the connections and round trips each made.
#
#   bench/distance.sh [--rtts 0,10,40] [--runs 15] [--binary PATH] [--version 3.6]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/lib.sh
ensure_testbed
cargo bench --locked --bench distance -- "$@"
