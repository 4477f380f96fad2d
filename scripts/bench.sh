#!/usr/bin/env bash
# Whole-process benchmarks: wall time and peak memory (GNU time's "Maximum resident set size")
# of live and offline runs against generated clusters, each figure the median of REPEATS runs.
# Every ratio compares runs made in the same loop, on the same machine, minutes apart.
#
#   scripts/bench.sh [small|large|all] [REPEATS] [LIVE_REPEATS]    (default: all 3 15)
#
# small = 500 nodes / 15,000 pods, large = 5,000 nodes / 150,000 pods. Data goes to
# target/bench/ (never committed). Needs curl, jq and kubectl on PATH.
#
# The live `explain` and the download it is compared with are measured in LIVE_REPEATS
# rounds of their own, first, each round the two back to back (in turns, which goes
# first): their ratio is the one target that sits near its bound, and with three rounds
# interleaved with the offline runs its median moved by a third from one run to the next.
# `audit -A` and the download of its own pages are measured the same way, in rounds of their
# own after explain's. The other runs (all-JSON download, kubectl, jq, offline `whatif`)
# follow in REPEATS rounds.
set -euo pipefail
cd "$(dirname "$0")/.."
WHICH=${1:-all}
REPEATS=${2:-3}
LIVE_REPEATS=${3:-15}
[ -n "${SKIP_BUILD:-}" ] || cargo build --release --bins --examples --locked
BIN=$PWD/target/release/kubectl-affinity
GEN=$PWD/target/release/examples/gen_cluster
# shellcheck source=scripts/bench-common.sh
. scripts/bench-common.sh
OUT=$PWD/target/bench
mkdir -p "$OUT"
RESULTS=$OUT/results.txt
: > "$RESULTS"

# measure LABEL CMD...: one run; appends "LABEL WALL_S PEAK_KB" to $OUT/runs.txt. The wall
# time is bash's clock around GNU time (in ms: GNU time's own is in hundredths, 5% of a 0.2 s
# run), the peak is GNU time's.
measure() {
  local label=$1; shift
  local start=$EPOCHREALTIME end
  if /usr/bin/time -f "%M" -o "$OUT/time.tmp" "$@" > /dev/null 2> "$OUT/err.tmp"; then
    end=$EPOCHREALTIME
    echo "$label $(echo "$end - $start" | bc -l) $(tail -n 1 "$OUT/time.tmp")" >> "$OUT/runs.txt"
  else
    echo "FAILED: $label: $*" >&2; tail -n 5 "$OUT/err.tmp" >&2; exit 1
  fi
}

# median LABEL: "LABEL median_wall median_peak_kb"
median() {
  local label=$1
  local w m
  w=$(awk -v l="$label" '$1==l {print $2}' "$OUT/runs.txt" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  m=$(awk -v l="$label" '$1==l {print $3}' "$OUT/runs.txt" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  printf '%-28s wall %8.3f s   peak %9.1f MB\n' "$label" "$w" "$(echo "$m / 1024" | bc -l)" | tee -a "$RESULTS"
}

# download NAME DIR: one run of what explain downloads: node and pod pages in protobuf, the
# rest in JSON, each over one kept-alive connection, bodies discarded.
# download NAME DIR [LABEL PREFIX]: the same for the pages in $DIR/PREFIX.txt and
# $DIR/PREFIX-protobuf.txt (default: explain's, `urls`), measured as NAME:LABEL.
download() {
  local name=$1 dir=$2 label=${3:-download} prefix=${4:-urls}
  measure "$name:$label" sh -c "curl -s --fail \$(cat '$dir/$prefix.txt') > /dev/null &&
    curl -s --fail -H '$PROTOBUF' \$(cat '$dir/$prefix-protobuf.txt') > /dev/null"
}

# ratios NAME [RUN DOWNLOAD]: a live run's wall over its download's (default: explain-live over
# download), round by round (the two runs of a round were back to back): the median, the
# range, and how many rounds were at or under the 2.0x bound.
ratios() {
  local label=$1 run=${2:-explain-live} down=${3:-download}
  paste <(awk -v l="$label:$down" '$1==l {print $2}' "$OUT/runs.txt") \
    <(awk -v l="$label:$run" '$1==l {print $2}' "$OUT/runs.txt") |
    awk '$1 > 0 {print $2 / $1}' | sort -g |
    awk -v l="$label:$run/$down" '{a[NR]=$1; if ($1 <= 2.0) u++}
      END {if (NR) printf "%-28s by round: median %.2fx (%.2f-%.2fx), %d of %d rounds <= 2.0x\n",
        l, a[int((NR+1)/2)], a[1], a[NR], u, NR}' | tee -a "$RESULTS"
}

# download_urls PORT NODES PODS json|protobuf: every page kubectl-affinity's explain of
# bench/probe reads (the pod, nodes, pods, the Services of namespace bench for default
# spreading (the probe names no controller to get), its events), 500 objects a page;
# `protobuf` gives the node and pod pages (the lists explain asks for in protobuf), `json` the
# others. The server's continue tokens are `c-OFFSET` in both encodings, so the
# pages' URLs are known without reading the bodies.
download_urls() {
  local port=$1 nodes=$2 pods=$3 which=$4
  local base=http://127.0.0.1:$port
  local i
  if [ "$which" = protobuf ]; then
    for ((i = 0; i < nodes; i += 500)); do echo "$base/api/v1/nodes?limit=500&continue=c-$i"; done
    for ((i = 0; i <= pods; i += 500)); do echo "$base/api/v1/pods?limit=500&fieldSelector=status.phase%21%3DSucceeded%2Cstatus.phase%21%3DFailed&continue=c-$i"; done
    return
  fi
  echo "$base/api/v1/namespaces/bench/pods/probe"
  echo "$base/api/v1/namespaces/bench/services?limit=500"
  echo "$base/api/v1/namespaces/bench/events?limit=500"
}

# audit_urls PORT NODES PODS json|protobuf: every page `audit -A` reads: the server's version
# (the release it emulates), nodes and pods as explain reads them, and in JSON the objects
# the Pending pods' cycles read (PodDisruptionBudgets, the storage kinds) and the
# scheduler's FailedScheduling events of every namespace.
audit_urls() {
  local port=$1 nodes=$2 pods=$3 which=$4
  local base=http://127.0.0.1:$port
  if [ "$which" = protobuf ]; then
    download_urls "$@"
    return
  fi
  echo "$base/version"
  echo "$base/apis/policy/v1/poddisruptionbudgets?limit=500"
  for r in api/v1/persistentvolumeclaims api/v1/persistentvolumes apis/storage.k8s.io/v1/storageclasses \
    apis/storage.k8s.io/v1/csinodes apis/storage.k8s.io/v1/csidrivers; do
    echo "$base/$r?limit=500"
  done
  echo "$base/api/v1/events?fieldSelector=involvedObject.kind%3DPod%2Creason%3DFailedScheduling&limit=500"
}

# The Accept header kubectl-affinity sends for pod and node lists (and kube-scheduler's client
# too).
PROTOBUF='Accept: application/vnd.kubernetes.protobuf, application/json'

run_size() {
  local name=$1 nodes=$2 port=$3
  local pods=$((nodes * 30))
  local dir=$OUT/c$nodes
  [ -s "$dir/cluster.json" ] || "$GEN" "$nodes" 30 "$dir"
  start_server "$nodes" "$port" "$OUT/server-$nodes.log"
  local server=$SERVER_PID
  trap 'kill $server 2>/dev/null || true' RETURN
  write_kubeconfig "$dir/kubeconfig" "$port"
  download_urls "$port" "$nodes" "$pods" json > "$dir/urls.txt"
  download_urls "$port" "$nodes" "$pods" protobuf > "$dir/urls-protobuf.txt"
  audit_urls "$port" "$nodes" "$pods" json > "$dir/audit.txt"
  audit_urls "$port" "$nodes" "$pods" protobuf > "$dir/audit-protobuf.txt"
  : > "$OUT/runs.txt"
  local r
  for ((r = 0; r < LIVE_REPEATS; r++)); do
    if ((r % 2 == 0)); then
      download "$name" "$dir"
      measure "$name:explain-live" "$BIN" explain probe -n bench --kubeconfig "$dir/kubeconfig"
    else
      measure "$name:explain-live" "$BIN" explain probe -n bench --kubeconfig "$dir/kubeconfig"
      download "$name" "$dir"
    fi
  done
  for ((r = 0; r < LIVE_REPEATS; r++)); do
    if ((r % 2 == 0)); then
      download "$name" "$dir" download-audit audit
      measure "$name:audit-live" "$BIN" audit -A --kubeconfig "$dir/kubeconfig"
    else
      measure "$name:audit-live" "$BIN" audit -A --kubeconfig "$dir/kubeconfig"
      download "$name" "$dir" download-audit audit
    fi
  done
  for ((r = 0; r < REPEATS; r++)); do
    # `download-json` is the pages explain downloads, all in JSON.
    measure "$name:download-json" sh -c "curl -s --fail \$(cat '$dir/urls.txt' '$dir/urls-protobuf.txt') > /dev/null"
    if [ "$name" = small ]; then
      measure "$name:kubectl-get-pods" kubectl --kubeconfig "$dir/kubeconfig" get pods -A -o json
    fi
    measure "$name:jq-length" jq '.items | length' "$dir/cluster.json"
    measure "$name:whatif-offline" "$BIN" whatif -f "$dir/probe.json" --snapshot "$dir/cluster.json"
  done
  echo "== $name: $nodes nodes, $pods pods, medians of $LIVE_REPEATS (download, explain-live) and $REPEATS (the others)" | tee -a "$RESULTS"
  for l in download download-json explain-live download-audit audit-live kubectl-get-pods jq-length whatif-offline; do
    grep -q "^$name:$l " "$OUT/runs.txt" && median "$name:$l"
  done
  ratios "$name"
  ratios "$name" audit-live download-audit
  cat "$OUT/runs.txt" >> "$OUT/all-runs.txt"
}

echo "machine: $(nproc) cores, $(grep MemTotal /proc/meminfo | awk '{print int($2/1048576)}') GiB, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)" | tee -a "$RESULTS"
case $WHICH in
  small) run_size small 500 18600 ;;
  large) run_size large 5000 18601 ;;
  all) run_size small 500 18600; run_size large 5000 18601 ;;
esac
