"""Shared by the package's tests: the backends every answer is checked on.

The tests import clmax from the build tree (ctest sets PYTHONPATH to <build>/python). Each test
that compares answers runs on a CPU-path context and, where an OpenCL device exists, on an
OpenCL one: exactness is checked on every backend, bit for bit."""

import os

import pytest

import clmax

_contexts = {}


def _context(backend):
    if backend not in _contexts:
        _contexts[backend] = clmax.Context(backend)
    return _contexts[backend]


def _backends():
    names = ["cpu"]
    if clmax.devices() and not os.environ.get("CLMAX_EXPECT_NO_OPENCL"):
        names.append("opencl")
    return names


@pytest.fixture(params=_backends())
def ctx(request):
    """A clmax.Context on each backend this machine has."""
    return _context(request.param)
