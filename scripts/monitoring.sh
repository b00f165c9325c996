#!/usr/bin/env bash
# Writes deploy/monitoring/prometheusrule.yaml, the Prometheus operator's
# PrometheusRule, from the plain rules file deploy/monitoring/rules.yaml:
# the same groups, so that the two never differ. The tests check that the
# committed file is what this writes.
#
#   scripts/monitoring.sh           # rewrite it
#   scripts/monitoring.sh --check   # exit 1 if it is not up to date
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rules="$root/deploy/monitoring/rules.yaml"
out="$root/deploy/monitoring/prometheusrule.yaml"

render() {
  cat <<'HEAD'
# The Prometheus operator's wrapping of rules.yaml (written by
# scripts/monitoring.sh from it: edit rules.yaml, then run that script).
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: kubectl-etcd
  labels:
    app.kubernetes.io/name: kubectl-etcd
spec:
HEAD
  # Everything from `groups:` on, two spaces deeper.
  awk 'found || /^groups:/ { found = 1; print "  " $0 }' "$rules" | sed 's/^  $//'
}

if [ "${1:-}" = "--check" ]; then
  if ! diff -u "$out" <(render) >&2; then
    echo "deploy/monitoring/prometheusrule.yaml is not what scripts/monitoring.sh writes from rules.yaml: run it" >&2
    exit 1
  fi
  exit 0
fi
render >"$out"
