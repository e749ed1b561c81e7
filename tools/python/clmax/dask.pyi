from typing import Any, Dict, Optional, Tuple, Union

import dask.array as da

def argmax(x: Any, axis: Optional[int] = None, *, keepdims: bool = False,
           select_last_index: bool = False,
           split_every: Union[None, int, Dict[int, int]] = None) -> da.Array: ...
def argmin(x: Any, axis: Optional[int] = None, *, keepdims: bool = False,
           select_last_index: bool = False,
           split_every: Union[None, int, Dict[int, int]] = None) -> da.Array: ...
def max_with_indices(x: Any, axis: Optional[int] = None, *, keepdims: bool = False,
                     select_last_index: bool = False,
                     split_every: Union[None, int, Dict[int, int]] = None
                     ) -> Tuple[da.Array, da.Array]: ...
def min_with_indices(x: Any, axis: Optional[int] = None, *, keepdims: bool = False,
                     select_last_index: bool = False,
                     split_every: Union[None, int, Dict[int, int]] = None
                     ) -> Tuple[da.Array, da.Array]: ...
