#!/usr/bin/env python3
"""The clmax CLI and the program cache's folder: a folder others can write is not used, and -v
says so.

Run by ctest, one test per case; see cli_common.py."""
import os
import re
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


if __name__ == "__main__":
    sys.exit(main(sys.argv))
