#!/usr/bin/env bash
# `usage` benchmark (bench/usage.rs says what is measured): `usage` over a
# million keys on a 3-member cluster, its wall time, and the latency it adds
# to a writer Putting to the leader every 10 ms, against the writer alone
# and against one unpaginated `etcdctl get` of the whole keyspace; then
# `snapshot usage` of a snapshot of the same cluster, its time and peak
# memory (beside an earlier build's with --compare-binary; --runs 0 measures
# only that).
#
#   bench/usage.sh [--keys 1000000] [--value-bytes 200] [--runs 3] [--binary PATH] [--version 3.6]
#                  [--loaders 8] [--baseline-seconds 10] [--gap-seconds 3] [--compare-binary PATH]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/lib.sh
ensure_testbed
# Phase D reads peak memory from GNU time.
if [ ! -x /usr/bin/time ]; then
  say "installing time (GNU time measures snapshot usage's peak memory)"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq time >/dev/null
fi
cargo bench --locked --bench usage -- "$@"
