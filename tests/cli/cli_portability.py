#!/usr/bin/env python3
"""The clmax CLI on the other OpenCL implementations installed here: Mesa's rusticl (llvmpipe)
and the Oclgrind simulator. Each first call on a fresh cache tries the kernel features and
measures the loop limit (see host/opencl/cl_features.c); some features fail there (rusticl's
translator ends the probing child process). On rusticl and under Oclgrind's checks every operator
gives the CPU path's bytes, names the device with -v, leaves no temporary file and reports
nothing. Skipped where the implementation is not
installed.

Run by ctest, one test per case; see cli_common.py."""
import os
import shutil
import subprocess
import sys

from cli_common import (Skip, case, np, ref_argmax, ref_hardmax, sample, main)


def late_maxima(shape, axis):
    """float32 values (small integers) with each line's maximum (and a tie of it) past the first
    100000 steps along axis, or in its last quarter: a device that ends loops early misses
    them."""
    n = np()
    rng = n.random.default_rng(7)
    x = rng.integers(-1000, 1000, size=shape).astype(n.float32)
    moved = n.moveaxis(x, axis, -1)  # a view: writes go to x
    length = moved.shape[-1]
    lo = min(100000, length * 3 // 4)
    for i, line in enumerate(n.ndindex(*moved.shape[:-1])):
        at = int(rng.integers(lo, length - 1))
        moved[line + (at,)] = 5000 + i
        moved[line + (at + 1,)] = 5000 + i
    return x


def run_checked(ctx, prefix, full_env, args, device, name, out, want, shown_env=""):
    """clmax args (writing out) on device: exit 0, -v naming the device, no warning, no Oclgrind
    report, no temporary file, and out holding exactly want."""
    cmd = prefix + [ctx.exe] + args + ["--device=" + device, "-v"]
    p = subprocess.run(cmd, cwd=ctx.dir, capture_output=True, env=full_env, timeout=300)
    err = p.stderr.decode("utf-8", "replace")
    shown = "$ %s%s\n--- exit %d\n--- stderr:\n%s" % (shown_env, " ".join(cmd), p.returncode,
                                                      err)
    assert p.returncode == 0, shown
    assert "clmax: backend: opencl" in err and device in err, "not run on %s:\n%s" % (name, shown)
    assert "warning" not in err, shown
    for word in ("Oclgrind - ", "invalid read", "invalid write", "data race", "FATAL"):
        assert word.lower() not in err.lower(), shown
    ctx.no_temp_files()
    try:
        ctx.check(out, want)
    except AssertionError as e:
        raise AssertionError("%s\n%s" % (shown, e)) from None


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
        run_checked(ctx, prefix, full_env, [op, "in.npy", out, "--axis=1"], device, name, out,
                    want)


@case("portability.rusticl")
def _(ctx):
    """rusticl's llvmpipe ends a work-item's loops after 65535 iterations and goes on with wrong
    values: clmax measures that on the first call and plans within it. Every operator gives the
    CPU path's bytes there, on short axes and on axes far longer than the limit (contiguous and
    strided), from a fresh cache and from the stored answers."""
    if os.environ.get("CLMAX_BACKEND", "").lower() == "cpu":
        raise Skip("CLMAX_BACKEND=cpu: auto would not try the device")
    env = {"RUSTICL_ENABLE": "llvmpipe"}
    run_on(ctx, [], env, "llvmpipe", "rusticl")
    base = dict(os.environ, CLMAX_CACHE_DIR=ctx.path("cache"), **env)
    for shape, axis in (((2, 150001), 1), ((1, 140000, 3), 1), ((70001, 2), 0)):
        x = late_maxima(shape, axis)
        ctx.save("long.npy", x)
        wants = (("argmax", ref_argmax(x, axis)),
                 ("hardmax", ref_hardmax(x, axis, 13, "<f4", 1.0)))
        # Each strategy and both kinds' plans: some would run a work-item's loops past the limit.
        for strategy in ("auto", "rows", "strided", "split"):
            for plan in ("auto", "gpu"):
                for op, want in wants:
                    full_env = dict(base, CLMAX_STRATEGY=strategy, CLMAX_PLAN=plan)
                    run_checked(ctx, [], full_env, [op, "long.npy", "o.npy", "--axis=%d" % axis],
                                "llvmpipe", "rusticl", "o.npy", want,
                                "CLMAX_STRATEGY=%s CLMAX_PLAN=%s " % (strategy, plan))


@case("portability.auto_not_simulator")
def _(ctx):
    """With Oclgrind's simulator registered as an OpenCL platform before PoCL, auto picks PoCL:
    the simulator claims to be a GPU, a CPU and an accelerator at once, and ranks last."""
    if os.environ.get("CLMAX_BACKEND", "").lower() == "cpu" or os.environ.get("CLMAX_DEVICE"):
        raise Skip("CLMAX_BACKEND or CLMAX_DEVICE chooses for auto")
    icd = "/usr/lib/oclgrind/liboclgrind-rt-icd.so"
    pocl = "/etc/OpenCL/vendors/pocl.icd"
    if not os.path.exists(icd) or not os.path.exists(pocl):
        raise Skip("Oclgrind's ICD library or PoCL's ICD file is not installed here")
    vendors = ctx.path("vendors")
    os.mkdir(vendors)
    with open(os.path.join(vendors, "a-oclgrind.icd"), "w") as f:
        f.write(icd + "\n")
    shutil.copy(pocl, os.path.join(vendors, "b-pocl.icd"))
    # A call this small goes to the CPU path by the cost model; the device is forced here.
    env = {"OCL_ICD_VENDORS": vendors, "OCL_ICD_FILENAMES": "",
           "CLMAX_CACHE_DIR": ctx.path("cache"), "CLMAX_AUTO_PATH": "opencl"}
    p = ctx.run("devices", env=env)
    out = p.stdout.decode("utf-8", "replace")
    assert "[0] Oclgrind Simulator" in out and "GPU+CPU+accelerator" in out, out
    assert "auto picks: opencl, Portable Computing Language" in out, out
    x = sample("<f4", (6, 37), seed=31)
    ctx.save("in.npy", x)
    ctx.run("argmax", "in.npy", "a.npy", "--axis=1", "-v", env=env,
            err=r"clmax: device: Portable Computing Language")
    ctx.check("a.npy", ref_argmax(x, 1))


@case("portability.oclgrind")
def _(ctx):
    tool = shutil.which("oclgrind")
    if tool is None:
        raise Skip("oclgrind is not installed here")
    run_on(ctx, [tool, "--data-races", "--check-api"], {}, "Oclgrind", "Oclgrind")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
