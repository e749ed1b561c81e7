#!/usr/bin/env python3
"""The clmax CLI and the program cache's folder: a folder others can write is not used, and -v
says so; `clmax prebuild` fills the folder, and a second run finds everything built.

Run by ctest, one test per case; see cli_common.py."""
import os
import re
import subprocess
import sys

from cli_common import (backend_args, case, ref_argmax, sample, main)


@case("cache.world_writable_warned")
def _(ctx):
    args = backend_args(ctx, "opencl")
    folder = ctx.path("cache")
    os.mkdir(folder)
    os.chmod(folder, 0o777)  # after mkdir: the umask would take the bits away
    x = sample("<f4", (5, 7), seed=25)
    ctx.save("in.npy", x)
    env = {"CLMAX_CACHE_DIR": folder}
    ctx.run("argmax", "in.npy", "out.npy", "--axis=1", "-v", *args, env=env,
            err=r"(^|\n)clmax: warning: [^\n]*" + re.escape(folder) + r"[^\n]*\n")
    ctx.check("out.npy", ref_argmax(x, 1))
    assert os.listdir(folder) == [], "written into a refused folder: %s" % os.listdir(folder)
    # Without -v the answer is the same and nothing is said.
    ctx.run("argmax", "in.npy", "out.npy", "--axis=1", *args, env=env, quiet=True)
    ctx.check("out.npy", ref_argmax(x, 1))


def program_entries(folder, keyfn):
    """The entries of folder that hold a program of the type whose key function is keyfn: those
    whose key text's last line is build options with -DKEYFN=keyfn (host/opencl/cl_program.c),
    not a feature probe's answer, the cost profile, what a program's builds have cost ("rent;"
    and the options) or the float32 programs that measure the cost profile."""
    names = []
    for name in os.listdir(folder):
        if not name.endswith(".bin"):
            continue
        with open(os.path.join(folder, name), "rb") as f:
            data = f.read()
        k = int.from_bytes(data[16:24], "little")
        last = data[32:32 + k].rstrip(b"\n").split(b"\n")[-1]
        if last.startswith(b"-D") and (b" -DKEYFN=%s " % keyfn) in last:
            names.append(name)
    return names


@case("cache.prebuild")
def _(ctx):
    ctx.opencl()
    folder = ctx.path("prebuilt")
    os.mkdir(folder, 0o700)
    # Every program kept at once, whatever the driver keeps of its own (the default keeps them
    # there only once they have cost enough: cache.prebuild_auto).
    env = {"CLMAX_CACHE_DIR": folder, "CLMAX_CACHE_BINARIES": "always"}
    # ArgMax and ArgMin with either index type (which share them), 2 tie rules, for both types,
    # and Hardmax for float32 only (it takes floats): 2 + 1 + 2 sets of build options, 6 kernel
    # families each.
    args = ["prebuild", "--types=float32,uint8", "--ops=argmin,hardmax,argmax"]
    ctx.run(*args, env=env, quiet=True,
            out=r": 30 programs ready in [0-9.]+ s: 30 built now, 0 read back")
    assert os.listdir(folder), "nothing kept in the cache folder"
    ctx.run(*args, env=env, quiet=True,
            out=r": 30 programs ready in [0-9.]+ s: 0 built now, 30 read back")
    ctx.run("prebuild", "--types", "float32", "--ops", "hardmax", "-v", env=env, quiet=True,
            out=r": 6 programs ready .*: 0 built now, 6 read back[^\n]*\ntypes: float32\n$")
    # The programs are those the operators use: the call reads them back, compiles nothing.
    x = sample("<f4", (6, 9), seed=26)
    ctx.save("in.npy", x)
    ctx.run("argmax", "in.npy", "out.npy", "--axis=1", "--backend=opencl", env=env, quiet=True)
    ctx.check("out.npy", ref_argmax(x, 1))


@case("cache.prebuild_auto")
def _(ctx):
    ctx.opencl()
    folder = ctx.path("prebuilt")
    os.mkdir(folder, 0o700)
    env = {"CLMAX_CACHE_DIR": folder, "CLMAX_CACHE_BINARIES": "auto"}
    args = ["prebuild", "--types=int16", "--ops=argmax"]
    ctx.run(*args, env=env, quiet=True,
            out=r": 12 programs ready in [0-9.]+ s: 12 built now, 0 read back")
    # A second run reads back exactly the programs the folder kept: all where the driver keeps no
    # builds, else those whose first build alone cost 2 s (none, unless the machine is loaded),
    # and builds the rest through the driver's lookups.
    kept = len(program_entries(folder, b"key_i16"))
    p = ctx.run(*args, env=env, quiet=True,
                out=r": 12 programs ready in [0-9.]+ s: %d built now, %d read" % (12 - kept, kept))
    x = sample("<i2", (6, 9), seed=27)
    ctx.save("in.npy", x)
    ctx.run("argmax", "in.npy", "out.npy", "--axis=1", "--backend=opencl", env=env, quiet=True)
    ctx.check("out.npy", ref_argmax(x, 1))
    ctx.run(*args, env={**env, "CLMAX_CACHE_BINARIES": "sometimes"}, rc=1,
            err=r"CLMAX_CACHE_BINARIES=sometimes: expected auto or always")


@case("cache.prebuild_refusals")
def _(ctx):
    ctx.run("prebuild", "--types=float33", rc=2, err=r"unknown type 'float33'")
    ctx.run("prebuild", "--types=float32,,uint8", rc=2, err=r"--types")
    ctx.run("prebuild", "--ops=argmax,topk", rc=2, err=r"argmax, argmin and hardmax")
    ctx.run("prebuild", "--ops=", rc=2, err=r"--ops")
    ctx.run("prebuild", "--nonsense", rc=2, err=r"unknown option '--nonsense'")
    ctx.run("prebuild", "extra", rc=2, err=r"unexpected argument 'extra'")
    ctx.run("prebuild", "--help", out=r"^Usage: clmax prebuild")
    p = ctx.run("prebuild", "--device=no-such-device-xyz", rc=1,
                err=r"^clmax prebuild: no OpenCL device to build for: \S[^\n]*\n$")
    # Where a device exists and auto may use it, the reason names the selector that matched none
    # (else it is the missing platform, or CLMAX_BACKEND=cpu).
    has_device = subprocess.run([ctx.exe, "devices", "--backend=opencl"],
                                capture_output=True).returncode == 0
    if has_device and os.environ.get("CLMAX_BACKEND", "").lower() != "cpu":
        assert "no-such-device-xyz" in p.stderr.decode(), p.stderr


if __name__ == "__main__":
    sys.exit(main(sys.argv))
