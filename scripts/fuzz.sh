#!/usr/bin/env bash
# Runs each cargo-fuzz target in fuzz/ for SECONDS (default 600), one after another, and
# prints per target its executions, time, corpus size and whether it found anything.
#
#   scripts/fuzz.sh [SECONDS [TARGET...]]     (default: every target)
#
# Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz --locked`). One job
# at a time (`-jobs=1`): the targets share the machine with builds. Inputs found interesting
# grow fuzz/target/corpus/TARGET (not committed) from the seeds in fuzz/corpus/TARGET; a
# crash, hang or OOM is saved under fuzz/artifacts/TARGET/ and the script exits 1 after the
# last target (replay one: `cargo +nightly fuzz run TARGET fuzz/artifacts/TARGET/FILE`).
#
# No sanitizer by default (FUZZ_SANITIZER=address to use one): the crate forbids unsafe code,
# so the findings are panics, hangs and OOMs, which libFuzzer sees without one, at about
# twice the executions per second.
set -euo pipefail
seconds=${1:-600}
sanitizer=${FUZZ_SANITIZER:-none}
targets=("${@:2}")
if [[ ${#targets[@]} -eq 0 ]]; then
    targets=(protobuf_page json_page yaml_input kubeconfig)
fi
fuzz_dir="$(cd "$(dirname "$0")/../fuzz" && pwd)"
cd "$fuzz_dir"

cargo +nightly fuzz build -s "$sanitizer"

# No kubeconfig, proxy or input limit from the caller's environment leaks into the targets.
unset KUBECONFIG HTTPS_PROXY https_proxy KUBECTL_AFFINITY_MAX_INPUT_BYTES

failed=0
summary=()
for target in "${targets[@]}"; do
    work="target/corpus/$target"
    logs="target/logs/$target"
    mkdir -p "$work" "$logs" "artifacts/$target"
    rm -f "$logs"/fuzz-*.log
    start=$(date +%s)
    status=0
    # libFuzzer writes a job's output to fuzz-N.log in its working directory: the logs one.
    # Standard input is empty, so an input naming /dev/stdin as a file reads nothing.
    (cd "$logs" && cargo +nightly fuzz run --fuzz-dir "$fuzz_dir" -s "$sanitizer" "$target" \
        "$fuzz_dir/$work" "$fuzz_dir/corpus/$target" -- \
        -max_total_time="$seconds" -jobs=1 -workers=1 -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$fuzz_dir/artifacts/$target/" </dev/null) \
        >"$logs/run.log" 2>&1 || status=$?
    elapsed=$(( $(date +%s) - start ))
    log="$logs/fuzz-0.log"
    execs=$(grep -ho 'stat::number_of_executed_units: *[0-9]*' "$log" 2>/dev/null | grep -o '[0-9]*$' | tail -1)
    corpus=$(find "$work" -type f | wc -l)
    findings=$(grep -hE '^(==[0-9]+== ?ERROR|SUMMARY: libFuzzer)' "$log" 2>/dev/null | head -1 || true)
    if [[ $status -ne 0 || -n $findings ]]; then
        failed=1
        result="FOUND: ${findings:-exit status $status} (see fuzz/$log, fuzz/artifacts/$target/)"
    else
        result="no crash, hang or OOM"
    fi
    line="$target: ${execs:-?} executions in ${elapsed} s, corpus ${corpus} inputs, $result"
    echo "$line"
    summary+=("$line")
done
echo
echo "fuzz summary (${seconds} s per target, sanitizer: $sanitizer):"
printf '  %s\n' "${summary[@]}"
exit "$failed"
