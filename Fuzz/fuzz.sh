#!/usr/bin/env bash
# Builds the libFuzzer targets of the Fuzz package (address sanitizer on) and runs each one for a set time.
#
#   Fuzz/fuzz.sh SECONDS [FUZZER...]   run each fuzzer (default: all) for SECONDS over the checked-in
#                                      seeds in Fuzz/Corpus/<fuzzer> plus what earlier runs found in
#                                      .build-fuzz/corpus/<fuzzer>, where new entries are written
#   FUZZ_FRESH=1 Fuzz/fuzz.sh ...      start from the checked-in seeds only (what `make fuzz-short` does)
#
# The checked-in corpus is only read. A crash (or a violated invariant) stops the run, and the script exits
# non-zero naming the input that caused it; reproduce with `.build-fuzz/debug/<fuzzer> <input>`.
set -euo pipefail

# All in one function, so bash has read the whole script before it runs: editing it mid-run is safe.
main() {

    cd "$(dirname "$0")/.."
    local seconds=${1:?usage: Fuzz/fuzz.sh SECONDS [FUZZER...]}
    shift
    fuzzers=("$@")
    [ ${#fuzzers[@]} -gt 0 ] || fuzzers=(FuzzServer FuzzBodies FuzzTokens FuzzRoutes)
    scratch=.build-fuzz

    # Xcode's toolchain has no libFuzzer (swift.org toolchains do): say so, and let the short run in `make test` pass.
    probe=$(mktemp -d)
    trap 'rm -rf "$probe"' EXIT
    echo '@_cdecl("LLVMFuzzerTestOneInput") public func f(_ d: UnsafeRawPointer, _ n: Int) -> CInt { 0 }' >"$probe/f.swift"
    if ! swiftc -sanitize=fuzzer,address -parse-as-library "$probe/f.swift" -o "$probe/f" >/dev/null 2>&1; then
        echo "fuzzing skipped: this Swift toolchain cannot link libFuzzer (swiftc -sanitize=fuzzer); use a swift.org toolchain"
        [ "${FUZZ_FRESH:-0}" = 1 ] && exit 0
        exit 1
    fi

    # SwiftPM reuses its cached build plan for the path dependency on Hail when no manifest changed, so a source file
    # added to Hail since the last fuzz build would be missing from it: replan whenever Hail's file list changes.
    mkdir -p "$scratch"
    files=$(find Sources -name '*.swift' | sort | sha1sum | cut -d' ' -f1)
    if [ "$(cat "$scratch/hail-sources.sha1" 2>/dev/null)" != "$files" ]; then
        find "$scratch" -maxdepth 3 -name description.json -path '*debug*' -delete
        echo "$files" >"$scratch/hail-sources.sha1"
    fi

    # ld.gold warns once per ASan symbol it cannot export from an executable; the warnings are harmless.
    # `--sanitize=fuzzer` makes SwiftPM link libFuzzer's main; the sanitizers are also passed as ONE swiftc flag because
    # swiftc keeps only the last of several `-sanitize=` flags, and SwiftPM orders its own at random.
    swift build --package-path Fuzz --scratch-path "$scratch" -c debug --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address 2>&1 |
        { grep -v -e "Cannot export local symbol" -e "prohibited flag(s): -D_FILE_OFFSET_BITS" || true; }

    mkdir -p "$scratch/logs" "$scratch/crashes"
    export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:symbolize=1
    status=0
    for fuzzer in "${fuzzers[@]}"; do
        corpus="$scratch/corpus/$fuzzer"
        if [ "${FUZZ_FRESH:-0}" = 1 ]; then
            corpus="$scratch/short/$fuzzer"
            rm -rf "$corpus"
        fi
        mkdir -p "$corpus"
        log="$scratch/logs/$fuzzer.log"
        dictionary=()
        [ -f "Fuzz/Dictionaries/$fuzzer.dict" ] && dictionary=(-dict="Fuzz/Dictionaries/$fuzzer.dict")
        # The server's services form reference cycles by design (they live as long as the process), so leak
        # detection is off; memory is bounded by -rss_limit_mb instead.
        if "$scratch/debug/$fuzzer" -max_total_time="$seconds" -max_len=4096 -timeout=20 -rss_limit_mb=2048 \
            -detect_leaks=0 -print_final_stats=1 -artifact_prefix="$scratch/crashes/$fuzzer-" "${dictionary[@]}" \
            "$corpus" "Fuzz/Corpus/$fuzzer" >"$log" 2>&1; then
            runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
            speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
            entries=$(find "$corpus" "Fuzz/Corpus/$fuzzer" -type f | wc -l)
            echo "$fuzzer: ${seconds} s, ${runs:-?} executions (${speed:-?}/s), corpus ${entries} entries, no crash"
        else
            status=1
            echo "$fuzzer: FAILED after $(sed -n 's/^stat::number_of_executed_units: *//p' "$log") executions" >&2
            grep -E -m 5 "ERROR|Fatal error|fuzz invariant|deadly signal|timeout" "$log" >&2 || true
            crash=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | head -1)
            echo "  crash input: ${crash:-none written}; full log: $log" >&2
            echo "  reproduce: ASAN_OPTIONS=detect_leaks=0 $scratch/debug/$fuzzer ${crash:-<input>}" >&2
        fi
    done
    exit $status
}

main "$@"
