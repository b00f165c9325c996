#!/usr/bin/env bash
# Regenerates the man pages in docs/man/ from the clap definition
# (tests/cli/cli.rs fails while they are stale).
#
#   scripts/man.sh        # then: man -l docs/man/kubectl-etcd-defrag.1
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
KUBECTL_ETCD_WRITE_MAN=1 cargo test --locked -q --test cli cli::committed_man_pages_are_current
echo "docs/man/ regenerated"
