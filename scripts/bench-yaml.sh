#!/usr/bin/env bash
# YAML against JSON: wall time, CPU time (user + system, all threads) and peak memory (GNU
# time's "Maximum resident set size") of
# the offline `whatif` of the bench probe on the same generated cluster written both ways,
# each figure the median of REPEATS runs, the runs of a round back to back (in turns, which
# goes first). `yaml` reads the YAML file (`--snapshot FILE`), against `json`; `yaml-stdin`
# the same text from standard input (`--snapshot -`), which is read whole before it is
# parsed, against `json-stdin`, the JSON read the same way.
#
#   scripts/bench-yaml.sh [small|large|all] [REPEATS]    (default: all 3)
#
# small = 500 nodes / 15,000 pods, large = 5,000 nodes / 150,000 pods (as scripts/bench.sh).
# The YAML is what `kubectl get -o yaml` writes for the JSON list that `gen_cluster` writes:
# block style, keys sorted, `apiVersion`, `items`, `kind`, `metadata` in that order (so `kind`
# comes after the items), long scalars wrapped at 80 columns, written by PyYAML (libyaml's
# emitter) from each item of the JSON.
# Needs python3 with PyYAML. Data goes to target/bench/ (never committed).
set -euo pipefail
cd "$(dirname "$0")/.."
WHICH=${1:-all}
REPEATS=${2:-3}
[ -n "${SKIP_BUILD:-}" ] || cargo build --release --bins --examples --locked
BIN=$PWD/target/release/kubectl-affinity
GEN=$PWD/target/release/examples/gen_cluster
OUT=$PWD/target/bench
mkdir -p "$OUT"
RESULTS=$OUT/yaml-results.txt
RUNS=$OUT/yaml-runs.txt
# The 150,000-pod YAML is about 1.1 GB, over the default input limit of 1 GiB.
export KUBECTL_AFFINITY_MAX_INPUT_BYTES=$((4 << 30))
: > "$RESULTS"

# to_yaml JSON YAML: the JSON list (one item a line, as gen_cluster writes it) as kubectl
# writes it in YAML.
to_yaml() {
  python3 - "$1" "$2" <<'PY'
import json, sys, yaml
Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
src, dst = sys.argv[1], sys.argv[2]
with open(src) as f, open(dst + ".tmp", "w") as out:
    head = f.readline()
    assert head.rstrip().endswith('"items":['), head
    out.write("apiVersion: v1\nitems:\n")
    for line in f:
        line = line.strip().rstrip(",")
        if line in ("]}", ""):
            continue
        text = yaml.dump(json.loads(line), Dumper=Dumper, default_flow_style=False,
                         sort_keys=True, allow_unicode=True, width=80)
        lines = text.splitlines()
        out.write("- " + lines[0] + "\n")
        for l in lines[1:]:
            out.write("  " + l + "\n")
    out.write('kind: List\nmetadata:\n  resourceVersion: ""\n')
import os
os.rename(dst + ".tmp", dst)
PY
}

# measure LABEL CMD...: one run; appends "LABEL WALL_S PEAK_KB CPU_S" to $RUNS. On a machine
# shared with other work, CPU time says more than wall time: a run waits for a core.
measure() {
  local label=$1; shift
  local start=$EPOCHREALTIME end
  if /usr/bin/time -f "%M %U %S" -o "$OUT/time.tmp" "$@" > "$OUT/out.tmp" 2> "$OUT/err.tmp"; then
    end=$EPOCHREALTIME
    echo "$label $(echo "$end - $start" | bc -l) $(tail -n 1 "$OUT/time.tmp" | awk '{print $1, $2 + $3}')" >> "$RUNS"
  else
    echo "FAILED: $label: $*" >&2; tail -n 5 "$OUT/err.tmp" >&2; exit 1
  fi
}

# median LABEL FIELD(2 wall, 3 peak, 4 CPU)
median() {
  awk -v l="$1" -v f="$2" '$1==l {print $f}' "$RUNS" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

run_size() {
  local name=$1 nodes=$2
  local dir=$OUT/c$nodes
  [ -s "$dir/cluster.json" ] || "$GEN" "$nodes" 30 "$dir"
  [ -s "$dir/cluster.yaml" ] || to_yaml "$dir/cluster.json" "$dir/cluster.yaml"
  # The same answer from both files, before anything is measured.
  "$BIN" whatif -f "$dir/probe.json" --snapshot "$dir/cluster.json" -o json |
    sed "s|$dir/cluster.json|SNAPSHOT|g" > "$OUT/answer-json.tmp"
  "$BIN" whatif -f "$dir/probe.json" --snapshot "$dir/cluster.yaml" -o json |
    sed "s|$dir/cluster.yaml|SNAPSHOT|g" > "$OUT/answer-yaml.tmp"
  cmp "$OUT/answer-json.tmp" "$OUT/answer-yaml.tmp"
  "$BIN" whatif -f "$dir/probe.json" --snapshot - -o json < "$dir/cluster.yaml" |
    sed 's|"snapshot -"|"snapshot SNAPSHOT"|' > "$OUT/answer-stdin.tmp"
  cmp "$OUT/answer-json.tmp" "$OUT/answer-stdin.tmp"
  local r json yaml stdin
  json=("$BIN" whatif -f "$dir/probe.json" --snapshot "$dir/cluster.json")
  yaml=("$BIN" whatif -f "$dir/probe.json" --snapshot "$dir/cluster.yaml")
  stdin=(sh -c '"$0" whatif -f "$1" --snapshot - < "$2"' "$BIN" "$dir/probe.json" "$dir/cluster.yaml")
  json_stdin=(sh -c '"$0" whatif -f "$1" --snapshot - < "$2"' "$BIN" "$dir/probe.json" "$dir/cluster.json")
  for ((r = 0; r < REPEATS; r++)); do
    if ((r % 2 == 0)); then
      measure "$name:json" "${json[@]}"
      measure "$name:yaml" "${yaml[@]}"
      measure "$name:json-stdin" "${json_stdin[@]}"
      measure "$name:yaml-stdin" "${stdin[@]}"
    else
      measure "$name:yaml-stdin" "${stdin[@]}"
      measure "$name:json-stdin" "${json_stdin[@]}"
      measure "$name:yaml" "${yaml[@]}"
      measure "$name:json" "${json[@]}"
    fi
  done
  local jw jm jc w m c l base
  {
    echo "== $name: $nodes nodes, $((nodes * 30)) pods, medians of $REPEATS;" \
      "JSON $(du -m "$dir/cluster.json" | cut -f1) MB, YAML $(du -m "$dir/cluster.yaml" | cut -f1) MB"
    for l in json yaml json-stdin yaml-stdin; do
      # Each reading against the JSON read the same way.
      case $l in *stdin) base=json-stdin ;; *) base=json ;; esac
      jw=$(median "$name:$base" 2); jm=$(median "$name:$base" 3); jc=$(median "$name:$base" 4)
      w=$(median "$name:$l" 2); m=$(median "$name:$l" 3); c=$(median "$name:$l" 4)
      printf '%-18s wall %8.3f s (%.2fx)   CPU %8.3f s (%.2fx)   peak %9.1f MB (%.2fx)\n' \
        "$name:$l" "$w" "$(echo "$w / $jw" | bc -l)" "$c" "$(echo "$c / $jc" | bc -l)" \
        "$(echo "$m / 1024" | bc -l)" "$(echo "$m / $jm" | bc -l)"
    done
  } | tee -a "$RESULTS"
}

: > "$RUNS"
echo "machine: $(nproc) cores, $(grep MemTotal /proc/meminfo | awk '{print int($2/1048576)}') GiB, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)" | tee -a "$RESULTS"
case $WHICH in
  small) run_size small 500 ;;
  large) run_size large 5000 ;;
  all) run_size small 500; run_size large 5000 ;;
esac
