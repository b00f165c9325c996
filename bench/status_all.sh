#!/usr/bin/env bash
# `status -A` benchmark (bench/status_all.rs says what is measured): the
# wall time of `status -A` over 20 EtcdClusters against `status` of one of
# them, interleaved in the same run on the same machine, and their ratio.
#
#   bench/status_all.sh [--clusters 20] [--members 3] [--runs 10] [--rtt-ms N] [--binary PATH]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/lib.sh
ensure_testbed
cargo bench --locked --bench status_all -- "$@"
