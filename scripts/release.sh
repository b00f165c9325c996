#!/usr/bin/env bash
# Builds the release archives this machine can build — static musl binaries
# for Linux on x86_64 and, when Debian's aarch64 cross compiler installs, on
# arm64 — packs each with the LICENSE as krew expects, and writes their
# sha256 into krew-manifest.yaml: each built platform's entry replaced, or
# added when the manifest lacks it. A manifest of another version keeps
# none of its platforms, so the manifest lists only archives built and
# hashed by this script.
#
#   scripts/release.sh                    # the Linux archives, into dist/
#   scripts/release.sh --out DIR          # somewhere else
#   scripts/release.sh --targets T1,T2    # only these Rust targets
#   scripts/release.sh --profile quick    # an unoptimised build (the tests use it)
#   scripts/release.sh --no-write-manifest  # leave krew-manifest.yaml alone
#   scripts/release.sh --manifest FILE    # start from FILE, not krew-manifest.yaml
#
# On macOS, the same script builds the darwin archives and adds them to the
# manifest the Linux run wrote:
#   scripts/release.sh --targets aarch64-apple-darwin,x86_64-apple-darwin
#
# DIR receives kubectl-etcd_<tag>_<os>_<arch>.tar.gz per target, SHA256SUMS,
# and etcd.yaml: the manifest with those sha256 filled in (krew's validator
# wants the file named after the plugin). Archives are reproducible: sorted
# entries, fixed owner and mtime, gzip without a timestamp.
set -euo pipefail
caller="$PWD"
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/lib.sh

# A path as the caller typed it, relative to where they ran the script.
from_caller() {
  case "$1" in
    /*) echo "$1" ;;
    *) echo "$caller/$1" ;;
  esac
}

out=dist
profile=release
targets=""
write_manifest=1
explicit_targets=0
source_manifest=krew-manifest.yaml
while [ "$#" -gt 0 ]; do
  case "$1" in
    --out) out="$(from_caller "$2")"; shift 2 ;;
    --out=*) out="$(from_caller "${1#--out=}")"; shift ;;
    --profile) profile="$2"; shift 2 ;;
    --profile=*) profile="${1#--profile=}"; shift ;;
    --targets) targets="$2"; explicit_targets=1; shift 2 ;;
    --targets=*) targets="${1#--targets=}"; explicit_targets=1; shift ;;
    --no-write-manifest) write_manifest=0; shift ;;
    --manifest) source_manifest="$(from_caller "$2")"; shift 2 ;;
    --manifest=*) source_manifest="$(from_caller "${1#--manifest=}")"; shift ;;
    -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) say "unknown argument $1 (see scripts/release.sh --help)"; exit 2 ;;
  esac
done

ensure_toolchains
ensure_protoc

if [ -z "$targets" ]; then
  case "$(uname -s)" in
    Linux) targets="x86_64-unknown-linux-musl,aarch64-unknown-linux-musl" ;;
    Darwin) targets="aarch64-apple-darwin,x86_64-apple-darwin" ;;
    *) say "no default targets for $(uname -s): pass --targets"; exit 2 ;;
  esac
fi

version="$(awk -F'"' '/^version = / { print $2; exit }' Cargo.toml)"
tag="v$version"
case "$profile" in
  dev) profile_dir=debug ;;
  *) profile_dir="$profile" ;;
esac
mkdir -p "$out"
out="$(cd "$out" && pwd)"
target_dir="${CARGO_TARGET_DIR:-target}"

# krew's os/arch for a Rust target.
platform() {
  case "$1" in
    x86_64-unknown-linux-musl) echo linux_amd64 ;;
    aarch64-unknown-linux-musl) echo linux_arm64 ;;
    x86_64-apple-darwin) echo darwin_amd64 ;;
    aarch64-apple-darwin) echo darwin_arm64 ;;
    *) return 1 ;;
  esac
}

ensure_target() {
  if ! rustup target list --installed | grep -qx "$1"; then
    say "adding the Rust target $1 (rustup)"
    rustup target add "$1" >&2
  fi
}

# aarch64 Linux links with Debian's cross gcc (package gcc-aarch64-linux-gnu),
# which also compiles ring's C and assembly; Rust's musl target brings its own
# C library, so nothing else is needed.
ensure_aarch64_cross() {
  if ! command -v aarch64-linux-gnu-gcc >/dev/null 2>&1; then
    say "installing gcc-aarch64-linux-gnu (the arm64 cross linker)"
    if ! { as_root apt-get update -qq && DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq gcc-aarch64-linux-gnu >/dev/null; }; then
      return 1
    fi
  fi
  export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_MUSL_LINKER=aarch64-linux-gnu-gcc
  export CC_aarch64_unknown_linux_musl=aarch64-linux-gnu-gcc
  export AR_aarch64_unknown_linux_musl=aarch64-linux-gnu-ar
}

# ring's C and assembly for x86_64 musl compile with musl-gcc (Debian's
# musl-tools), against musl's own headers.
ensure_musl_gcc() {
  if ! command -v musl-gcc >/dev/null 2>&1; then
    say "installing musl-tools (musl-gcc, for ring's C code)"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq musl-tools >/dev/null
  fi
}

# A Linux binary must not ask for a dynamic loader (no PT_INTERP).
check_static() {
  if readelf -lW "$1" | grep -q 'INTERP'; then
    say "$1 is dynamically linked; a release binary must be static"
    exit 1
  fi
}

# Writes archive $2's sha256 $3 into manifest $1: into the platform whose
# uri names the archive, or into a platform entry added at the end (the
# platforms list is the manifest's last key) for os $4 and arch $5.
# Quoted: YAML would read an all-digit hash as a number, or one like
# 123e45… as a float.
write_sha() {
  local manifest="$1" archive="$2" sum="$3" os="$4" arch="$5" tmp
  tmp="$(mktemp)"
  if awk -v archive="$archive" -v sum="$sum" '
    index($0, "uri:") && index($0, "/" archive) { hit = 1; print; next }
    hit && $1 == "sha256:" { sub(/sha256: .*/, "sha256: \"" sum "\""); hit = 0; done = 1 }
    { print }
    END { if (!done) exit 3 }
  ' "$manifest" >"$tmp"; then
    cat "$tmp" >"$manifest"
  else
    cat >>"$manifest" <<EOF
  - selector:
      matchLabels:
        os: $os
        arch: $arch
    uri: https://github.com/kubectl-etcd/kubectl-etcd/releases/download/$tag/$archive
    sha256: "$sum"
    bin: kubectl-etcd
    files:
    - from: kubectl-etcd
      to: .
    - from: LICENSE
      to: .
EOF
  fi
  rm -f "$tmp"
}

# The manifest's version and uris follow Cargo.toml's version. One of
# another version keeps no platform: their archives are not this release's.
manifest="$out/etcd.yaml"
if [ ! -f "$source_manifest" ]; then
  say "--manifest $source_manifest: no such file"
  exit 2
fi
if grep -qE "^  version: $tag\$" "$source_manifest"; then
  cp "$source_manifest" "$manifest"
else
  sed -E "s#^(  version: ).*#\1$tag#" "$source_manifest" |
    awk '{ print } /^  platforms:/ { exit }' >"$manifest"
fi

: >"$out/SHA256SUMS"
built=0
IFS=',' read -r -a target_list <<<"$targets"
for target in "${target_list[@]}"; do
  plat="$(platform "$target")" || { say "unknown target $target"; exit 2; }
  if [ "$target" = aarch64-unknown-linux-musl ] && [ "$(uname -m)" != aarch64 ]; then
    if ! ensure_aarch64_cross; then
      if [ "$explicit_targets" = 1 ]; then say "no arm64 cross linker"; exit 1; fi
      say "skipping $target: gcc-aarch64-linux-gnu could not be installed"
      continue
    fi
  fi
  if [ "$target" = x86_64-unknown-linux-musl ]; then ensure_musl_gcc; fi
  ensure_target "$target"
  say "building kubectl-etcd $tag for $target (profile $profile)"
  cargo build --locked -q -p kubectl-etcd --profile "$profile" --target "$target"
  bin="$target_dir/$target/$profile_dir/kubectl-etcd"
  case "$target" in *-linux-*) check_static "$bin" ;; esac

  archive="kubectl-etcd_${tag}_${plat}.tar.gz"
  stage="$(mktemp -d)"
  install -m 0755 "$bin" "$stage/kubectl-etcd"
  install -m 0644 LICENSE "$stage/LICENSE"
  tar --sort=name --owner=0 --group=0 --numeric-owner --mtime='@0' \
    -C "$stage" -cf - kubectl-etcd LICENSE | gzip -n -9 >"$out/$archive"
  rm -rf "$stage"
  sum="$(sha256sum "$out/$archive" | cut -d' ' -f1)"
  echo "$sum  $archive" >>"$out/SHA256SUMS"
  write_sha "$manifest" "$archive" "$sum" "${plat%_*}" "${plat#*_}"
  say "$archive: $(stat -c %s "$out/$archive") bytes, sha256 $sum"
  built=$((built + 1))
done

if [ "$built" = 0 ]; then
  say "nothing was built"
  exit 1
fi
if [ "$write_manifest" = 1 ]; then
  # Keep the committed manifest's comments and layout: only the version,
  # the uris and the sha256 of what was built change.
  cp "$manifest" krew-manifest.yaml
  say "krew-manifest.yaml: sha256 written for $built archive(s)"
fi
echo "$out"
