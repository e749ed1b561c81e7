#!/usr/bin/env bash
# Installs what clmax needs (Debian packages), builds it into ./build, and runs the clmax tool on
# the bundled example. Run as root or with sudo available. BUILD_DIR overrides ./build.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}

# mesa-opencl-icd (rusticl) and oclgrind: the other OpenCL implementations the tests run on
# (tests/cli/cli_portability.py, tests/oclgrind); rusticl shows no device unless RUSTICL_ENABLE
# says so, so the default device stays PoCL's. python3-matplotlib: tools/bench/heatmap.py draws
# the benchmark's shape sweep (and its test runs it). python3-dev builds the Python package's
# module in the tree; pytest, Hypothesis, PyOpenCL and Dask (with distributed) run its tests;
# python3-venv and python3-pip let `pip install .` run in a virtual environment (README).
PACKAGES="build-essential cmake pkg-config python3 python3-numpy ocl-icd-opencl-dev opencl-headers
pocl-opencl-icd clinfo libcriterion-dev libonnx-testdata libonnx-dev protobuf-c-compiler
libprotobuf-c-dev mesa-opencl-icd oclgrind python3-matplotlib python3-dev python3-pytest
python3-hypothesis python3-pyopencl python3-dask python3-distributed python3-venv python3-pip
python3-torch"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
missing=$(for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || echo "$p"; done)
if [ -n "$missing" ]; then
    echo "== installing: $(echo $missing)"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
fi

echo "== building into $BUILD_DIR"
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release
cmake --build "$BUILD_DIR" -j"$(nproc)"

echo "== example: ArgMax of tools/examples/logits.npy along axis 1"
"$BUILD_DIR"/clmax argmax tools/examples/logits.npy "$BUILD_DIR"/logits_argmax.npy --axis=1 -v
# Debian's python3 has numpy (python3-numpy); a python3 earlier on PATH (pyenv) may not.
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
"$PY" -c "import numpy as np, sys; x = np.load('tools/examples/logits.npy'); \
y = np.load(sys.argv[1]); print('input', x.shape, x.dtype, '-> indices', y.ravel().tolist()); \
assert (y.ravel() == x.argmax(axis=1)).all(), 'mismatch with numpy'" "$BUILD_DIR"/logits_argmax.npy
echo "== done: the library, the clmax tool, the Python package (import it with"
echo "   PYTHONPATH=$BUILD_DIR/python) and the tests are in $BUILD_DIR"
