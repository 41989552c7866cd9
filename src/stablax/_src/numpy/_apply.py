"""`apply_along_axis` and `apply_over_axes`: NumPy's per-slice helpers, batched with vmap."""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

from stablax._src.lax._argcheck import check_callable, int_or_int_sequence
from stablax._src.numpy._asarray import asarray
from stablax._src.numpy._shape import expand_dims
from stablax._src.transforms.vmap_api import vmap


def apply_along_axis(func1d: Callable, axis: int, arr: Any, *args: Any, **kwargs: Any) -> Any:
    """Applies `func1d` to every 1-d slice of `arr` along `axis`, as one batched program.

    The output's dimensions from `func1d` replace `axis`, as in NumPy.
    """
    check_callable("jnp.apply_along_axis", func1d, "func1d")
    arr = asarray(arr)
    ndim = arr.ndim
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    axis %= ndim

    def on_slice(x):
        return func1d(x, *args, **kwargs)

    # vmap over every other axis, innermost first, so the batch axes keep their order.
    fun = on_slice
    for _ in range(ndim - 1 - axis):
        fun = vmap(fun, in_axes=-1, out_axes=-1)
    for _ in range(axis):
        fun = vmap(fun, in_axes=0, out_axes=0)
    return fun(arr)


def apply_over_axes(func: Callable[[Any, int], Any], a: Any, axes: Sequence[int]) -> Any:
    """Applies `func(a, axis)` for each axis in turn, keeping reduced axes as size 1."""
    a = asarray(a)
    axes = int_or_int_sequence(axes, "axes", "jnp.apply_over_axes")
    if axes:  # as JAX, no axes return `a` without looking at func
        check_callable("jnp.apply_over_axes", func, "func")
    for axis in axes:
        b = func(a, axis)
        if not hasattr(b, "ndim"):
            raise ValueError(
                f"jnp.apply_over_axes: func must return an array, got {type(b).__name__}"
            )
        if b.ndim == a.ndim - 1:
            b = expand_dims(b, axis)
        elif b.ndim != a.ndim:
            raise ValueError("function is not returning an array of the correct shape")
        a = b
    return a


__all__ = ["apply_along_axis", "apply_over_axes"]
