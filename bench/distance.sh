#!/usr/bin/env bash
# Distance benchmark (bench/distance.rs says what is measured): every etcd
# release the test bed has, in standalone and plugin mode, 0, 10 and 40 ms
# of round trip away behind the test bed's delay proxy; each looking
# command's median wall time and the round trips the proxies counted,
# beside etcdctl's and, with --before, another build's, in one run.
#
#   bench/distance.sh [--rtts 0,10,40] [--runs 5] [--binary PATH] [--before PATH]
#                     [--versions 3.4,3.5,3.6,3.7] [--modes standalone,plugin]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/lib.sh
ensure_testbed
cargo bench --locked --bench distance -- "$@"
