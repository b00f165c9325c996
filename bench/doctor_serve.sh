#!/usr/bin/env bash
# `doctor --serve` cost (bench/doctor_serve.rs says what is measured): CPU
# and memory of the serving process per examined cluster and per member,
# and the members' gRPC requests for an examination against one `doctor`.
#
#   bench/doctor_serve.sh [--clusters 20] [--members 3] [--interval 30] [--rounds 3]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/lib.sh
ensure_testbed
cargo bench --locked --bench doctor_serve -- "$@"
