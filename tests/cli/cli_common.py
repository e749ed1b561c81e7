"""Shared helpers of the clmax command-line tool's tests (tests/cli/cli_*.py), and their driver.

Each cli_<topic>.py registers its cases with @case and runs them through main():

    cli_<topic>.py --list                 print the case names
    cli_<topic>.py CLMAX WORKDIR CASE     run one case against the clmax executable CLMAX

Inputs and expected outputs are made here with NumPy (np.argmax and np.argmin are the ONNX
reference; np.take_along_axis gives the values --values must write). Exit
status: 0 pass, 1 fail, 77 skip (OpenCL cases without a device, unless CLMAX_REQUIRE_OPENCL=1, and
whenever CLMAX_BACKEND=cpu).
"""
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import traceback

SKIP = 77
CASES = {}

FLOAT_TYPES = ["f2", "f4", "f8"]
INT_TYPES = ["i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8"]


class Skip(Exception):
    pass


def case(name):
    def register(fn):
        assert name not in CASES, name
        CASES[name] = fn
        return fn

    return register


# ---- Making inputs and expected outputs --------------------------------------------------------


def np():
    import numpy

    return numpy


def sample(dtype, shape, seed=1):
    """Random values of dtype with many ties, the extremes of the type, and for floats NaN, the
    infinities, signed zeros and denormals (rarely enough that most rows have none)."""
    n = np()
    rng = n.random.default_rng(seed)
    dt = n.dtype(dtype)
    count = int(n.prod(shape, dtype=n.int64))
    if dt.kind == "f":
        fi = n.finfo(dt)
        common = [-2.0, -1.0, -0.0, 0.0, 0.5, 1.0, 1.5, 2.0]
        rare = [n.nan, n.inf, -n.inf, float(fi.max), float(fi.min), float(fi.smallest_subnormal),
                -float(fi.smallest_subnormal)]
        values = n.array(common + rare, dtype=dt)
        weights = n.array([1.0] * len(common) + [0.02] * len(rare))
    else:
        ii = n.iinfo(dt)
        vals = [v for v in [-2, -1, 0, 1, 2, 3] if ii.min <= v <= ii.max]
        rare = [ii.min, ii.min + 1, ii.max - 1, ii.max]
        values = n.array(vals + rare, dtype=dt)
        weights = n.array([1.0] * len(vals) + [0.1] * len(rare))
    idx = rng.choice(len(values), size=count, p=weights / weights.sum())
    return values[idx].reshape(shape)


def bf16_bits(x):
    """float32 array -> bfloat16 bit patterns (uint16), by truncation."""
    n = np()
    return (n.ascontiguousarray(x, dtype=n.float32).view(n.uint32) >> 16).astype(n.uint16)


def bf16_to_f32(bits):
    n = np()
    return (bits.astype(n.uint32) << 16).view(n.float32)


def ref_argmax(x, axis=0, keepdims=1, select_last_index=0):
    n = np()
    axis = axis % x.ndim
    if select_last_index:
        r = x.shape[axis] - 1 - n.argmax(n.flip(x, axis), axis=axis)
    else:
        r = n.argmax(x, axis=axis)
    if keepdims:
        r = n.expand_dims(r, axis)
    return n.asarray(r).astype("<i8")


def ref_argmin(x, axis=0, keepdims=1, select_last_index=0):
    """np.argmin: NaN wins (the first NaN), else the smallest; the last with the flip trick."""
    n = np()
    axis = axis % x.ndim
    if select_last_index:
        r = x.shape[axis] - 1 - n.argmin(n.flip(x, axis), axis=axis)
    else:
        r = n.argmin(x, axis=axis)
    if keepdims:
        r = n.expand_dims(r, axis)
    return n.asarray(r).astype("<i8")


def ref_values(x, idx, axis, keepdims=1):
    """The elements of x at the indices idx (as ref_argmax/ref_argmin give them), bit for bit."""
    n = np()
    axis = axis % x.ndim
    full = idx if keepdims else n.expand_dims(idx, axis)
    v = n.take_along_axis(x, full.astype(n.intp), axis=axis)
    return v if keepdims else n.squeeze(v, axis=axis)


def ref_arg(op, x, axis=0, keepdims=1, select_last_index=0):
    f = ref_argmax if op == "argmax" else ref_argmin
    return f(x, axis, keepdims, select_last_index)


def ref_hardmax(x, axis, opset, out_dtype, one):
    """One-hot of the first maximum; opsets 1 and 11 see x as [prod(d[:axis]), prod(d[axis:])]."""
    n = np()
    axis = axis % x.ndim
    out = n.zeros(x.shape, dtype=out_dtype)
    if opset < 13:
        rows = int(n.prod(x.shape[:axis], dtype=n.int64))
        cols = int(n.prod(x.shape[axis:], dtype=n.int64))
        x2 = x.reshape(rows, cols)
        o2 = out.reshape(rows, cols)
        if rows and cols:
            o2[n.arange(rows), n.argmax(x2, axis=1)] = one
        return o2.reshape(x.shape)
    if out.size:
        n.put_along_axis(out, n.expand_dims(n.argmax(x, axis=axis), axis), one, axis=axis)
    return out


def npy_bytes(header, data=b"", version=(1, 0), pad=True, header_len=None):
    """A .npy file with a header of our choosing (str or bytes), for malformed inputs."""
    if isinstance(header, str):
        header = header.encode("latin1")
    pre = 10 if version[0] == 1 else 12
    if pad:
        header += b" " * ((64 - (pre + len(header) + 1) % 64) % 64) + b"\n"
    hl = len(header) if header_len is None else header_len
    lenfield = struct.pack("<H", hl) if pre == 10 else struct.pack("<I", hl)
    return b"\x93NUMPY" + bytes(version) + lenfield + header + data


def header(descr="<f4", fortran="False", shape="(2, 3)"):
    return "{'descr': %s, 'fortran_order': %s, 'shape': %s, }" % (
        descr if descr.startswith(("'", "[")) else repr(descr), fortran, shape)


# ---- Running the tool ---------------------------------------------------------------------------


class Ctx:
    def __init__(self, exe, workdir):
        self.exe = exe
        self.dir = workdir

    def path(self, name):
        return os.path.join(self.dir, name)

    def save(self, name, array, version=None, fortran=False):
        n = np()
        if fortran:
            array = n.asfortranarray(array)
        with open(self.path(name), "wb") as f:
            n.lib.format.write_array(f, array, version=version)
        return name

    def write(self, name, data):
        with open(self.path(name), "wb") as f:
            f.write(data)
        return name

    def run(self, *args, rc=0, err=None, out=None, env=None, quiet=False):
        """Run clmax with args; check its exit status and, as regexes, its stderr and stdout."""
        full_env = dict(os.environ)
        full_env.update(env or {})
        cmd = [self.exe] + [str(a) for a in args]
        p = subprocess.run(cmd, cwd=self.dir, capture_output=True, env=full_env, timeout=300)
        stdout = p.stdout.decode("utf-8", "replace")
        stderr = p.stderr.decode("utf-8", "replace")
        shown = "$ %s\n--- exit %d\n--- stdout:\n%s--- stderr:\n%s" % (
            " ".join(cmd), p.returncode, stdout, stderr)
        if p.returncode < 0:
            raise AssertionError("killed by signal %d\n%s" % (-p.returncode, shown))
        if p.returncode != rc:
            raise AssertionError("expected exit %d\n%s" % (rc, shown))
        if err is not None and not re.search(err, stderr, re.S):
            raise AssertionError("stderr does not match %r\n%s" % (err, shown))
        if out is not None and not re.search(out, stdout, re.S):
            raise AssertionError("stdout does not match %r\n%s" % (out, shown))
        if quiet and stderr:
            raise AssertionError("expected nothing on stderr\n%s" % shown)
        if rc != 0 and err is None and not stderr:
            raise AssertionError("a failure without a message\n%s" % shown)
        self.no_temp_files()
        return p

    def no_temp_files(self):
        for root, _, files in os.walk(self.dir):
            left = [f for f in files if ".tmp." in f]
            if left:
                raise AssertionError("temporary files left behind: %s" % left)

    def check(self, name, expected, descr=None):
        """OUT is a version 1.0 .npy with data at a multiple of 64, holding exactly expected."""
        n = np()
        with open(self.path(name), "rb") as f:
            raw = f.read()
        assert raw[:8] == b"\x93NUMPY\x01\x00", "not a version 1.0 .npy: %r" % raw[:8]
        hlen = raw[8] | raw[9] << 8
        assert (10 + hlen) % 64 == 0, "data offset %d is not a multiple of 64" % (10 + hlen)
        assert raw[10 + hlen - 1:10 + hlen] == b"\n", "header does not end with a newline"
        got = n.load(self.path(name))
        want_descr = descr or expected.dtype.newbyteorder("<").str
        assert got.dtype.str == want_descr, "dtype %s, expected %s" % (got.dtype.str, want_descr)
        assert got.shape == expected.shape, "shape %s, expected %s" % (got.shape, expected.shape)
        if got.tobytes() != n.ascontiguousarray(expected).astype(want_descr).tobytes():
            bad = n.argwhere(got != expected)
            raise AssertionError("%s differs from the reference at %d places, first %s:\n"
                                 "got\n%s\nexpected\n%s" % (name, len(bad), bad[:5], got, expected))

    def opencl(self):
        """Skip an OpenCL case where it cannot run, unless CLMAX_REQUIRE_OPENCL=1."""
        if os.environ.get("CLMAX_BACKEND", "").lower() == "cpu":
            raise Skip("CLMAX_BACKEND=cpu")
        p = subprocess.run([self.exe, "devices", "--backend=opencl"], capture_output=True)
        if p.returncode != 0:
            msg = "no usable OpenCL device: " + p.stderr.decode("utf-8", "replace").strip()
            if os.environ.get("CLMAX_REQUIRE_OPENCL") == "1":
                raise AssertionError(msg + " (CLMAX_REQUIRE_OPENCL=1)")
            raise Skip(msg)


def backend_args(ctx, backend):
    if backend == "opencl":
        ctx.opencl()
    return ["--backend=" + backend]


# ---- Driver -------------------------------------------------------------------------------------


def main(argv):
    if len(argv) == 2 and argv[1] == "--list":
        print("\n".join(CASES))
        return 0
    if len(argv) != 4 or argv[3] not in CASES:
        sys.stderr.write(__doc__)
        return 2
    exe, workroot, name = os.path.abspath(argv[1]), argv[2], argv[3]
    os.makedirs(workroot, exist_ok=True)
    workdir = tempfile.mkdtemp(prefix=name + ".", dir=workroot)
    try:
        CASES[name](Ctx(exe, workdir))
    except Skip as e:
        print("SKIP %s: %s" % (name, e))
        shutil.rmtree(workdir, ignore_errors=True)
        return SKIP
    except Exception:
        traceback.print_exc()
        print("FAIL %s (files kept in %s)" % (name, workdir))
        return 1
    shutil.rmtree(workdir, ignore_errors=True)
    print("PASS %s" % name)
    return 0

