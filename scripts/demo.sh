#!/usr/bin/env bash
# The first look: builds etcd (3.6 by default, and only it) and kubectl-etcd,
# starts a local 3-member mutual-TLS etcd cluster from the test bed,
# fragments it, and shows the main job: `status`, the `defrag --dry-run`
# plan, the health-gated follower-first sweep, and `status` after. The
# cluster is stopped when the script ends.
#
#   scripts/demo.sh                # etcd 3.6, built from its Go module
#   scripts/demo.sh --etcd 3.4     # Debian's etcd 3.4 package: nothing to compile
#   scripts/demo.sh --keep         # leave the cluster running until Ctrl-C,
#                                  # with its ETCDCTL_* settings printed
#
# On a fresh machine almost all of the time is compiling (the tool and
# etcd side by side); it ends with a breakdown of where the time went.
# FRAGMENT_MB (default 300) sets how much is written per member: with 10%
# kept, each member has about 270 MB to reclaim, over the default 200Mi rule.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/lib.sh

keep=false
etcd_version=3.6
while [ $# -gt 0 ]; do
  case "$1" in
    --keep) keep=true ;;
    --etcd)
      [ $# -ge 2 ] || { say "--etcd needs a version: 3.4, 3.5, 3.6 or 3.7"; exit 2; }
      etcd_version="$2"; shift ;;
    -h|--help) sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) say "unknown argument $1 (--keep, --etcd 3.4|3.5|3.6|3.7)"; exit 2 ;;
  esac
  shift
done
case "$etcd_version" in
  3.4|3.5|3.6|3.7) ;;
  *) say "--etcd $etcd_version: the test bed has etcd 3.4, 3.5, 3.6 and 3.7"; exit 2 ;;
esac
FRAGMENT_MB="${FRAGMENT_MB:-300}"

started=$SECONDS
ensure_toolchains
work="$(mktemp -d)"
installs=""
etcd_build=""
testbed_pid=""
cleanup() {
  for pid in $installs $etcd_build $testbed_pid; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
at() { printf '%s s' "$(($1 - started))"; }

# Nothing waits for what it does not need. The protoc install (apt) runs
# beside the compile: only etcd-client's build script needs protoc, a
# minute in, and until the install is done it waits in a stand-in named by
# PROTOC (prost-build runs whatever PROTOC names). etcd builds beside the
# compile too; Debian's etcd 3.4 comes from apt, so it is fetched after the
# install instead of contending for apt's lock.
say "compiling kubectl-etcd and the test bed's launcher; installing what is missing and building etcd $etcd_version beside them (all cached after the first run)"
if command -v protoc >/dev/null 2>&1; then
  echo 0 >"$work/installed"
else
  (ensure_protoc >"$work/install.log" 2>&1; echo $? >"$work/installed") &
  installs=$!
  printf '%s\n' '#!/usr/bin/env bash' \
    "while [ ! -s '$work/installed' ]; do sleep 0.2; done" \
    "[ \"\$(cat '$work/installed')\" = 0 ] || { cat '$work/install.log' >&2; exit 1; }" \
    'exec protoc "$@"' >"$work/protoc"
  chmod +x "$work/protoc"
  export PROTOC="$work/protoc"
fi
(
  if [ "$etcd_version" = 3.4 ]; then
    while [ ! -s "$work/installed" ]; do sleep 0.2; done
  fi
  testbed/build.sh "etcd-v$etcd_version" >"$work/etcd-build.log" 2>&1
) &
etcd_build=$!

# The launcher first, so that the cluster fragments while the tool's own
# code (the last and longest single step) compiles. Both builds name both
# packages, so that the dependencies they share are built once, with the
# same features.
packages=(-p kubectl-etcd -p kubectl-etcd-testbed)
cargo build --profile quick --locked "${packages[@]}" --bin testbed
launcher_built=$SECONDS
wait "$etcd_build" || { cat "$work/etcd-build.log" >&2; exit 1; }
etcd_build=""
etcd_ready=$SECONDS
bin="$(cd "${CARGO_TARGET_DIR:-target}/quick" && pwd)"

say "starting a 3-member mTLS etcd $etcd_version cluster and fragmenting it (${FRAGMENT_MB} MB written per member, 10% kept) while the tool compiles"
"$bin/testbed" up --version "$etcd_version" --members 3 --security mtls \
  --fragment-mb "$FRAGMENT_MB" --keep 0.1 --env-file "$work/env" 2>"$work/testbed.log" &
testbed_pid=$!
cargo build --profile quick --locked "${packages[@]}" --bin kubectl-etcd
tool_built=$SECONDS
if [ -n "$installs" ]; then
  wait "$installs" || true
  installs=""
fi

for _ in $(seq 1 1200); do
  [ -s "$work/env" ] && break
  kill -0 "$testbed_pid" 2>/dev/null || { cat "$work/testbed.log" >&2; exit 1; }
  sleep 0.1
done
[ -s "$work/env" ] || { say "cluster did not start"; cat "$work/testbed.log" >&2; exit 1; }
. "$work/env"
export PATH="$bin:$PATH"
cluster_ready=$SECONDS

show() { printf '\n$ %s\n' "$*"; "$@"; }
say "the cluster is up and fragmented; ETCDCTL_* point at it"
show kubectl-etcd status
show kubectl-etcd defrag --dry-run
show kubectl-etcd defrag --yes
show kubectl-etcd status
done_at=$SECONDS

printf '\n'
say "$(at "$done_at") in all: the launcher compiled at $(at "$launcher_built"), etcd $etcd_version ready at $(at "$etcd_ready"), the tool compiled at $(at "$tool_built"), the cluster fragmented at $(at "$cluster_ready"), the four commands done at $(at "$done_at")"

if $keep; then
  printf '\nThe cluster keeps running until Ctrl-C. In another shell:\n'
  sed 's/^/  /' "$work/env"
  printf '  export PATH=%s:$PATH\n' "$bin"
  wait "$testbed_pid"
fi
