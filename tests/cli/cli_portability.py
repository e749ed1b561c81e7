#!/usr/bin/env python3
"""The clmax CLI on the other OpenCL implementations installed here: Mesa's rusticl (llvmpipe)
and the Oclgrind simulator. Each first call on a fresh cache tries the kernel features (see
host/opencl/cl_features.c), some of which fail there (rusticl's translator ends the probing child
process). Under Oclgrind's checks every operator gives the CPU path's bytes, names the device with
-v, leaves no temporary file and reports nothing. Skipped where the implementation is not
installed.

Run by ctest, one test per case; see cli_common.py."""
import os
import shutil
import subprocess
import sys

from cli_common import (Skip, case, ref_argmax, ref_hardmax, sample, main)


def run_on(ctx, prefix, env, device, name):
    """Every operator on device, right and silent, from a fresh cache."""
    x = sample("<f4", (6, 37), seed=31)
    ctx.save("in.npy", x)
    full_env = dict(os.environ)
    full_env.update(env)
    full_env["CLMAX_CACHE_DIR"] = ctx.path("cache")  # fresh: the features are tried
    devices = subprocess.run(prefix + [ctx.exe, "devices"], capture_output=True, env=full_env,
                             timeout=300)
    if device not in devices.stdout.decode("utf-8", "replace"):
        raise Skip("%s is not installed here" % name)
    for op, out, want in (("argmax", "a.npy", ref_argmax(x, 1)),
                          ("hardmax", "h.npy", ref_hardmax(x, 1, 13, "<f4", 1.0))):
        cmd = prefix + [ctx.exe, op, "in.npy", out, "--axis=1", "--device=" + device, "-v"]
        p = subprocess.run(cmd, cwd=ctx.dir, capture_output=True, env=full_env, timeout=300)
        err = p.stderr.decode("utf-8", "replace")
        shown = "$ %s\n--- exit %d\n--- stderr:\n%s" % (" ".join(cmd), p.returncode, err)
        assert p.returncode == 0, shown
        assert "clmax: backend: opencl" in err and device in err, "not run on %s:\n%s" % (
            name, shown)
        assert "warning" not in err, shown
        for word in ("Oclgrind - ", "invalid read", "invalid write", "data race", "FATAL"):
            assert word.lower() not in err.lower(), shown
        ctx.no_temp_files()
        ctx.check(out, want)


@case("portability.rusticl")
def _(ctx):
    """rusticl's llvmpipe ends every kernel loop after 65535 iterations: clmax finds that out on
    the first call and does not use the device (the CPU path answers in auto mode, and says why;
    a forced device is an error) rather than give wrong answers."""
    if os.environ.get("CLMAX_BACKEND", "").lower() == "cpu":
        raise Skip("CLMAX_BACKEND=cpu: auto would not try the device")
    x = sample("<f4", (6, 37), seed=31)
    ctx.save("in.npy", x)
    env = {"RUSTICL_ENABLE": "llvmpipe", "CLMAX_CACHE_DIR": ctx.path("cache")}
    p = ctx.run("devices", env=env)
    if "llvmpipe" not in p.stdout.decode("utf-8", "replace"):
        raise Skip("rusticl is not installed here")
    why = r"ends kernel loops early"
    # First, on a fresh cache: the probing child process that rusticl ends must not take the
    # output's temporary file with it.
    ctx.run("argmax", "in.npy", "a.npy", "--axis=1", "--device=llvmpipe", "--backend=auto",
            env=env, err=r"^clmax: warning: the OpenCL device failed, the CPU path computed the "
            r"answer: [^\n]*" + why)
    ctx.check("a.npy", ref_argmax(x, 1))
    ctx.run("argmax", "in.npy", "b.npy", "--axis=1", "--device=llvmpipe", env=env, rc=1,
            err=why)
    assert not os.path.exists(ctx.path("b.npy"))


@case("portability.oclgrind")
def _(ctx):
    tool = shutil.which("oclgrind")
    if tool is None:
        raise Skip("oclgrind is not installed here")
    run_on(ctx, [tool, "--data-races", "--check-api"], {}, "Oclgrind", "Oclgrind")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
