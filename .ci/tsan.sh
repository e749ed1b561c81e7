#!/usr/bin/env bash
# ThreadSanitizer over the threads test (tests/concurrency/test_threads.c) on the CPU path:
# 8 threads on one context, each call of which may start the CPU path's own worker threads.
#
# Builds test_threads and the library into build-tsan with -fsanitize=thread (RelWithDebInfo)
# and runs `test_threads cpu` with CLMAX_BACKEND=cpu, no OpenCL driver (OCL_ICD_VENDORS at an
# empty folder) and TSAN_OPTIONS=halt_on_error=1: any report fails the script.
#
# Run from the repository root after the normal build (tools/setup.sh installed the dependencies).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=build-tsan
TAG=tsan
# shellcheck source=common.sh
source .ci/common.sh

start=$(date +%s)
# CLMAX_NO_CLONES: the CPU path's hot loops are otherwise compiled twice with GCC's target_clones
# and picked by an ifunc resolver, which the dynamic loader runs before ThreadSanitizer's runtime
# is initialised; instrumented, the resolver crashes at startup (SIGSEGV in libtsan). The loops
# themselves are the same code either way.
FLAGS="-fsanitize=thread -fno-omit-frame-pointer -DCLMAX_NO_CLONES"
echo "== tsan: configuring $BUILD: $FLAGS (RelWithDebInfo)"
configure -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS="$FLAGS"
echo "== tsan: building test_threads"
build -j"$(nproc)" --target test_threads
echo "== tsan: built in $(($(date +%s) - start)) s"

empty_icd="$ROOT/$BUILD/empty-icd-vendors"
mkdir -p "$empty_icd"
export CLMAX_BACKEND=cpu OCL_ICD_VENDORS="$empty_icd" OCL_ICD_FILENAMES=
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:history_size=4"
cmd=("$BUILD/tests/concurrency/test_threads" cpu)
# Older ThreadSanitizer runtimes cannot map their shadow memory under a kernel's largest address
# randomisation ("unexpected memory mapping"); setarch -R runs the test without it.
if command -v setarch >/dev/null && setarch "$(uname -m)" -R true 2>/dev/null; then
    cmd=(setarch "$(uname -m)" -R "${cmd[@]}")
fi
echo "== tsan: CLMAX_BACKEND=cpu TSAN_OPTIONS=$TSAN_OPTIONS ${cmd[*]}"
t0=$(date +%s)
rc=0
"${cmd[@]}" >"$BUILD/tsan.log" 2>&1 || rc=$?
cat "$BUILD/tsan.log"
if grep -q "WARNING: ThreadSanitizer\|ERROR: ThreadSanitizer\|FATAL: ThreadSanitizer" "$BUILD/tsan.log"; then
    echo "== tsan: ThreadSanitizer reported (see above)"
    rc=1
fi
echo "== tsan: exit status $rc, run $(($(date +%s) - t0)) s, total $(($(date +%s) - start)) s:" \
    "$([ $rc -eq 0 ] && echo passed || echo FAILED)"
exit $rc
