#!/usr/bin/env bash
# AddressSanitizer + UndefinedBehaviorSanitizer (+ LeakSanitizer) over the ctest suite.
#
# Builds the whole tree (library, clmax CLI, tests) into build-asan with
#   -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer (RelWithDebInfo)
# so the CLI tests run an instrumented `clmax` too, then runs the suite twice:
#   1. the CPU path: CLMAX_BACKEND=cpu and OCL_ICD_VENDORS pointing at an empty folder, so that no
#      OpenCL driver is even loaded; full leak checking, no suppressions;
#   2. PoCL: CLMAX_REQUIRE_OPENCL=1, the tests' OpenCL halves only (CLMAX_TEST_BACKEND=opencl:
#      their CPU halves would repeat 1 exactly, as the CPU path never reads the device); leak
#      checking on, with .ci/lsan.supp hiding only the allocations that PoCL, LLVM (PoCL's
#      in-process compiler) and the ICD loader never free; with the user's program cache, which
#      .ci/run's suites have filled: building the kernels again (PoCL's compiler, not clmax's
#      code) took this half from 256 s to 323 s on a 2-core VM. The cache's miss path, building
#      and storing, still runs sanitized in the tests of the cache (clmax.cache, cli.cache.*),
#      which set folders of their own.
# Both on small shapes (CLMAX_TEST_SMALL=1, as valgrind): the cases of millions of elements run
# the same code as the small ones, which still span several threads' units (tensors over 256 KiB),
# and took most of the time (the CPU half 284 s with them, 106 s without, on a 2-core VM); the
# unsanitized modes of .ci/run run them.
# Labels run: unit (includes the fuzz corpus replays and the threads test), onnx, cli, example
# (not install: it builds an uninstrumented consumer against the instrumented library); on PoCL
# unit only: the CLI's, the ONNX runner's and the benchmark's own code runs sanitized in the CPU
# half, and their OpenCL calls go through the library code the unit tests drive (they were 100 s
# of that half's 256 s).
#
# Every sanitizer report fails the script, including one from a process whose exit status
# nobody checks: Criterion runs each test in a child process and ignores how the child exits
# after it has reported its result, so a leak found at a child's exit would pass unseen. Reports
# therefore go to files (log_path) and any file there fails the run; they are printed at the end.
#
# Criterion runs with CRITERION_JOBS=1: with more than one job its runner (the parent process)
# leaks one 48-byte block per extra worker, a report about Criterion, not clmax (ctest -j runs
# the test programs in parallel instead).
#
# Run from the repository root after the normal build (tools/setup.sh installed the dependencies).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=build-asan
TAG=sanitize
# shellcheck source=common.sh
source .ci/common.sh
LABELS=${SANITIZE_LABELS:-'unit|onnx|cli|example|bench'}
POCL_LABELS=${SANITIZE_POCL_LABELS:-unit}
JOBS=$(nproc)

SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
start=$(date +%s)
echo "== sanitize: configuring $BUILD: $SAN (RelWithDebInfo)"
configure -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS="$SAN"
echo "== sanitize: building"
build -j"$JOBS"
echo "== sanitize: built in $(($(date +%s) - start)) s"

logs="$ROOT/$BUILD/sanitizer-logs"
empty_icd="$ROOT/$BUILD/empty-icd-vendors"
mkdir -p "$empty_icd"
status=0

# run NAME LABELS [VAR=VALUE...]: the ctest labels with the sanitizer environment plus the given
# one.
run() {
    local name=$1 labels=$2
    shift 2
    local dir="$logs/$name"
    rm -rf "$dir"
    mkdir -p "$dir"
    local t0 rc=0
    t0=$(date +%s)
    echo
    echo "== sanitize: $name: $* ctest -L '$labels' -j$JOBS"
    env CRITERION_JOBS=1 \
        UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$dir/ubsan" \
        "$@" \
        ctest --test-dir "$BUILD" -L "$labels" -j"$JOBS" --output-on-failure \
        >"$dir.ctest.log" 2>&1 || rc=$?
    grep -E "tests passed|tests failed|^Total Test time|\(Failed\)|\(Timeout\)|Not Run" \
        "$dir.ctest.log" || true
    echo "== sanitize: $name: ctest exit status $rc, $(($(date +%s) - t0)) s"
    if [ "$rc" -ne 0 ]; then
        echo "---- failures (from $dir.ctest.log):"
        grep -B2 -A40 -E "\*\*\*(Failed|Exception|Timeout)" "$dir.ctest.log" | head -n 300 || true
        status=1
    fi
    local reports
    reports=$(find "$dir" -type f | sort)
    if [ -n "$reports" ]; then
        echo "== sanitize: $name: $(echo "$reports" | wc -l) process(es) wrote sanitizer reports:"
        for f in $reports; do
            echo "---- $f"
            head -n 80 "$f"
        done
        status=1
    else
        echo "== sanitize: $name: no sanitizer report"
    fi
}

ASAN_COMMON="detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1"

run cpu "$LABELS" CLMAX_BACKEND=cpu OCL_ICD_VENDORS="$empty_icd" OCL_ICD_FILENAMES= CLMAX_TEST_SMALL=1 \
    ASAN_OPTIONS="$ASAN_COMMON:log_path=$logs/cpu/asan"

# PoCL: LeakSanitizer's tracer crashes (SIGSEGV in its dynamic-TLS walk) in processes where
# PoCL has loaded and unloaded compiled kernel libraries; use_tls=0 skips thread-local storage
# as a source of pointers, which can only add reports (of blocks reachable only from TLS), never
# hide one. clmax keeps no pointers in TLS.
# Only PoCL's ICD: the loader otherwise also loads Mesa's Clover (mesa-opencl-icd), which on some
# machines (an AMD EPYC VM here) leaves a 128-byte block from a library the loader then unloads,
# reported in every process from "<unknown module>", where no suppression can name it.
pocl_icd="$ROOT/$BUILD/pocl-icd-vendors"
mkdir -p "$pocl_icd"
for f in /etc/OpenCL/vendors/pocl*.icd; do
    [ -e "$f" ] && cp "$f" "$pocl_icd"/
done
pocl_vendors=()
[ -n "$(ls -A "$pocl_icd")" ] && pocl_vendors=(OCL_ICD_VENDORS="$pocl_icd")
run pocl "$POCL_LABELS" "${pocl_vendors[@]}" CLMAX_REQUIRE_OPENCL=1 CLMAX_TEST_SMALL=1 \
    CLMAX_TEST_BACKEND=opencl \
    ASAN_OPTIONS="$ASAN_COMMON:log_path=$logs/pocl/asan" \
    LSAN_OPTIONS="suppressions=$ROOT/.ci/lsan.supp:print_suppressions=0:use_tls=0"

echo
echo "== sanitize: total $(($(date +%s) - start)) s: $([ $status -eq 0 ] && echo passed || echo FAILED)"
exit $status
