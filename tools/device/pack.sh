#!/usr/bin/env bash
# Packs what tools/device/run.sh needs on a machine with a GPU but without clmax's packages (no
# network there): the shared libraries the build links, except the C library (gpu/lib), the ONNX
# node tests of the three operators (gpu/onnx) and clinfo. Run it from the repository root after
# tools/setup.sh; gpu/ is ignored by git. Then send the working tree with gpu/ and run
# `bash tools/device/run.sh probe bench tests` there (docs/PERFORMANCE.md, "On a GPU").
set -euo pipefail
build=${BUILD_DIR:-build}
[ -x "$build/clmax-bench" ] || {
    echo "pack.sh: no $build/clmax-bench: run tools/setup.sh first" >&2
    exit 1
}
rm -rf gpu
mkdir -p gpu/lib gpu/onnx
bins=$(find "$build" -type f -perm -u+x \( -name 'test_*' -o -name 'clmax*' -o -name 'pipeline-example' \) 2>/dev/null)
for lib in $(ldd $bins 2>/dev/null | awk '/=> \// {print $3}' | sort -u); do
    case $(basename "$lib") in
    libc.so* | libm.so* | libresolv.so* | libpthread.so* | libdl.so* | librt.so* | libclmax.so*) ;;
    *) cp -L "$lib" gpu/lib/ ;;
    esac
done
node=/usr/share/libonnx-testdata/data/node
if [ -d "$node" ]; then
    cp -r "$node"/test_argmax_* "$node"/test_argmin_* "$node"/test_hardmax_* gpu/onnx/
fi
if command -v clinfo >/dev/null; then cp "$(command -v clinfo)" gpu/; fi
# The test programs each link the static library: packed together they fit the tree's transfer
# limit where the folder does not. run.sh unpacks it.
tar cf - --exclude="$build/python" "$build" | xz -9e -T0 >gpu/build.tar.xz
du -sh gpu "$build"
