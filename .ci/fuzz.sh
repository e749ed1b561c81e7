#!/usr/bin/env bash
# Fuzzing with libFuzzer (clang), AddressSanitizer and UndefinedBehaviorSanitizer.
#
# Harnesses (tests/fuzz/): npy (the CLI's .npy reader, then the operators on what it accepts) and
# api (the public API's argument checking). Each runs for FUZZ_SECONDS (default 120), both at
# once (one per core), from the committed seed corpus tests/fuzz/corpus/<harness>/ plus what
# earlier runs of this build directory found (build-fuzz/work/<harness>/corpus). Prints the
# executions (stat::number_of_executed_units) and what the harness saw (its fuzz-stats line:
# inputs, refusals, statuses). Exits non-zero on any crash, invariant failure, leak or sanitizer
# report; the input that did it is kept in build-fuzz/work/<harness>/ and should be copied into
# tests/fuzz/regressions/<harness>/, where the ordinary test suite replays it.
#
# Run from the repository root after the normal build (tools/setup.sh installed the dependencies).
set -euo pipefail
cd "$(dirname "$0")/.."

FUZZ_SECONDS=${FUZZ_SECONDS:-120}
BUILD=build-fuzz
HARNESSES="npy api"
TAG=fuzz
# shellcheck source=common.sh
source .ci/common.sh


# clang, and compiler-rt's libFuzzer and sanitizer runtimes.
ensure_packages clang libclang-rt-dev

start=$(date +%s)
FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
echo "== fuzz: configuring $BUILD with clang: $FLAGS"
CC=clang configure -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCLMAX_FUZZ=ON -DCMAKE_C_FLAGS="$FLAGS"
targets=""
for h in $HARNESSES; do targets="$targets fuzz_$h"; done
echo "== fuzz: building$targets"
cmake --build "$BUILD" -j"$(nproc)" --target $targets
echo "== fuzz: built in $(($(date +%s) - start)) s"

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"

pids=""
for h in $HARNESSES; do
    work="$BUILD/work/$h"
    mkdir -p "$work/corpus" "$work/artifacts"
    rm -f "$work/artifacts"/*
    args=(-max_total_time="$FUZZ_SECONDS" -print_final_stats=1 -timeout=25 -rss_limit_mb=2048
          -artifact_prefix="$work/artifacts/")
    case $h in
    npy) args+=(-max_len=4096 -dict=tests/fuzz/npy.dict) ;;
    api) args+=(-max_len=512) ;;
    esac
    echo "== fuzz: $BUILD/tests/fuzz/fuzz_$h ${args[*]} $work/corpus tests/fuzz/corpus/$h"
    "$BUILD/tests/fuzz/fuzz_$h" "${args[@]}" "$work/corpus" "tests/fuzz/corpus/$h" \
        >"$work/log" 2>&1 &
    pids="$pids $!"
done

status=0
set -- $pids
for h in $HARNESSES; do
    pid=$1
    shift
    rc=0
    wait "$pid" || rc=$?
    work="$BUILD/work/$h"
    echo
    echo "== fuzz: $h: exit status $rc"
    if [ "$rc" -ne 0 ]; then
        status=1
        echo "---- last 120 lines of $work/log"
        tail -n 120 "$work/log"
        echo "---- inputs kept (copy them into tests/fuzz/regressions/$h/ to replay them in ctest):"
        ls -l "$work/artifacts" || true
    fi
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/log" | grep -o '[0-9]*$' ||
        true)
    stats=$(grep '^fuzz-stats:' "$work/log" | tail -n 1 || true)
    echo "   executions: ${execs:-unknown} in ${FUZZ_SECONDS} s"
    echo "   ${stats:-fuzz-stats: none (the run did not finish normally)}"
    echo "   corpus: $(find "$work/corpus" -type f | wc -l) inputs found (kept in $work/corpus)"
    if grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:' "$work/log"; then
        echo "   a sanitizer or libFuzzer report is in $work/log"
        status=1
    fi
done
echo
echo "== fuzz: total $(($(date +%s) - start)) s: $([ $status -eq 0 ] && echo passed || echo FAILED)"
exit $status
