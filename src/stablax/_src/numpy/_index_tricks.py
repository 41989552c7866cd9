"""NumPy's index tricks: `mgrid`, `ogrid`, `r_`, `c_`, and `s_`/`index_exp` (NumPy's own).

Slices inside the brackets mean `arange(start, stop, step)`, or `linspace(start, stop, n)` when
the step is an imaginary number `nj`, as in NumPy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax._src import dtypes
from stablax._src.numpy import _shape
from stablax._src.numpy._asarray import asarray
from stablax._src.numpy._creation import arange, linspace
from stablax._src.numpy._shape import concatenate

# Index expressions are plain Python tuples: NumPy's helpers are exactly right.
index_exp = np.index_exp
s_ = np.s_


def _slice_values(s: slice) -> Any:
    start = 0 if s.start is None else s.start
    step = 1 if s.step is None else s.step
    if isinstance(step, complex) or np.iscomplexobj(step):
        return linspace(start, s.stop, int(abs(step)))
    return arange(start, s.stop, step)


class _Grid:
    """`mgrid` (dense) and `ogrid` (open): `grid[0:3, 0:2]` enumerates the index space."""

    def __init__(self, sparse: bool) -> None:
        self.sparse = sparse

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, slice):
            return _slice_values(key)
        axes = [_slice_values(k) for k in key]
        if not axes:
            return [] if self.sparse else asarray(np.zeros((0,), np.int32))
        dtype = dtypes.result_type(*axes)
        axes = [asarray(a, dtype=dtype) for a in axes]
        n = len(axes)
        shapes = [[len(a) if i == j else 1 for j in range(n)] for i, a in enumerate(axes)]
        opened = [_shape.reshape(a, s) for a, s in zip(axes, shapes, strict=True)]
        if self.sparse:
            return opened
        full = tuple(len(a) for a in axes)
        return _shape.stack([_shape.broadcast_to(a, full) for a in opened])


mgrid = _Grid(sparse=False)
ogrid = _Grid(sparse=True)


class _Concatenator:
    """`r_` and `c_`: concatenation along an axis, with NumPy's "axis,ndmin,trans1d" directive."""

    def __init__(self, axis: int, ndmin: int, trans1d: int) -> None:
        self.defaults = (axis, ndmin, trans1d)

    def __getitem__(self, key: Any) -> Any:
        key = key if isinstance(key, tuple) else (key,)
        axis, ndmin, trans1d = self.defaults
        pieces = []
        for i, item in enumerate(key):
            if isinstance(item, str):
                if i != 0:
                    raise ValueError("string directive must be placed at the beginning")
                if item in ("r", "c"):
                    raise NotImplementedError("matrix directives 'r' and 'c' are not supported")
                parts = [int(p) for p in item.split(",")]
                axis = parts[0]
                ndmin = parts[1] if len(parts) > 1 else ndmin
                trans1d = parts[2] if len(parts) > 2 else trans1d
                continue
            piece = _slice_values(item) if isinstance(item, slice) else asarray(item)
            pieces.append(_at_least(piece, ndmin, trans1d))
        if not pieces:
            return asarray(np.zeros((0,), np.float32))
        return concatenate(pieces, axis=axis)


def _at_least(piece: Any, ndmin: int, trans1d: int) -> Any:
    """NumPy's rule: leading 1s up to `ndmin`, then the original axes moved to `trans1d`."""
    ndim = piece.aval.ndim
    if ndim >= ndmin:
        return piece
    piece = _shape.reshape(piece, (1,) * (ndmin - ndim) + piece.aval.shape)
    if trans1d == -1:
        return piece
    k1, k2 = trans1d, ndmin - ndim
    if k1 < 0:
        k1 += k2 + 1
    axes = list(range(ndmin))
    return _shape.transpose(piece, axes[:k1] + axes[k2:] + axes[k1:k2])


r_ = _Concatenator(0, 1, -1)
c_ = _Concatenator(-1, 2, 0)
