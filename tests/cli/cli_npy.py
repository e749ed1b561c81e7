#!/usr/bin/env python3
"""The .npy files the clmax CLI reads: byte orders, descr spellings, Fortran order and
file versions taken; malformed and unreadable inputs refused.

Run by ctest, one test per case; see cli_common.py."""
import os
import shutil
import subprocess
import sys

from cli_common import (FLOAT_TYPES, INT_TYPES, Skip, case, header, np, npy_bytes, ref_argmax,
                        ref_hardmax, sample, main)


# ---- Byte orders, descr spellings, Fortran order, file versions ---------------------------------


@case("descr.spellings")
def _(ctx):
    """Byte order marks '<', '|', '=' or none for the same data."""
    n = np()
    for t, spellings in [("u1", ["|u1", "<u1", "=u1", "u1", ">u1"]),
                         ("i1", ["|i1", "<i1", "i1", ">i1"]),
                         ("f4", ["<f4", "=f4", "f4", "|f4"]),
                         ("u8", ["<u8", "=u8"])]:
        x = sample("<" + t, (4, 6), seed=3)
        for d in spellings:
            ctx.write("in.npy", npy_bytes(header(d, shape="(4, 6)"), x.tobytes()))
            ctx.run("argmax", "in.npy", "out.npy", "--axis=1", "--backend=cpu")
            ctx.check("out.npy", ref_argmax(x, 1))
    assert n is not None


@case("descr.big_endian")
def _(ctx):
    for t in FLOAT_TYPES + INT_TYPES:
        x = sample(">" + t, (5, 4, 3), seed=5)
        ctx.save("in.npy", x)
        ctx.run("argmax", "in.npy", "out.npy", "--axis=1", "-v",
                err="converted from big-endian" if t[1] != "1" else None)
        ctx.check("out.npy", ref_argmax(x, 1))
        if t in FLOAT_TYPES:
            ctx.run("hardmax", "in.npy", "out.npy")
            # Hardmax writes the input's type in native (little-endian) order.
            ctx.check("out.npy", ref_hardmax(x, -1, 13, x.dtype.newbyteorder("<"), 1),
                      descr="<" + t)


@case("fortran_order")
def _(ctx):
    for t in ["f4", "i2", "u8"]:
        x = sample("<" + t, (3, 4, 5), seed=9)
        ctx.save("in.npy", x, fortran=True)
        with open(ctx.path("in.npy"), "rb") as f:
            assert b"'fortran_order': True" in f.read(128)
        for axis in [0, 1, 2]:
            ctx.run("argmax", "in.npy", "out.npy", "--axis=%d" % axis)
            ctx.check("out.npy", ref_argmax(x, axis))
    # Shapes that cross the 32 x 32 tiles of the conversion.
    for shape in [(100, 65), (70, 3, 45), (33, 2, 2, 40)]:
        x = sample("<u2", shape, seed=11)
        ctx.save("in.npy", x, fortran=True)
        for axis in range(len(shape)):
            ctx.run("argmax", "in.npy", "out.npy", "--axis=%d" % axis, "--backend=cpu")
            ctx.check("out.npy", ref_argmax(x, axis))
    x = sample("<f8", (2, 3, 4, 5), seed=10)
    ctx.save("in.npy", x, fortran=True)
    ctx.run("hardmax", "in.npy", "out.npy", "--axis=2", "-v", err="converted from Fortran order")
    ctx.check("out.npy", ref_hardmax(x, 2, 13, x.dtype, 1))
    ctx.run("hardmax", "in.npy", "out.npy", "--axis=2", "--opset=11")
    ctx.check("out.npy", ref_hardmax(x, 2, 11, x.dtype, 1))


@case("fortran_order.big_endian")
def _(ctx):
    x = sample(">i4", (6, 7), seed=12)
    ctx.save("in.npy", x, fortran=True)
    for axis in [0, 1]:
        ctx.run("argmax", "in.npy", "out.npy", "--axis=%d" % axis, "-v",
                err="converted from big-endian Fortran order")
        ctx.check("out.npy", ref_argmax(x, axis))


@case("fortran_order.trivial")
def _(ctx):
    """Shapes where Fortran and C order agree are used in place."""
    for shape in [(7,), (1, 6, 1), (5, 1)]:
        x = sample("<f4", shape, seed=13)
        d = "(%s)" % "".join("%d, " % s for s in shape)
        ctx.write("in.npy", npy_bytes(header("<f4", "True", d), x.tobytes(order="F")))
        ctx.run("argmax", "in.npy", "out.npy", "--axis=-1", "-v")
        ctx.check("out.npy", ref_argmax(x, -1))


@case("versions")
def _(ctx):
    x = sample("<f4", (4, 5), seed=14)
    for v in [(1, 0), (2, 0), (3, 0)]:
        ctx.save("in.npy", x, version=v)
        with open(ctx.path("in.npy"), "rb") as f:
            assert f.read(8)[6] == v[0]
        ctx.run("argmax", "in.npy", "out.npy", "--axis=1")
        ctx.check("out.npy", ref_argmax(x, 1))
    # Unpadded headers, an odd data offset (copied for alignment), and a Python 2 long.
    ctx.write("in.npy", npy_bytes(header(shape="(4L, 5L)"), x.tobytes(), pad=False))
    ctx.run("argmax", "in.npy", "out.npy", "--axis=1", "-v", err="copied for alignment")
    ctx.check("out.npy", ref_argmax(x, 1))
    ctx.write("in.npy", npy_bytes('{"descr":"<f4","fortran_order":False,"shape":(4,5)}',
                                  x.tobytes(), version=(3, 0)))
    ctx.run("argmax", "in.npy", "out.npy", "--axis=0")
    ctx.check("out.npy", ref_argmax(x, 0))

# ---- Refused inputs -----------------------------------------------------------------------------

GOOD = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"
DATA = bytes(24)

# name -> (file contents, stderr regex after "in.npy: ")
BAD_FILES = {
    "empty_file": (b"", r"not a \.npy file"),
    "short_file": (b"\x93NU", r"not a \.npy file"),
    "bad_magic": (b"\x93NUMPZ" + npy_bytes(GOOD, DATA)[6:], r"not a \.npy file"),
    "text_file": (b"hello, world, this is not npy\n", r"not a \.npy file"),
    "truncated_preamble": (b"\x93NUMPY\x01\x00\x76", r"truncated \.npy header"),
    "truncated_preamble_v2": (b"\x93NUMPY\x02\x00\x76\x00\x00", r"truncated \.npy header"),
    "version_0": (npy_bytes(GOOD, DATA, version=(0, 0)), r"unsupported \.npy version 0\.0"),
    "version_4": (npy_bytes(GOOD, DATA, version=(4, 0)), r"unsupported \.npy version 4\.0"),
    "version_1_1": (npy_bytes(GOOD, DATA, version=(1, 1)), r"unsupported \.npy version 1\.1"),
    "header_len_beyond_file": (npy_bytes(GOOD, b"", header_len=500), r"header length 500 goes"),
    "header_len_beyond_file_v2": (npy_bytes(GOOD, b"", version=(2, 0), header_len=0xFFFFFFF0),
                                  r"header length 4294967280 goes"),
    "header_len_short": (npy_bytes(GOOD, DATA, header_len=20), r"malformed header"),
    "header_not_dict": (npy_bytes("['descr', 'shape']", DATA), r"not a dictionary"),
    "header_empty": (npy_bytes("", DATA, pad=False), r"not a dictionary"),
    "header_empty_dict": (npy_bytes("{}", DATA), r"no 'descr' key"),
    "missing_descr": (npy_bytes("{'fortran_order': False, 'shape': (2, 3), }", DATA),
                      r"no 'descr' key"),
    "missing_fortran_order": (npy_bytes("{'descr': '<f4', 'shape': (2, 3), }", DATA),
                              r"no 'fortran_order' key"),
    "missing_shape": (npy_bytes("{'descr': '<f4', 'fortran_order': False, }", DATA),
                      r"no 'shape' key"),
    "extra_key": (npy_bytes(GOOD[:-1] + "'extra': 1, }", DATA), r"unexpected key 'extra'"),
    "duplicate_key": (npy_bytes(GOOD[:-1] + "'shape': (6,), }", DATA), r"'shape' appears twice"),
    "unterminated_string": (npy_bytes("{'descr': '<f4", DATA), r"unterminated string"),
    "unterminated_string_at_end": (npy_bytes("{'descr': '<f4", DATA, pad=False),
                                   r"unterminated string"),
    "unterminated_key": (npy_bytes("{'descr", DATA, pad=False), r"unterminated string"),
    "unterminated_dict": (npy_bytes(GOOD[:-3], DATA), r"malformed header"),
    "missing_colon": (npy_bytes(GOOD.replace("'descr':", "'descr'"), DATA),
                      r"expected ':' after 'descr'"),
    "missing_comma": (npy_bytes(GOOD.replace("'<f4',", "'<f4'"), DATA),
                      r"expected ',' or '}' after 'descr'"),
    "key_not_string": (npy_bytes("{descr: '<f4'}", DATA), r"expected a string"),
    "text_after_dict": (npy_bytes(GOOD + " junk", DATA), r"unexpected text after the dictionary"),
    "two_dicts": (npy_bytes(GOOD + GOOD, DATA), r"unexpected text after the dictionary"),
    "nul_in_header": (npy_bytes(GOOD + "\0", DATA), r"unexpected text after the dictionary"),
    "escape_in_string": (npy_bytes(header("'<f\\x34'"), DATA), r"escape sequences"),
    "nul_in_key": (npy_bytes(GOOD.replace("'fortran_order'", "'fortran_order\0x'"), DATA),
                   r"NUL byte inside a string"),
    "nul_in_descr": (npy_bytes(header("'<f4\0'"), DATA), r"NUL byte inside a string"),
    "descr_not_string": (npy_bytes(GOOD.replace("'<f4'", "5"), DATA), r"'descr' is not a string"),
    "descr_empty": (npy_bytes(header("''"), DATA), r"unrecognised element type ''"),
    "descr_unknown": (npy_bytes(header("<x4"), DATA), r"unrecognised element type '<x4'"),
    "descr_trailing": (npy_bytes(header("<f4x"), DATA), r"unrecognised element type '<f4x'"),
    "descr_long": (npy_bytes(header("<f" + "4" * 100), DATA), r"unsupported element type"),
    "fortran_order_int": (npy_bytes(header(fortran="0"), DATA), r"'fortran_order' is not True"),
    "fortran_order_string": (npy_bytes(header(fortran="'False'"), DATA),
                             r"'fortran_order' is not True"),
    "fortran_order_lowercase": (npy_bytes(header(fortran="false"), DATA),
                                r"'fortran_order' is not True"),
    "shape_list": (npy_bytes(header(shape="[2, 3]"), DATA), r"'shape' is not a tuple"),
    "shape_int": (npy_bytes(header(shape="6"), DATA), r"'shape' is not a tuple"),
    "shape_parenthesised_int": (npy_bytes(header(shape="(6)"), DATA), r"'shape' is not a tuple"),
    "shape_float": (npy_bytes(header(shape="(2.0, 3)"), DATA), r"'shape' is not a tuple of int"),
    "shape_string": (npy_bytes(header(shape="('2', 3)"), DATA), r"'shape' is not a tuple of int"),
    "shape_unclosed": (npy_bytes(header(shape="(2, 3"), DATA), r"'shape' is not a tuple of int"),
    "shape_double_comma": (npy_bytes(header(shape="(2,, 3)"), DATA), r"not a tuple of integers"),
    "shape_hex": (npy_bytes(header(shape="(0x2, 3)"), DATA), r"not a tuple of integers"),
    "shape_negative": (npy_bytes(header(shape="(-2, 3)"), DATA), r"negative dimension -2"),
    "shape_dim_overflow": (npy_bytes(header(shape="(99999999999999999999, 1)"), DATA),
                           r"does not fit in 64 bits"),
    "shape_dim_above_int64": (npy_bytes(header(shape="(9223372036854775808,)"), DATA),
                              r"does not fit in 64 bits"),
    "shape_product_overflow": (npy_bytes(header(shape="(4294967296, 4294967296)"), DATA),
                               r"element count does not fit in 64 bits"),
    "shape_bytes_overflow": (npy_bytes(header("<f8", shape="(2305843009213693952,)"), DATA),
                             r"byte size does not fit in 64 bits"),
    "shape_huge_small_file": (npy_bytes(header(shape="(1099511627776,)"), DATA),
                              r"truncated: the header says 4398046511104 bytes of data, the "
                              r"file holds 24"),
    "rank_17": (npy_bytes(header(shape="(%s)" % ("1, " * 17)), bytes(4)),
                r"rank 17 is above clmax's maximum of 16"),
    "data_truncated": (npy_bytes(GOOD, DATA[:-1]), r"truncated: the header says 24 bytes of data, "
                       r"the file holds 23"),
    "data_missing": (npy_bytes(GOOD, b""), r"truncated"),
    "trailing_bytes": (npy_bytes(GOOD, DATA + b"junk"), r"4 unexpected bytes after the 24 bytes"),
    "bool": (npy_bytes(header("|b1"), bytes(6)), r"unsupported element type '\|b1' \(bool\)"),
    "complex64": (npy_bytes(header("<c8"), bytes(48)), r"unsupported element type '<c8' \(complex\)"),
    "complex128": (npy_bytes(header("<c16"), bytes(96)), r"unsupported element type '<c16' \(complex\)"),
    "object": (npy_bytes(header("|O"), bytes(48)), r"unsupported element type '\|O' \(Python object\)"),
    "unicode": (npy_bytes(header("<U3"), bytes(72)), r"unsupported element type '<U3' \(unicode string\)"),
    "bytes": (npy_bytes(header("|S3"), bytes(18)), r"unsupported element type '\|S3' \(byte string\)"),
    "datetime": (npy_bytes(header("<M8[ns]"), bytes(48)), r"unsupported element type '<M8\[ns\]' \(datetime64\)"),
    "timedelta": (npy_bytes(header("<m8[s]"), bytes(48)), r"unsupported element type '<m8\[s\]' \(timedelta64\)"),
    "float128": (npy_bytes(header("<f16"), bytes(96)), r"unsupported element type '<f16' \(floating point\)"),
    "int128": (npy_bytes(header("<i16"), bytes(96)), r"unsupported element type '<i16' \(signed integer\)"),
    "void4": (npy_bytes(header("|V4"), bytes(24)), r"unsupported element type '\|V4' \(raw bytes\)"),
    "structured": (npy_bytes(header("[('a', '<f4'), ('b', '<i4')]"), bytes(48)),
                   r"structured \(record\) arrays are not supported"),
    "structured_v3_utf8": (npy_bytes(header("[('\u00e9', '<f4')]").encode("utf-8"), bytes(24),
                                     version=(3, 0)), r"structured"),
    "rank_0": (npy_bytes(header(shape="()"), bytes(4)), r"argmax: invalid rank"),
}

for _name, (_data, _err) in BAD_FILES.items():
    def _bad(ctx, data=_data, err=_err):
        ctx.write("in.npy", data)
        ctx.write("out.npy", b"precious")
        ctx.run("argmax", "in.npy", "out.npy", rc=1, err=r"^clmax: in\.npy: .*" + err)
        with open(ctx.path("out.npy"), "rb") as f:
            assert f.read() == b"precious", "an existing OUT was changed by a failed run"

    case("refused." + _name)(_bad)


@case("refused.missing_input")
def _(ctx):
    ctx.run("argmax", "nothere.npy", "out.npy", rc=1,
            err=r"^clmax: nothere\.npy: cannot open: No such file")
    assert not os.path.exists(ctx.path("out.npy"))


@case("refused.input_is_directory")
def _(ctx):
    os.mkdir(ctx.path("dir.npy"))
    ctx.run("hardmax", "dir.npy", "out.npy", rc=1, err=r"^clmax: dir\.npy: is a directory")


@case("refused.input_not_regular")
def _(ctx):
    if not os.path.exists("/dev/null"):
        raise Skip("no /dev/null")
    ctx.run("argmax", "/dev/null", "out.npy", rc=1, err=r"^clmax: /dev/null: not a regular file")


@case("refused.fuzz")
def _(ctx):
    """Random corruptions of valid files: every run ends with exit 0 or 1, never a signal."""
    import random

    n = np()
    rnd = random.Random(1234)
    seeds = []
    for d, shape in [("<f4", (3, 4)), (">i2", (2, 5)), ("<f8", (7,))]:
        x = sample(d, shape, seed=len(seeds))
        ctx.save("seed.npy", x, fortran=len(shape) > 1 and d[1] == "i")
        with open(ctx.path("seed.npy"), "rb") as f:
            seeds.append(f.read())
    outcomes = {0: 0, 1: 0}
    for i in range(400):
        data = bytearray(rnd.choice(seeds))
        for _ in range(rnd.randint(1, 4)):
            kind = rnd.randrange(4)
            pos = rnd.randrange(len(data))
            if kind == 0:
                data[pos] = rnd.randrange(256)
            elif kind == 1:
                data[pos] = ord(rnd.choice("{}()[],:'\" 0123456789-LTrueFalse<>|fiuVbO\n"))
            elif kind == 2:
                del data[pos:pos + rnd.randint(1, 8)]
            else:
                data[pos:pos] = bytes(rnd.randrange(256) for _ in range(rnd.randint(1, 8)))
        if rnd.random() < 0.2:
            data = data[:rnd.randrange(len(data) + 1)]
        ctx.write("in.npy", bytes(data))
        p = subprocess.run([ctx.exe, "argmax", "in.npy", "out.npy", "--backend=cpu"],
                           cwd=ctx.dir, capture_output=True, timeout=60)
        if p.returncode not in (0, 1):
            keep = ctx.path("crash-%d.npy" % i)
            shutil.copy(ctx.path("in.npy"), keep)
            raise AssertionError("exit %d on %s: %s" % (p.returncode, keep, p.stderr))
        if p.returncode == 1 and not p.stderr.startswith(b"clmax: "):
            raise AssertionError("refusal without a message: %r" % p.stderr)
        if p.returncode == 0:
            n.load(ctx.path("out.npy"))
        outcomes[p.returncode] += 1
        ctx.no_temp_files()
    assert outcomes[0] > 0 and outcomes[1] > 0, outcomes


if __name__ == "__main__":
    sys.exit(main(sys.argv))
