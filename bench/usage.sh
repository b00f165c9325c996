#!/usr/bin/env bash
# `usage` benchmark (bench/usage.rs says what is measured): `usage` over a
# million keys on a 3-member cluster, its wall time, and the latency it adds
# to a writer Putting to the leader every 10 ms, against the writer alone
# and against one unpaginated `etcdctl get` of the whole keyspace.
#
#   bench/usage.sh [--keys 1000000] [--value-bytes 200] [--runs 3] [--binary PATH] [--version 3.6]
#                  [--loaders 8] [--baseline-seconds 10] [--gap-seconds 3]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/lib.sh
ensure_testbed
cargo bench --locked --bench usage -- "$@"
