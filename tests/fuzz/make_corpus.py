#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz harnesses (tests/fuzz/corpus/<harness>/).

The files are committed; rerun this only to change them. Valid .npy files come from NumPy
(versions 1.0, 2.0, 3.0; several types, byte orders, Fortran order, empty and rank-0 arrays);
malformed ones are written by hand. The api seeds are byte strings in the layout that
fuzz_api.c decodes.

usage: make_corpus.py [OUTDIR]   (default: the corpus/ folder beside this script)
"""
import io
import os
import struct
import sys

import numpy as np

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus")


def write(harness, name, data):
    d = os.path.join(OUT, harness)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def npy(arr, version=(1, 0)):
    buf = io.BytesIO()
    np.lib.format.write_array(buf, arr, version=version, allow_pickle=False)
    return buf.getvalue()


def handmade(header, data=b"", version=(1, 0), pad_to=64):
    """A .npy file with a literal header dict (padded with spaces and a newline)."""
    h = header.encode("latin1")
    pre = 10 if version[0] == 1 else 12
    total = pre + len(h) + 1
    if pad_to:
        total = (total + pad_to - 1) // pad_to * pad_to
    h = h + b" " * (total - pre - len(h) - 1) + b"\n"
    size = struct.pack("<H", len(h)) if version[0] == 1 else struct.pack("<I", len(h))
    return b"\x93NUMPY" + bytes(version) + size + h + data


rng = np.random.default_rng(6)

# ---- npy: valid -------------------------------------------------------------------------------
x = rng.standard_normal((3, 5)).astype("<f4")
x[1, 2] = np.nan
x[2, :] = 1.0
write("npy", "f4_3x5_v1.npy", npy(x))
write("npy", "f2_7_v2.npy", npy(rng.standard_normal(7).astype("<f2"), (2, 0)))
write("npy", "f8_be_fortran_2x3x4_v3.npy",
      npy(np.asfortranarray(rng.standard_normal((2, 3, 4)).astype(">f8")), (3, 0)))
write("npy", "u1_fortran_4x4.npy", npy(np.asfortranarray(rng.integers(0, 4, (4, 4), dtype="u1"))))
write("npy", "i2_be_3x4.npy", npy(rng.integers(-3, 3, (3, 4)).astype(">i2")))
write("npy", "i8_3x0_empty.npy", npy(np.zeros((3, 0), dtype="<i8")))
write("npy", "u2_6_bf16bits.npy", npy(np.array([0x3F80, 0x7FC0, 0xFF80, 0, 0x8000, 0x4000],
                                               dtype="<u2")))
write("npy", "v2_4_bf16.npy", npy(np.array([0x3F80, 0x7FC0, 0x0001, 0x8000], dtype="<u2")
                                  .view("V2")))
write("npy", "i4_scalar_rank0.npy", npy(np.array(7, dtype="<i4")))
write("npy", "u8_2x3x4.npy", npy(rng.integers(0, 2**64 - 1, (2, 3, 4), dtype="<u8",
                                               endpoint=True)))
write("npy", "i1_2x1x3x1x2.npy", npy(rng.integers(-128, 127, (2, 1, 3, 1, 2), dtype="i1")))
write("npy", "u4_be_fortran_3x2.npy",
      npy(np.asfortranarray(rng.integers(0, 9, (3, 2)).astype(">u4"))))
# Data at an offset that is not a multiple of 8: the reader copies it for alignment.
write("npy", "f8_misaligned.npy",
      handmade("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }",
               struct.pack("<2d", 1.5, -0.0), pad_to=4))
# Python 2 style long dims, double quotes, no trailing comma.
write("npy", "py2_long_dims.npy",
      handmade('{"descr": "<i4", "fortran_order": False, "shape": (2L, 2L)}',
               struct.pack("<4i", 1, 9, 9, 1)))

# ---- npy: malformed ---------------------------------------------------------------------------
good = npy(np.arange(6, dtype="<f4").reshape(2, 3))
write("npy", "bad_truncated_data.npy", good[:-3])
write("npy", "bad_trailing_bytes.npy", good + b"\0\0")
write("npy", "bad_magic.npy", b"\x93NUMPZ" + good[6:])
write("npy", "bad_version_4.npy", good[:6] + b"\x04\x00" + good[8:])
write("npy", "bad_header_len.npy", good[:8] + b"\xff\x7f" + good[10:])
write("npy", "bad_short.npy", good[:9])
write("npy", "bad_unknown_key.npy",
      handmade("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}", b"\0" * 4))
write("npy", "bad_negative_dim.npy",
      handmade("{'descr': '<f4', 'fortran_order': False, 'shape': (-2, 3), }"))
write("npy", "bad_structured.npy",
      handmade("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", b"\0" * 4))
write("npy", "bad_complex.npy",
      handmade("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", b"\0" * 8))
write("npy", "bad_duplicate_key.npy",
      handmade("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,), }",
               b"\0" * 4))
write("npy", "bad_overflow_dims.npy",
      handmade("{'descr': '<f4', 'fortran_order': False, "
               "'shape': (4294967296, 4294967296, 4294967296), }"))
write("npy", "bad_rank17.npy",
      handmade("{'descr': '|u1', 'fortran_order': False, 'shape': (" + "1, " * 17 + "), }",
               b"\0"))
write("npy", "bad_not_tuple.npy",
      handmade("{'descr': '<f4', 'fortran_order': False, 'shape': (4), }", b"\0" * 16))
write("npy", "bad_unterminated.npy", handmade("{'descr': '<f4, 'fortran_order': False"))


# ---- api: byte strings as fuzz_api.c decodes them ---------------------------------------------
# nulls, nulls2, misc, type selector, rank selector, dims..., argmax opset (init), [opset, axis,
# keepdims, select_last unless misc keeps defaults], hardmax opset (init), [opset, axis], fill.
def api(nulls, nulls2, misc, type_sel, rank_sel, dims, rest):
    return bytes([nulls, nulls2, misc, type_sel, rank_sel] + dims + rest)


TYPES = [1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 16]
# misc 0x3F: every attribute keeps its defaults; fill mode 0 (the rest of the input, cycled)
write("api", "f32_2x3_defaults", api(0, 0, 0x3F, 0, 1, [2, 3], [0, 0] + list(range(40))))
# float16 [3,4,5], ArgMax opset 12 axis 1 select_last, Hardmax opset 11 axis 1; pool fill
write("api", "f16_3x4x5_attrs", api(0, 0, 0x80, TYPES.index(10), 2, [3, 4, 5],
                                    [1, 1, 4 + 1, 3, 1, 2, 2, 4 + 1] + list(range(64))))
# bfloat16, special values, ArgMax opset 13 keepdims 0
write("api", "bf16_special", api(0, 0, 0xC0 | 0x01 | 0x10, TYPES.index(16), 1, [4, 5],
                                 [0, 3, 0, 0, 0, 3] + list(range(1, 60, 3))))
# int64 huge dims (overflow), rank 16
write("api", "i64_overflow_rank16", api(0, 0, 0x3F, TYPES.index(7), 10, [234] * 16, [0, 0]))
# NULL context, x and y; a zero dim
write("api", "nulls_empty", api(0xFF, 0xFF, 0x3F, TYPES.index(6), 2, [0, 3, 2], [0, 0]))
# invalid type values, rank 0, rank 17, negative dims
write("api", "bad_type", api(0, 0, 0x3F, 15, 0, [1], [0, 0]))
write("api", "rank0", api(0, 0, 0x3F, 0, 12, [], [0, 0]))
write("api", "rank17", api(0, 0, 0x3F, 0, 14, [1] * 16, [0, 0]))
write("api", "negative_dim", api(0, 0, 0x3F, 0, 1, [216, 3], [0, 0]))
# out-of-range attributes: opset 0, keepdims 2, select_last -1, axis beyond the rank
write("api", "bad_attrs", api(0, 0, 0x00, TYPES.index(11), 1, [3, 3],
                              [0, 8, 200, 8, 9, 13, 8, 250]))
print("corpus written to", OUT)
