#!/usr/bin/env bash
# The long fault soak (issue 25): builds the tool and the test bed, then
# runs `testbed soak` and keeps its transcript. Every round's plan comes
# from (seed, round), so any round replays alone with --from-round R
# --rounds 1; a round with a violation leaves soak-SEED-ROUND.txt here.
#
#   scripts/soak.sh [--version 3.6] [--seed S] [--rounds N (500)] [other testbed soak flags]
#
# Results go into docs/reliability.md with the command that gave them.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/lib.sh

ensure_testbed
say "building kubectl-etcd and the test bed"
cargo build --locked -p kubectl-etcd --bin kubectl-etcd -p kubectl-etcd-testbed --bin testbed
target="${CARGO_TARGET_DIR:-target}"
case " $* " in
  *" --rounds "*) ;;
  *) set -- --rounds 500 "$@" ;;
esac
exec "$target/debug/testbed" soak --tool "$target/debug/kubectl-etcd" "$@"
