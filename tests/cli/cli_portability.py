#!/usr/bin/env python3
"""The clmax CLI on the other OpenCL implementations installed here: Mesa's rusticl (llvmpipe)
and the Oclgrind simulator. Each first call on a fresh cache tries the optional kernel features,
which fail there (rusticl's translator ends the probing child process); the call must still give
the CPU path's bytes, name the device with -v, leave no temporary file, and under Oclgrind's
checks report nothing. Skipped where the implementation is not installed.

Run by ctest, one test per case; see cli_common.py."""
import os
import shutil
import subprocess
import sys

from cli_common import (Skip, case, ref_argmax, ref_hardmax, sample, main)


def run_on(ctx, prefix, env, device, name):
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
    run_on(ctx, [], {"RUSTICL_ENABLE": "llvmpipe"}, "llvmpipe", "rusticl")


@case("portability.oclgrind")
def _(ctx):
    tool = shutil.which("oclgrind")
    if tool is None:
        raise Skip("oclgrind is not installed here")
    run_on(ctx, [tool, "--data-races", "--check-api"], {}, "Oclgrind", "Oclgrind")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
