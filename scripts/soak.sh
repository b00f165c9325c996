#!/usr/bin/env bash
# The long fault soak (issue 25): builds the tool and the test bed, then
# runs the rounds and keeps their transcript on stdout. Every round's plan
# comes from (seed, round), so any round replays alone with
# --from-round R --rounds 1.
#
#   scripts/soak.sh [--target sweep|watch] [--version 3.6] [--seed S]
#                   [--from-round R] [--rounds N (500)] [other testbed soak flags]
#
# sweep: `testbed soak`, the one-shot `defrag --all`; a round with a
# violation leaves soak-SEED-ROUND.txt in the current folder.
# watch: `defrag --watch` on the real kube-apiserver, the ignored test
# long_watch_soak of tests/k8s_soak_watch.rs; evidence in $TMPDIR.
# Results go into docs/reliability.md with the command that gave them.
set -euo pipefail
here="$(pwd)"
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/lib.sh

target=sweep seed="" from=0 rounds=500 version=3.6 rest=()
while [ $# -gt 0 ]; do
  case "$1" in
    --target) target="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --from-round) from="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --version) version="$2"; shift 2 ;;
    *) rest+=("$1"); shift ;;
  esac
done
[ -n "$seed" ] || seed="$(date +%s)"
case "$target" in
  sweep|watch) ;;
  *) say "--target $target: sweep or watch"; exit 2 ;;
esac

ensure_testbed
# The rounds run copies of the binaries: a build meanwhile (the next
# change, another suite) must not change what a long run soaks.
say "building kubectl-etcd and the test bed"
cargo build --locked -p kubectl-etcd --bin kubectl-etcd -p kubectl-etcd-testbed --bin testbed
bin="${CARGO_TARGET_DIR:-$(pwd)/target}/debug"
copy="$(mktemp -d "${TMPDIR:-/tmp}/kubectl-etcd-soak-bin.XXXXXX")"
trap 'rm -rf "$copy"' EXIT
cp "$bin/kubectl-etcd" "$bin/testbed" "$copy/"
case "$target" in
  sweep)
    cd "$here"
    "$copy/testbed" soak --tool "$copy/kubectl-etcd" --version "$version" \
      --seed "$seed" --from-round "$from" --rounds "$rounds" "${rest[@]}"
    ;;
  watch)
    SOAK_SEED="$seed" SOAK_FROM="$from" SOAK_ROUNDS="$rounds" SOAK_VERSION="$version" \
      SOAK_TOOL="$copy/kubectl-etcd" \
      cargo test --locked --test k8s_soak_watch long_watch_soak -- --ignored --nocapture
    ;;
esac
