from typing import Any, Dict, Optional, Tuple, Union

import dask.array as da

_SplitEvery = Union[None, int, Dict[int, int]]
_Device = Union[None, int, str]

def argmax(x: Any, axis: Optional[int] = None, *, keepdims: bool = False,
           select_last_index: bool = False, split_every: _SplitEvery = None,
           backend: str = "auto", device: _Device = None, num_threads: int = 0) -> da.Array: ...
def argmin(x: Any, axis: Optional[int] = None, *, keepdims: bool = False,
           select_last_index: bool = False, split_every: _SplitEvery = None,
           backend: str = "auto", device: _Device = None, num_threads: int = 0) -> da.Array: ...
def max_with_indices(x: Any, axis: Optional[int] = None, *, keepdims: bool = False,
                     select_last_index: bool = False, split_every: _SplitEvery = None,
                     backend: str = "auto", device: _Device = None, num_threads: int = 0
                     ) -> Tuple[da.Array, da.Array]: ...
def min_with_indices(x: Any, axis: Optional[int] = None, *, keepdims: bool = False,
                     select_last_index: bool = False, split_every: _SplitEvery = None,
                     backend: str = "auto", device: _Device = None, num_threads: int = 0
                     ) -> Tuple[da.Array, da.Array]: ...
