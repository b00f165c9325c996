#!/usr/bin/env bash
# The agent's cost (bench/agent.rs says what is measured): time to the
# first line of `kubectl etcd status` on a kubeadm control plane, through
# the agent Pod, against `kubectl exec … etcdctl endpoint status --cluster`,
# interleaved in the same run, and their ratio.
#
#   bench/agent.sh [--runs 10]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/lib.sh
ensure_testbed
cargo bench --locked --bench agent -- "$@"
