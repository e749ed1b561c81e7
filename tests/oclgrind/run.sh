#!/bin/sh
# Runs oclgrind_plans under Oclgrind's checks: invalid memory accesses (always on), data races
# and API misuse. Any report in its log fails the test, as does a wrong answer. (Its check of
# uninitialised values, --uninitialized, stops at the `freeze` instruction that Debian's LLVM 15
# emits in every kernel: Oclgrind 21.10 does not know it.) A local memory of 256 KiB lets the planner take STRIDED_WIDE's tiles; 8 compute units
# let the GPU plan split rows as on a real GPU. Exit 77 (a skip) where oclgrind is not installed.
# Usage: run.sh OCLGRIND_PLANS WORK_DIR [--quick]
set -u
prog=$1 work=$2
shift 2
tool=$(command -v oclgrind) || { echo "oclgrind is not installed: skipped"; exit 77; }
rm -rf "$work"
mkdir -p "$work"
log=$work/oclgrind.log
"$tool" --log "$log" --data-races --check-api --local-mem-size 262144 \
    --compute-units 8 "$prog" "$work/cache" "$@"
rc=$?
if [ -s "$log" ]; then
    echo "Oclgrind reported (first 60 lines of $log):"
    head -n 60 "$log"
    exit 1
fi
[ "$rc" -eq 0 ] || { echo "oclgrind_plans exited with $rc"; exit 1; }
echo "no reports from Oclgrind"
