"""Property tests (Hypothesis): random shapes, dtypes, axes, layouts and special values, the
NumPy-style functions against NumPy, bit for bit, on every backend."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import clmax
from helpers import arg_reference, bits, values_at

DTYPES = [np.float16, np.float32, np.float64, np.int8, np.uint8, np.int16, np.uint16, np.int32,
          np.uint32, np.int64, np.uint64, np.bool_]


@st.composite
def cases(draw):
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=7))
    if dtype.kind == "f":  # a few distinct values, so that ties are common, and the specials
        elements = st.sampled_from([0.0, -0.0, 1.0, -1.0, 2.5, np.inf, -np.inf, np.nan])
    else:
        elements = None
    x = draw(hnp.arrays(dtype, shape, elements=elements))
    layout = draw(st.sampled_from(["c", "transposed", "reversed"]))
    if layout == "transposed":
        x = x.T
    elif layout == "reversed" and x.ndim:
        x = x[::-1]
    axis = draw(st.one_of(st.none(), st.integers(-max(x.ndim, 1), max(x.ndim, 1) - 1)))
    return x, axis, draw(st.booleans()), draw(st.booleans()), draw(st.booleans())


def expected(x, axis, keepdims, last, minimum):
    """The reference's answer, or the exception NumPy raises."""
    try:
        return arg_reference(x, axis, keepdims, last, minimum)
    except ValueError as e:
        return e


@pytest.mark.parametrize("backend", ["cpu"] + (["opencl"] if clmax.devices() else []))
def test_against_numpy(backend):
    ctx = clmax.Context(backend)

    @settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
    @given(cases())
    def check(case):
        x, axis, keepdims, last, minimum = case
        want = expected(x, axis, keepdims, last, minimum)
        f = clmax.min_with_indices if minimum else clmax.max_with_indices
        g = clmax.argmin if minimum else clmax.argmax
        if isinstance(want, ValueError):
            for fn in (f, g):
                with pytest.raises(ValueError):
                    fn(x, axis, keepdims=keepdims, select_last_index=last, context=ctx)
            return
        got = g(x, axis, keepdims=keepdims, select_last_index=last, context=ctx)
        assert np.shape(got) == np.shape(want) and np.array_equal(got, want)
        v, i = f(x, axis, keepdims=keepdims, select_last_index=last, context=ctx)
        assert np.array_equal(i, want) and v.dtype == x.dtype
        assert np.array_equal(bits(v), bits(values_at(x, want, axis, keepdims)))

    try:
        check()
    finally:
        ctx.close()
