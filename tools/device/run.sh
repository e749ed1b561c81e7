#!/usr/bin/env bash
# Runs clmax's tests and benchmark on a machine with an NVIDIA GPU that has the driver but none of
# clmax's packages, over a build made elsewhere (build/, made by tools/setup.sh at /work/main) and
# the libraries tools/device/pack.sh put in gpu/. From the repository root:
#
#   bash tools/device/run.sh STAGE[:SECONDS]...
#
# Stages, each under its time limit (default 300 s):
#   probe  the device (nvidia-smi, clinfo, `clmax devices`, the bundled example twice)
#   bench  build/clmax-bench $BENCH_ARGS
#   sweep  build/clmax-bench --sweep=quick $SWEEP_ARGS (CSV in sweep.csv)
#   tests  ctest over the build with CLMAX_REQUIRE_OPENCL=1: -R "$TESTS" (default all), -E
#          "$EXCLUDE" (default install_consumer, which needs a compiler setup), -j "$JOBS"
#          (default 4); CRITERION_JOBS defaults to 4 too: 8 ctest jobs of 16 Criterion workers each
#          made clCreateContext fail with CL_OUT_OF_HOST_MEMORY on an H100.
# Output goes to $OUT (default /tmp/out): probe.txt, bench.txt, bench.err, sweep.csv, sweep.err,
# ctest.log, summary.txt. Where pack.sh packed build/ into gpu/build.tar.xz, it is unpacked first.
set -u
root=$PWD
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
start=$SECONDS

[ -f gpu/build.tar.xz ] && [ ! -x build/clmax-bench ] && tar xJf gpu/build.tar.xz

# The build's absolute paths name /work/main; the ONNX tests read /usr/share/libonnx-testdata.
if [ ! -e /work/main ]; then mkdir -p /work && ln -s "$root" /work/main; fi
mkdir -p /usr/share/libonnx-testdata/data
[ -e /usr/share/libonnx-testdata/data/node ] ||
    ln -s "$root/gpu/onnx" /usr/share/libonnx-testdata/data/node
export LD_LIBRARY_PATH=$root/gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=$PATH:/opt/torch/.venv/bin # ctest, where the image has CMake only from PyPI

# NVIDIA's OpenCL driver through the carried ICD loader, and nothing else.
lib=""
for d in /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib/x86_64-linux-gnu /usr/lib64; do
    if [ -e "$d/libnvidia-opencl.so.1" ]; then
        lib=$d/libnvidia-opencl.so.1
        break
    fi
done
if [ -z "$lib" ]; then
    lib=$(timeout 60 find / \( -path /proc -o -path /sys \) -prune -o \
        -name 'libnvidia-opencl.so*' -print 2>/dev/null | head -1)
fi
mkdir -p /tmp/clmax-icd
echo "${lib:-libnvidia-opencl.so.1}" >/tmp/clmax-icd/nvidia.icd
export OCL_ICD_VENDORS=/tmp/clmax-icd
export CLMAX_CACHE_DIR=${CLMAX_CACHE_DIR:-/tmp/clmax-cache}
export CRITERION_JOBS=${CRITERION_JOBS:-4}

# The CLI tests run the python3 the build found; give /usr/bin/python3 NumPy from the image's
# virtual environment if it has none.
if ! /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
    np=$(/opt/torch/.venv/bin/python3 -c \
        'import numpy, os; print(os.path.dirname(os.path.dirname(numpy.__file__)))' 2>/dev/null)
    [ -n "$np" ] && export PYTHONPATH=$np
fi

summary=$OUT/summary.txt
for arg in "$@"; do
    stage=${arg%%:*}
    limit=${arg#*:}
    [ "$limit" = "$arg" ] && limit=300
    t0=$SECONDS
    case $stage in
    probe)
        {
            echo "opencl driver: ${lib:-none found}"
            uname -a
            nvidia-smi -L
            nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem \
                --format=csv
            nproc
            lscpu | grep -E 'Model name|Socket|Thread|NUMA node\(s\)|L3|Flags' | cut -c1-400
            free -g
            [ -x gpu/clinfo ] && gpu/clinfo
            build/clmax devices
            build/clmax argmax tools/examples/logits.npy /tmp/idx.npy --axis=1 -v
            build/clmax argmax tools/examples/logits.npy /tmp/idx.npy --axis=1 -v
        } >"$OUT/probe.txt" 2>&1
        rc=$?
        ;;
    bench)
        # shellcheck disable=SC2086
        timeout "$limit" build/clmax-bench ${BENCH_ARGS:-} >>"$OUT/bench.txt" 2>>"$OUT/bench.err"
        rc=$?
        ;;
    sweep)
        # shellcheck disable=SC2086
        timeout "$limit" build/clmax-bench --sweep=quick ${SWEEP_ARGS:-} >>"$OUT/sweep.csv" \
            2>>"$OUT/sweep.err"
        rc=$?
        ;;
    tests)
        CLMAX_REQUIRE_OPENCL=1 timeout "$limit" ctest --test-dir build -j"${JOBS:-4}" \
            --output-on-failure -R "${TESTS:-.}" -E "${EXCLUDE:-install_consumer}" \
            >>"$OUT/ctest.log" 2>&1
        rc=$?
        tail -25 "$OUT/ctest.log" >>"$summary"
        ;;
    *)
        echo "unknown stage $stage"
        rc=2
        ;;
    esac
    echo "== $stage rc=$rc $((SECONDS - t0)) s" | tee -a "$summary"
done
echo "== all $((SECONDS - start)) s"
[ -f "$OUT/bench.txt" ] && tail -60 "$OUT/bench.txt"
cat "$summary"
