"""Splitting arrays and raising their rank: split/array_split/[hvd]split, unstack, atleast_*d."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from stablax._src import ir as mlir
from stablax._src import lax
from stablax._src.core import Tracer
from stablax._src.lax._argcheck import axis_arg
from stablax._src.numpy._asarray import asarray


def _split_points(sections: Any, size: int, name: str, *, equal: bool) -> list[int]:
    if isinstance(sections, Tracer):
        raise TypeError(f"{name}: indices_or_sections must be concrete, not traced")
    if np.ndim(sections) == 0:
        n = np.asarray(sections).item() if hasattr(sections, "shape") else sections
        if isinstance(n, (float, np.floating)) and np.isfinite(n):
            n = int(n)  # as JAX's (and NumPy's) int(): 1.5 sections are 1
        if not hasattr(n, "__index__"):  # NumPy's and JAX's int() would read '2' as 2
            raise TypeError(
                f"{name}: indices_or_sections must be an integer or a sequence of integers, got "
                f"{sections!r}{mlir.where_suffix()}"
            )
        n = operator.index(n)
        if n <= 0:
            raise ValueError(f"{name}: number of sections must be larger than 0, got {n}")
        if equal and size % n:
            raise ValueError(
                f"{name}: array split does not result in an equal division: an axis of size "
                f"{size} cannot be split into {n} sections{mlir.where_suffix()}"
            )
        # NumPy's array_split: the first size % n pieces get one extra element.
        quotient, extra = divmod(size, n)
        sizes = [quotient + 1] * extra + [quotient] * (n - extra)
        return list(np.cumsum([0, *sizes]))
    points = [operator.index(i) for i in np.asarray(sections).tolist()]
    return [0, *points, size]


def _split(ary: Any, indices_or_sections: Any, axis: int, name: str, equal: bool) -> list[Any]:
    ary = asarray(ary)
    shape = ary.aval.shape
    axis = axis_arg(axis, len(shape), name)
    size = shape[axis]
    points = _split_points(indices_or_sections, size, name, equal=equal)
    out = []
    for start, stop in zip(points[:-1], points[1:], strict=True):
        # NumPy clips out-of-range points and yields empty pieces for decreasing ones.
        start = min(max(start if start >= 0 else start + size, 0), size)
        stop = min(max(stop if stop >= 0 else stop + size, 0), size)
        stop = max(start, stop)
        out.append(lax.slice_in_dim(ary, start, stop, axis=axis))
    return out


def split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list[Any]:
    """Splits into equal sections, or at the given indices, along `axis` (`np.split`)."""
    return _split(ary, indices_or_sections, axis, "jnp.split", equal=True)


def array_split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list[Any]:
    """Like `split`, but an integer count need not divide the axis (`np.array_split`)."""
    return _split(ary, indices_or_sections, axis, "jnp.array_split", equal=False)


def hsplit(ary: Any, indices_or_sections: Any) -> list[Any]:
    """Splits along axis 1 (axis 0 for 1-D arrays)."""
    ary = asarray(ary)
    if ary.aval.ndim == 0:
        raise ValueError("jnp.hsplit only works on arrays of 1 or more dimensions")
    axis = 0 if ary.aval.ndim == 1 else 1
    return _split(ary, indices_or_sections, axis, "jnp.hsplit", equal=True)


def vsplit(ary: Any, indices_or_sections: Any) -> list[Any]:
    """Splits along axis 0 of an array of 2 or more dimensions."""
    ary = asarray(ary)
    if ary.aval.ndim < 2:
        raise ValueError("jnp.vsplit only works on arrays of 2 or more dimensions")
    return _split(ary, indices_or_sections, 0, "jnp.vsplit", equal=True)


def dsplit(ary: Any, indices_or_sections: Any) -> list[Any]:
    """Splits along axis 2 of an array of 3 or more dimensions."""
    ary = asarray(ary)
    if ary.aval.ndim < 3:
        raise ValueError("jnp.dsplit only works on arrays of 3 or more dimensions")
    return _split(ary, indices_or_sections, 2, "jnp.dsplit", equal=True)


def unstack(x: Any, /, *, axis: int = 0) -> tuple[Any, ...]:
    """The slices of `x` along `axis`, as a tuple (Array API `unstack`)."""
    x = asarray(x)
    if x.aval.ndim == 0:
        raise ValueError("jnp.unstack: unstack requires an input with at least one dimension")
    axis = axis_arg(axis, x.aval.ndim, "jnp.unstack")
    return tuple(lax.index_in_dim(x, i, axis, keepdims=False) for i in range(x.aval.shape[axis]))


def _atleast(arys: tuple, ndim: int) -> Any:
    out = []
    for a in arys:
        a = asarray(a)
        shape = a.aval.shape
        if len(shape) < ndim:
            if ndim == 3 and len(shape) == 1:
                shape = (1, shape[0], 1)  # NumPy puts a 1-D array in the middle
            elif ndim == 3 and len(shape) == 2:
                shape = (*shape, 1)
            else:
                shape = (1,) * (ndim - len(shape)) + shape
            a = lax.reshape(a, shape)
        out.append(a)
    return out[0] if len(out) == 1 else out


def atleast_1d(*arys: Any) -> Any:
    """Views of the inputs with at least one dimension (a list when there are several)."""
    return _atleast(arys, 1)


def atleast_2d(*arys: Any) -> Any:
    """Views of the inputs with at least two dimensions (a 1-D array becomes a row)."""
    return _atleast(arys, 2)


def atleast_3d(*arys: Any) -> Any:
    """Views with at least three dimensions: (N,) becomes (1, N, 1), (M, N) becomes (M, N, 1)."""
    return _atleast(arys, 3)
