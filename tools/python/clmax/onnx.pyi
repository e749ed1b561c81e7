from typing import Any, Optional

import numpy.typing as npt

from . import Context

def argmax(x: npt.ArrayLike, axis: int = 0, keepdims: int = 1, select_last_index: int = 0,
           opset: int = 13, *, context: Optional[Context] = None) -> Any: ...
def argmin(x: npt.ArrayLike, axis: int = 0, keepdims: int = 1, select_last_index: int = 0,
           opset: int = 13, *, context: Optional[Context] = None) -> Any: ...
def hardmax(x: npt.ArrayLike, axis: Optional[int] = None, opset: int = 13, *,
            context: Optional[Context] = None) -> Any: ...
