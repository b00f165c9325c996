#!/usr/bin/env bash
# Regenerates the committed shell completions in completions/ from the clap
# definition (tests/cli/cli.rs fails while they are stale).
#
#   scripts/completions.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cargo build --locked -q -p kubectl-etcd
bin="${CARGO_TARGET_DIR:-target}/debug/kubectl-etcd"
mkdir -p completions
"$bin" completion bash >completions/kubectl-etcd.bash
"$bin" completion zsh >completions/_kubectl-etcd
"$bin" completion fish >completions/kubectl-etcd.fish
"$bin" completion powershell >completions/kubectl-etcd.ps1
echo "completions/ regenerated"
