#!/bin/sh
# Runs a program that exits 77 when there is no OpenCL device. ctest counts 77 as a skip
# (SKIP_RETURN_CODE), except with CLMAX_REQUIRE_OPENCL=1, where a missing device is a failure.
"$@"
rc=$?
if [ "$rc" -eq 77 ] && [ "${CLMAX_REQUIRE_OPENCL:-}" = 1 ]; then
    echo "no OpenCL device, and CLMAX_REQUIRE_OPENCL=1: failing instead of skipping" >&2
    exit 1
fi
exit "$rc"
