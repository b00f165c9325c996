#!/usr/bin/env bash
# Where a fleet command's time goes on this machine: the wall time of one
# cluster's command against `-A` over 20 EtcdClusters (bench/status_all.rs
# sets them up, N ms away with --rtt-ms), with the CPU each run cost the
# tool itself and the CPU it cost the etcd members that answered it (every
# etcd process's utime + stime from /proc, before and after the run), so
# that the part of `-A` that is the members' and the client's work queuing
# on the same two cores can be told from the round trips.
#
#   bench/cpu_share.sh [--rtt-ms 40] [--runs 10] [--command doctor|status|defrag]
#
# Needs a release build of the bench (bench/status_all.sh builds it).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

rtt=40
runs=10
command=doctor
while [ $# -gt 0 ]; do
  case "$1" in
    --rtt-ms) rtt="$2"; shift ;;
    --runs) runs="$2"; shift ;;
    --command) command="$2"; shift ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
case "$command" in
  doctor) one=(doctor etcd-00 -n bench-0 -o json --fail-on never); all=(doctor -A -o json --fail-on never) ;;
  status) one=(status etcd-00 -n bench-0 -o json); all=(status -A -o json) ;;
  defrag) one=(defrag etcd-00 -n bench-0 --dry-run -o json); all=(defrag -A --dry-run -o json) ;;
  *) echo "--command: doctor, status or defrag" >&2; exit 2 ;;
esac

target="${CARGO_TARGET_DIR:-target}"
bench="$(ls -t "$target"/release/deps/status_all-* 2>/dev/null | grep -v '\.d$' | head -1)"
tool="$target/release/kubectl-etcd"
[ -x "$bench" ] && [ -x "$tool" ] || { echo "build first: cargo bench --locked --no-run --bench status_all" >&2; exit 2; }

log="$(mktemp)"
"$bench" --rtt-ms "$rtt" --keep >"$log" 2>&1 &
keeper=$!
trap 'kill -INT "$keeper" 2>/dev/null || true; wait "$keeper" 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 1 300); do
  grep -q 'kubeconfig' "$log" && break
  kill -0 "$keeper" 2>/dev/null || { cat "$log" >&2; exit 1; }
  sleep 1
done
kc="$(grep -o '/tmp/[^;]*\.yaml' "$log" | head -1)"
[ -n "$kc" ] || { cat "$log" >&2; exit 1; }

# Clock ticks of every etcd process of the bench's clusters (mutual TLS:
# the API server's own etcd serves plain HTTP and is left out).
etcd_ticks() {
  local total=0 pid
  for pid in $(pgrep -f 'etcd --name=etcd-' || true); do
    # Fields 14 and 15 of /proc/PID/stat: utime and stime.
    total=$((total + $(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null || echo 0)))
  done
  echo "$total"
}
hz="$(getconf CLK_TCK)"

measure() {
  local label="$1"; shift
  local before after start end tool_cpu
  before="$(etcd_ticks)"
  start="$(date +%s%N)"
  /usr/bin/time -o "$times" -f '%U %S' "$tool" --kubeconfig "$kc" --connect=direct "$@" >/dev/null 2>&1 || true
  tool_cpu="$(tail -1 "$times")"
  end="$(date +%s%N)"
  after="$(etcd_ticks)"
  awk -v l="$label" -v w="$(( (end - start) / 1000000 ))" -v t="$tool_cpu" -v e="$((after - before))" -v hz="$hz" \
    'BEGIN { split(t, c, " "); printf "%s %d %.0f %.0f\n", l, w, (c[1] + c[2]) * 1000, e * 1000 / hz }'
}

samples="$(mktemp)"
times="$(mktemp)"
for _ in 1 2; do measure warm "${one[@]}" >/dev/null; measure warm "${all[@]}" >/dev/null; done
for _ in $(seq 1 "$runs"); do
  measure one "${one[@]}" >>"$samples"
  measure all "${all[@]}" >>"$samples"
done
printf '| %s, %s ms | wall ms, median | tool CPU ms, median | members CPU ms, median |\n|---|---|---|---|\n' "$command" "$rtt"
python3 - "$samples" <<'EOF'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    label, *values = line.split()
    rows.setdefault(label, []).append([float(v) for v in values])
for label, name in (("one", "one cluster"), ("all", "-A, 20 clusters")):
    cols = list(zip(*rows[label]))
    print(f"| {name} | {statistics.median(cols[0]):.0f} | {statistics.median(cols[1]):.0f} | {statistics.median(cols[2]):.0f} |")
EOF
rm -f "$samples" "$times"
