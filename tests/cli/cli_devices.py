#!/usr/bin/env python3
"""The clmax CLI's devices command, and the fallback to the CPU path without any
OpenCL platform.

Run by ctest, one test per case; see cli_common.py."""
import os
import re
import sys

from cli_common import (Skip, case, ref_argmax, sample, main)


# ---- Devices ------------------------------------------------------------------------------------


@case("devices")
def _(ctx):
    p = ctx.run("devices", out=r"\nauto picks: (opencl|cpu), .+\n$")
    text = p.stdout.decode()
    if os.environ.get("CLMAX_EXPECT_NO_OPENCL") == "1":
        assert text.startswith("No OpenCL platform found") and "auto picks: cpu, CPU" in text, text
    if "opencl, " in text.split("auto picks:")[1]:
        # The picked device is marked with its index in the list.
        assert re.search(r"auto picks: opencl, .+ / .+ \[\d+\]\n$", text), text
    ctx.run("devices", "--backend=cpu", out=r"\ncpu picks: cpu, CPU")
    ctx.run("devices", "--backend", "cpu", out=r"\ncpu picks: cpu, CPU")


@case("devices.opencl")
def _(ctx):
    ctx.opencl()
    p = ctx.run("devices", "--backend=opencl", out=r"platform 0: .+\n  \[0\] .+\n.*"
                                                   r"\nopencl picks: opencl, .+ \[\d+\]\n$")
    # Indices run across platforms: 0, 1, 2, ... in listing order.
    indices = [int(i) for i in re.findall(r"^  \[(\d+)\] ", p.stdout.decode(), re.M)]
    assert indices == list(range(len(indices))), indices
    ctx.run("devices", "--device=0", out=r"\nopencl with device '0' picks: opencl, .+ \[0\]\n$")
    ctx.run("devices", "--device=no-such-device-xyz", rc=1, out=r"picks: nothing",
            err=r"cannot start the opencl backend: no OpenCL device")


def no_icd_env(ctx):
    """An ICD loader environment with no OpenCL platform at all."""
    os.mkdir(ctx.path("no_vendors"))
    return {"OCL_ICD_VENDORS": ctx.path("no_vendors"), "OCL_ICD_FILENAMES": "",
            "CLMAX_BACKEND": "auto"}


@case("no_opencl")
def _(ctx):
    if not sys.platform.startswith("linux"):
        raise Skip("needs the ocl-icd loader")
    env = no_icd_env(ctx)
    x = sample("<f4", (4, 5), seed=33)
    ctx.save("in.npy", x)
    ctx.run("devices", env=env, out=r"^No OpenCL platform found.*\nauto picks: cpu, CPU")
    ctx.run("argmax", "in.npy", "out.npy", "-v", env=env, err=r"backend: cpu")
    ctx.check("out.npy", ref_argmax(x, 0))
    ctx.write("out.npy", b"precious")
    ctx.run("argmax", "in.npy", "out.npy", "--backend=opencl", env=env, rc=1,
            err=r"^clmax: cannot start the backend: no OpenCL device")
    with open(ctx.path("out.npy"), "rb") as f:
        assert f.read() == b"precious"
    ctx.run("devices", "--backend=opencl", env=env, rc=1, out=r"picks: nothing",
            err=r"no OpenCL device")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
