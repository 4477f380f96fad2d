#!/usr/bin/env bash
# Same-minute A/B runs of two or more builds: the live `explain` of the probe at
# 5,000 nodes / 150,000 pods (or 500 / 15,000), the builds run in turn ROUNDS times, then
# the median wall, user and system time and peak RSS of each. This machine's speed drifts by
# tens of percent within minutes (BENCHMARKS.md, "The machine"): a change is judged against
# the build before it in alternating runs, never against a figure from another run.
#
#   scripts/ab.sh [-n NODES] [-r ROUNDS] LABEL=BINARY LABEL=BINARY...
#
#   cp target/release/kubectl-affinity /tmp/before     # then change, cargo build --release
#   scripts/ab.sh before=/tmp/before after=target/release/kubectl-affinity
#
# Defaults: 5,000 nodes, 10 rounds. Every run's figures go to target/bench/ab-runs.txt. The
# server and the kubeconfig are scripts/bench.sh's (same ports, same generated cluster).
set -euo pipefail
cd "$(dirname "$0")/.."
NODES=5000
ROUNDS=10
while getopts n:r: opt; do
  case $opt in
    n) NODES=$OPTARG ;;
    r) ROUNDS=$OPTARG ;;
    *) echo "usage: scripts/ab.sh [-n NODES] [-r ROUNDS] LABEL=BINARY..." >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [ $# -lt 2 ]; then
  echo "scripts/ab.sh: give at least two builds as LABEL=BINARY" >&2
  exit 2
fi
for spec in "$@"; do
  bin=${spec#*=}
  if [ "$spec" = "$bin" ] || [ ! -x "$bin" ]; then
    echo "scripts/ab.sh: '$spec' is not LABEL=BINARY with an executable BINARY" >&2
    exit 2
  fi
done
[ -n "${SKIP_BUILD:-}" ] || cargo build --release --examples --locked
# shellcheck source=scripts/bench-common.sh
. scripts/bench-common.sh
OUT=$PWD/target/bench
PORT=$((NODES == 500 ? 18600 : 18601))
mkdir -p "$OUT/c$NODES"
KUBECONFIG_FILE=$OUT/c$NODES/kubeconfig-ab
trap 'kill ${SERVER_PID:-} 2>/dev/null || true' EXIT
start_server "$NODES" "$PORT" "$OUT/server-ab.log"
write_kubeconfig "$KUBECONFIG_FILE" "$PORT"
RUNS=$OUT/ab-runs.txt
: > "$RUNS"
for ((r = 0; r < ROUNDS; r++)); do
  for spec in "$@"; do
    label=${spec%%=*} bin=${spec#*=}
    if ! /usr/bin/time -f "$label %e %U %S %M" -o "$OUT/ab-time.tmp" \
      "$bin" explain probe -n bench --kubeconfig "$KUBECONFIG_FILE" > /dev/null 2> "$OUT/ab-err.tmp"; then
      echo "FAILED: $label ($bin)" >&2; tail -n 5 "$OUT/ab-err.tmp" >&2; exit 1
    fi
    tail -n 1 "$OUT/ab-time.tmp" >> "$RUNS"
  done
done
echo "$NODES nodes, $((NODES * 30)) pods, medians of $ROUNDS alternating rounds:"
for spec in "$@"; do
  label=${spec%%=*}
  awk -v l="$label" '$1 == l {w[++n] = $2; u[n] = $3; s[n] = $4; m[n] = $5}
    function med(a,   i, j, t) {
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    END { printf "%-12s wall %.3f s  user %.3f s  sys %.3f s  peak %.0f MB\n", l, med(w), med(u), med(s), med(m) / 1024 }' "$RUNS"
done
