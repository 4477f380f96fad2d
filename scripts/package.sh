#!/bin/sh
# Builds a release archive as krew-manifest.yaml expects it:
#   kubectl-affinity_<version>_<os>_<arch>.tar.gz holding the binary, the
#   kubectl_complete-affinity shim (not on windows: it is a POSIX shell script),
#   LICENSE and README.md at the archive root.
# Usage: scripts/package.sh BINARY VERSION OS ARCH OUTDIR
#   e.g. scripts/package.sh target/x86_64-unknown-linux-musl/release/kubectl-affinity v0.1.0 linux amd64 dist
set -eu
bin=$1 version=$2 os=$3 arch=$4 out=$5
root=$(cd "$(dirname "$0")/.." && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
case $os in
  windows) cp "$bin" "$stage/kubectl-affinity.exe" ;;
  *)
    cp "$bin" "$stage/kubectl-affinity"
    cp "$root/completions/kubectl/kubectl_complete-affinity" "$stage/"
    ;;
esac
cp "$root/LICENSE" "$root/README.md" "$stage/"
mkdir -p "$out"
archive="$out/kubectl-affinity_${version}_${os}_${arch}.tar.gz"
tar -C "$stage" -czf "$archive" .
echo "$archive"
