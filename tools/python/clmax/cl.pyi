from typing import Any, Optional, Sequence, Tuple, Union

import numpy.typing as npt
import pyopencl as cl
import pyopencl.array as cla

from . import Context

_Input = Union[cla.Array, cl.MemoryObjectHolder]
_Shape = Union[int, Sequence[int]]

def context(queue: cl.CommandQueue) -> Context: ...
def release(queue: cl.CommandQueue) -> None: ...

def argmax(queue: Optional[cl.CommandQueue], x: _Input, axis: int = 0, keepdims: bool = True,
           select_last_index: bool = False, *, index_dtype: npt.DTypeLike = ...,
           wait_for: Optional[Sequence[cl.Event]] = None, shape: Optional[_Shape] = None,
           dtype: npt.DTypeLike = None, offset: int = 0) -> cla.Array: ...
def argmin(queue: Optional[cl.CommandQueue], x: _Input, axis: int = 0, keepdims: bool = True,
           select_last_index: bool = False, *, index_dtype: npt.DTypeLike = ...,
           wait_for: Optional[Sequence[cl.Event]] = None, shape: Optional[_Shape] = None,
           dtype: npt.DTypeLike = None, offset: int = 0) -> cla.Array: ...
def max_with_indices(queue: Optional[cl.CommandQueue], x: _Input, axis: int = 0,
                     keepdims: bool = True, select_last_index: bool = False, *,
                     index_dtype: npt.DTypeLike = ...,
                     wait_for: Optional[Sequence[cl.Event]] = None,
                     shape: Optional[_Shape] = None, dtype: npt.DTypeLike = None,
                     offset: int = 0) -> Tuple[cla.Array, cla.Array]: ...
def min_with_indices(queue: Optional[cl.CommandQueue], x: _Input, axis: int = 0,
                     keepdims: bool = True, select_last_index: bool = False, *,
                     index_dtype: npt.DTypeLike = ...,
                     wait_for: Optional[Sequence[cl.Event]] = None,
                     shape: Optional[_Shape] = None, dtype: npt.DTypeLike = None,
                     offset: int = 0) -> Tuple[cla.Array, cla.Array]: ...
def hardmax(queue: Optional[cl.CommandQueue], x: _Input, axis: int = -1, *, opset: int = 13,
            wait_for: Optional[Sequence[cl.Event]] = None, shape: Optional[_Shape] = None,
            dtype: npt.DTypeLike = None, offset: int = 0) -> cla.Array: ...
