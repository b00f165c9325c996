#!/usr/bin/env bash
# Runs every test: the house rules (docs/house.md), formatting and lints,
# unit tests, and the integration tests against real etcd clusters (built
# from their Go modules on first run).
#
#   scripts/test.sh [extra cargo test args]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/lib.sh

say "house rules (docs/house.md)"
ensure_python
python3 scripts/house.py src

ensure_testbed

say "cargo fmt --check"
cargo fmt --all --check
say "cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings
say "cargo test"
cargo test --workspace --locked --no-fail-fast "$@"
