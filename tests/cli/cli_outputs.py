#!/usr/bin/env python3
"""The files the clmax CLI writes: refused destinations, an existing file replaced
atomically or left untouched on failure, modes, large outputs.

Run by ctest, one test per case; see cli_common.py."""
import os
import signal
import stat
import subprocess
import sys
import time

from cli_common import (case, ref_argmax, ref_hardmax, sample, main)


# ---- Output files -------------------------------------------------------------------------------


@case("output.missing_directory")
def _(ctx):
    ctx.save("in.npy", sample("<f4", (2, 3)))
    ctx.run("argmax", "in.npy", "nodir/out.npy", rc=1,
            err=r"^clmax: nodir/out\.npy: cannot create a file beside it: No such file")


@case("output.parent_is_file")
def _(ctx):
    ctx.save("in.npy", sample("<f4", (2, 3)))
    ctx.write("file", b"x")
    ctx.run("argmax", "in.npy", "file/out.npy", rc=1,
            err=r"^clmax: file/out\.npy: cannot create a file beside it: Not a directory")


@case("output.unwritable_directory")
def _(ctx):
    ctx.save("in.npy", sample("<f4", (2, 3)))
    if os.path.isdir("/proc/self"):
        # Unwritable even for root.
        ctx.run("argmax", "in.npy", "/proc/self/out.npy", rc=1,
                err=r"^clmax: /proc/self/out\.npy: cannot create a file beside it")
    if os.geteuid() != 0:
        os.mkdir(ctx.path("ro"))
        os.chmod(ctx.path("ro"), 0o555)
        try:
            ctx.run("argmax", "in.npy", "ro/out.npy", rc=1, err=r"Permission denied")
        finally:
            os.chmod(ctx.path("ro"), 0o755)


@case("output.is_directory")
def _(ctx):
    ctx.save("in.npy", sample("<f4", (2, 3)))
    os.mkdir(ctx.path("out.npy"))
    ctx.run("argmax", "in.npy", "out.npy", rc=1, err=r"^clmax: out\.npy: is a directory")
    assert os.path.isdir(ctx.path("out.npy")) and not os.listdir(ctx.path("out.npy"))


@case("output.not_regular")
def _(ctx):
    """Never rename over a device or a FIFO (as root, /dev would let us)."""
    ctx.save("in.npy", sample("<f4", (2, 3)))
    os.mkfifo(ctx.path("fifo"))
    ctx.run("argmax", "in.npy", "fifo", rc=1, err=r"^clmax: fifo: exists and is not a regular file")
    assert stat.S_ISFIFO(os.stat(ctx.path("fifo")).st_mode)
    if os.path.exists("/dev/null"):
        ctx.run("argmax", "in.npy", "/dev/null", rc=1, err=r"not a regular file")
        assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


@case("output.symlink")
def _(ctx):
    """Through a symbolic link the target file is replaced and the link kept."""
    x = sample("<f4", (5, 3), seed=34)
    ctx.save("in.npy", x)
    os.mkdir(ctx.path("sub"))
    ctx.write("sub/target.npy", b"old")
    os.symlink("sub/target.npy", ctx.path("link.npy"))
    ctx.run("argmax", "in.npy", "link.npy")
    assert os.path.islink(ctx.path("link.npy"))
    ctx.check("sub/target.npy", ref_argmax(x, 0))
    # A dangling link is replaced by the file.
    os.symlink("nowhere/x.npy", ctx.path("dangling.npy"))
    ctx.run("argmax", "in.npy", "dangling.npy")
    assert not os.path.islink(ctx.path("dangling.npy"))
    ctx.check("dangling.npy", ref_argmax(x, 0))


@case("output.existing_untouched_on_failure")
def _(ctx):
    ctx.save("in.npy", sample("<f4", (2, 3)))
    for args in [["--axis=7"], ["--bf16"], ["--backend=opencl", "--device=no-such-device-xyz"]]:
        ctx.write("out.npy", b"precious")
        ctx.run("argmax", "in.npy", "out.npy", *args, rc=1)
        with open(ctx.path("out.npy"), "rb") as f:
            assert f.read() == b"precious"
    ctx.write("out.npy", b"precious")
    ctx.run("argmax", "in.npy", "out.npy", "--keepdims=3", rc=2)
    with open(ctx.path("out.npy"), "rb") as f:
        assert f.read() == b"precious"


@case("output.existing_replaced")
def _(ctx):
    x = sample("<f4", (5, 3), seed=30)
    ctx.save("in.npy", x)
    ctx.write("out.npy", b"old contents" * 1000)
    ctx.run("argmax", "in.npy", "out.npy")
    ctx.check("out.npy", ref_argmax(x, 0))


@case("output.same_as_input")
def _(ctx):
    x = sample("<f4", (5, 3), seed=31)
    ctx.save("x.npy", x)
    ctx.run("hardmax", "x.npy", "x.npy", "--axis=0")
    ctx.check("x.npy", ref_hardmax(x, 0, 13, x.dtype, 1))


@case("output.mode")
def _(ctx):
    """The output gets the mode a plain file would (0666 less the umask), not mkstemp's 0600."""
    ctx.save("in.npy", sample("<f4", (5, 3)))
    old = os.umask(0o022)
    try:
        ctx.run("argmax", "in.npy", "out.npy")
    finally:
        os.umask(old)
    mode = stat.S_IMODE(os.stat(ctx.path("out.npy")).st_mode)
    assert mode == 0o644, oct(mode)


@case("output.large")
def _(ctx):
    """A few MiB in and out, through the mapped input and output paths."""
    x = sample("<f4", (512, 1024), seed=32)
    ctx.save("in.npy", x)
    ctx.run("hardmax", "in.npy", "out.npy", "--backend=cpu")
    ctx.check("out.npy", ref_hardmax(x, -1, 13, x.dtype, 1))
    ctx.run("argmax", "in.npy", "out.npy", "--axis=0", "--backend=cpu")
    ctx.check("out.npy", ref_argmax(x, 0))


def killed_mid_run(ctx, sig):
    """clmax stopped by sig while its output is being computed leaves no temporary file and no
    output: the stop signals, and the crash signals a driver could raise inside the call."""
    for attempt, rows in enumerate((16, 32, 64, 128)):
        name = "in%d.npy" % rows
        ctx.save(name, sample("<f4", (rows, 1 << 20), seed=rows))
        # Under AddressSanitizer (.ci/sanitize.sh) the crash signals end the process with the
        # signal, as they do without it, rather than with the sanitizer's report.
        env = dict(os.environ)
        env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + \
            ":handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0"
        p = subprocess.Popen([ctx.exe, "hardmax", name, "out.npy", "--axis=0", "--backend=cpu"],
                             cwd=ctx.dir, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             env=env)
        seen = False
        while p.poll() is None and not seen:
            seen = any(".tmp." in f for f in os.listdir(ctx.dir))
            if not seen:
                time.sleep(0.0005)
        if seen:
            p.send_signal(sig)
        p.wait(timeout=120)
        p.stderr.close()
        if seen and p.returncode == -sig:
            left = [f for f in os.listdir(ctx.dir) if ".tmp." in f]
            assert not left, "temporary files left behind after signal %d: %s" % (sig, left)
            assert not os.path.exists(ctx.path("out.npy")), "an output after signal %d" % sig
            return
        # The run ended before the signal reached it: a larger input gives a longer window.
        if os.path.exists(ctx.path("out.npy")):
            os.unlink(ctx.path("out.npy"))
    raise AssertionError("never caught clmax between creating and committing its output")


for _sig in ("SIGINT", "SIGTERM", "SIGSEGV", "SIGBUS", "SIGABRT"):
    case("output.killed_by_" + _sig[3:].lower())(
        lambda ctx, _s=getattr(signal, _sig): killed_mid_run(ctx, _s))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
