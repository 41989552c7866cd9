"""`jnp.ufunc` and `jnp.frompyfunc`: NumPy's ufunc methods for any elementwise Python function.

Calls broadcast through `vectorize`; reductions of arbitrary binary functions are `lax.scan`s.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np
from stablax._src import lax
from stablax._src.api import eval_shape
from stablax._src.jit import ShapeDtypeStruct
from stablax._src.lax._argcheck import check_callable
from stablax._src.lax._shapes import aval_of
from stablax._src.numpy._creation import arange, asarray, full
from stablax._src.numpy._reductions import _axes
from stablax._src.numpy._shape import (
    broadcast_to,
    concatenate,
    expand_dims,
    moveaxis,
    ravel,
    reshape,
)
from stablax._src.numpy._ufuncs import where as _where
from stablax._src.numpy._vectorize import vectorize

_INPLACE_MESSAGE = (
    "Because JAX arrays are immutable, jnp.ufunc.at() cannot operate inplace like "
    "np.ufunc.at(). Instead, you can pass inplace=False and capture the result; e.g.\n"
    ">>> arr = jnp.add.at(arr, ind, val, inplace=False)\n"
)


class ufunc:  # noqa: N801 - the public name is NumPy's
    """A universal function: an elementwise function with NumPy's ufunc methods.

    Args:
      func: the elementwise function, called on scalars (0-d arrays).
      nin: the number of inputs.
      nout: the number of outputs.
      name: the name shown in errors and `repr` (default: `func.__name__`).
      nargs: the number of arguments (default: `nin`).
      identity: the value `reduce` starts from on empty or masked reductions.
      call, reduce, accumulate, at, reduceat: optional faster implementations of the methods,
        called with the same arguments in place of the generic ones.
    """

    def __init__(
        self,
        func: Callable[..., Any],
        /,
        nin: int,
        nout: int,
        *,
        name: str | None = None,
        nargs: int | None = None,
        identity: Any = None,
        call: Callable[..., Any] | None = None,
        reduce: Callable[..., Any] | None = None,
        accumulate: Callable[..., Any] | None = None,
        at: Callable[..., Any] | None = None,
        reduceat: Callable[..., Any] | None = None,
    ) -> None:
        self.__name__ = name if name is not None else getattr(func, "__name__", repr(func))
        self._func = check_callable("jnp.ufunc", func, "func")
        self.nin = operator.index(nin)
        self.nout = operator.index(nout)
        self.nargs = operator.index(nargs if nargs is not None else nin)
        self.identity = identity
        self._call = call
        self._reduce = reduce
        self._accumulate = accumulate
        self._at = at
        self._reduceat = reduceat

    def __repr__(self) -> str:
        return f"<jnp.ufunc '{self.__name__}'>"

    def __call__(self, *args: Any, out: None = None, where: None = None) -> Any:
        """Applies the function elementwise, broadcasting its inputs."""
        if out is not None:
            raise NotImplementedError(f"out argument of {self}")
        if where is not None:
            raise NotImplementedError(f"where argument of {self}")
        if len(args) != self.nin:
            raise TypeError(f"{self}: expected {self.nin} positional arguments, got {len(args)}")
        if self._call is not None:
            return self._call(*args)
        return vectorize(self._func)(*args)

    def _require_binary(self, method: str) -> None:
        if self.nin != 2 or self.nout != 1:
            raise ValueError(f"{method} only supported for binary ufuncs")

    def _result_dtype(self, *operands: Any) -> np.dtype:
        # The dtype `func` returns on elements of these operands; scan carries keep it fixed.
        specs = [ShapeDtypeStruct((), x.dtype, weak_type=aval_of(x).weak_type) for x in operands]
        return np.dtype(eval_shape(self._func, *specs).dtype)

    def _combine(self, x: Any, y: Any, dtype: np.dtype) -> Any:
        return lax.convert_element_type(self(x, y), dtype)

    def outer(self, A: Any, B: Any, /) -> Any:  # noqa: N803 - NumPy's argument names
        """`func(a, b)` for every pair of elements: the result has shape `A.shape + B.shape`."""
        self._require_binary("outer")
        A, B = asarray(A), asarray(B)  # noqa: N806
        return self(reshape(A, A.shape + (1,) * B.ndim), B)

    def reduce(
        self,
        a: Any,
        axis: Any = 0,
        dtype: Any = None,
        out: None = None,
        keepdims: bool = False,
        initial: Any = None,
        where: Any = None,
    ) -> Any:
        """Folds `func` left to right along `axis` (an int, a tuple, or None for all axes).

        Masked-out elements (`where=False`) are skipped; the fold then starts from `initial`,
        or from `identity` when no initial is given.
        """
        self._require_binary("reduce")
        if out is not None:
            raise NotImplementedError(f"out argument of {self}")
        if self._reduce is not None:
            return self._reduce(
                a, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial, where=where
            )
        a = asarray(a)
        if dtype is not None:
            a = a.astype(dtype)
        if where is not None and initial is None and self.identity is None:
            raise ValueError(
                f"reduction operation {self.__name__!r} does not have an identity, so to use a "
                "where mask one has to specify 'initial'."
            )
        axes = _axes(axis, a.ndim, "ufunc.reduce")
        rest_shape = tuple(d for i, d in enumerate(a.shape) if i not in axes)
        # The reduced axes go first (in C order, as NumPy folds them) and flatten to one.
        stacked = reshape(moveaxis(a, axes, tuple(range(len(axes)))), (-1, *rest_shape))
        out_dtype = self._result_dtype(a, a)
        start = initial if initial is not None else self.identity

        if where is None and initial is None:
            if stacked.shape[0] == 0:
                if self.identity is None:
                    raise ValueError(
                        f"zero-size array to reduction operation {self.__name__} which has no "
                        "identity"
                    )
                result = full(rest_shape, self.identity, out_dtype)
            else:
                first = lax.convert_element_type(stacked[0], out_dtype)

                def fold(acc, x):
                    return self._combine(acc, x, out_dtype), None

                result, _ = lax.scan(fold, first, stacked[1:])
        else:
            mask = broadcast_to(True if where is None else asarray(where, bool), a.shape)
            mask = reshape(moveaxis(mask, axes, tuple(range(len(axes)))), stacked.shape)

            def masked_fold(acc, x_and_keep):
                x, keep = x_and_keep
                return _where(keep, self._combine(acc, x, out_dtype), acc), None

            result, _ = lax.scan(masked_fold, full(rest_shape, start, out_dtype), (stacked, mask))
        if keepdims:
            result = expand_dims(result, axes)
        return result

    def accumulate(self, a: Any, axis: int = 0, dtype: Any = None, out: None = None) -> Any:
        """The running fold of `func` along `axis`: element i is `reduce` of elements 0..i."""
        self._require_binary("accumulate")
        if out is not None:
            raise NotImplementedError(f"out argument of {self}")
        if self._accumulate is not None:
            return self._accumulate(a, axis=axis, dtype=dtype)
        if axis is None or isinstance(axis, (tuple, list)):
            raise ValueError("accumulate does not allow multiple axes")
        a = asarray(a)
        if dtype is not None:
            a = a.astype(dtype)
        (axis,) = _axes(axis, a.ndim, "ufunc.accumulate")
        out_dtype = self._result_dtype(a, a)
        moved = lax.convert_element_type(moveaxis(a, axis, 0), out_dtype)
        if moved.shape[0] == 0:
            return moveaxis(moved, 0, axis)

        def step(acc, x):
            acc = self._combine(acc, x, out_dtype)
            return acc, acc

        _, rest = lax.scan(step, moved[0], moved[1:])
        return moveaxis(concatenate([moved[:1], rest]), 0, axis)

    def at(self, a: Any, indices: Any, b: Any = None, /, *, inplace: bool = True) -> Any:
        """Applies `func` unbuffered at `indices`: a repeated index is updated once per repeat.

        `a[i] = func(a[i], b)` (or `func(a[i])` for unary ufuncs) for each selected element in
        turn, as `numpy.ufunc.at`. JAX arrays are immutable, so `inplace=False` is required
        and the updated array is returned.
        """
        if inplace:
            raise NotImplementedError(_INPLACE_MESSAGE)
        if self.nout != 1 or self.nin not in (1, 2):
            raise ValueError("at only supported for unary and binary single-output ufuncs")
        if (self.nin == 2) != (b is not None):
            raise ValueError(f"{self}.at: b is required for binary and not allowed for unary")
        if self._at is not None:
            return self._at(a, indices, b)
        a = asarray(a)
        # Each selected element's flat position, so any NumPy-style index (ints, slices,
        # integer arrays, tuples of them) reduces to one scan over positions.
        positions = arange(a.size).reshape(a.shape)[indices]
        operands = (a,) if b is None else (a, asarray(b))
        out_dtype = self._result_dtype(*operands)
        xs = [ravel(positions)]
        if b is not None:
            xs.append(ravel(broadcast_to(operands[1], positions.shape)))

        def update(flat, pos_and_value):
            current = lax.dynamic_index_in_dim(flat, pos_and_value[0], keepdims=False)
            new = self._func(current, *pos_and_value[1:])
            return lax.dynamic_update_index_in_dim(
                flat, new.astype(out_dtype), pos_and_value[0], 0
            ), None

        flat = lax.convert_element_type(ravel(a), out_dtype)
        flat, _ = lax.scan(update, flat, tuple(xs))
        return reshape(flat, a.shape)

    def reduceat(
        self, a: Any, indices: Any, axis: int = 0, dtype: Any = None, out: None = None
    ) -> Any:
        """`reduce` over the slices `a[indices[i]:indices[i+1]]` along `axis`, as NumPy.

        Where `indices[i] >= indices[i+1]` the result is `a[indices[i]]`; the last slice runs
        to the end of the axis.
        """
        self._require_binary("reduceat")
        if out is not None:
            raise NotImplementedError(f"out argument of {self}")
        if self._reduceat is not None:
            return self._reduceat(a, indices, axis=axis, dtype=dtype)
        a = asarray(a)
        if dtype is not None:
            a = a.astype(dtype)
        indices = asarray(indices)
        if indices.ndim != 1 or indices.dtype.kind not in "iu":
            raise ValueError(f"{self}.reduceat: indices must be a 1-d integer array")
        (axis,) = _axes(axis, a.ndim, "ufunc.reduceat")
        out_dtype = self._result_dtype(a, a)
        moved = lax.convert_element_type(moveaxis(a, axis, 0), out_dtype)
        length = moved.shape[0]
        starts = indices.astype(np.int32)
        ends = concatenate([starts[1:], asarray([length], np.int32)])
        ends = _where(ends > starts, ends, starts + 1)
        trailing = (1,) * (moved.ndim - 1)
        starts_b, ends_b = reshape(starts, (-1, *trailing)), reshape(ends, (-1, *trailing))

        # Every segment is folded at once: step p joins element p into segments it lies inside.
        def fold(acc, p_and_x):
            p, x = p_and_x
            inside = (p > starts_b) & (p < ends_b)
            return _where(inside, self._combine(acc, x[None], out_dtype), acc), None

        steps = (arange(length, dtype=np.int32), moved)
        result, _ = lax.scan(fold, moved[starts], steps)
        return moveaxis(result, 0, axis)


def frompyfunc(func: Callable[..., Any], /, nin: int, nout: int, *, identity: Any = None) -> ufunc:
    """Wraps an elementwise Python function as a `jnp.ufunc`, as `numpy.frompyfunc`.

    Args:
      func: the function, written for scalars; it is traced once and vectorized.
      nin: the number of inputs.
      nout: the number of outputs.
      identity: the value a reduction starts from when it has no elements (optional).

    Returns:
      A `ufunc` with `__call__`, `outer`, `reduce`, `accumulate`, `at` and `reduceat`.

    Example:
      >>> add = jnp.frompyfunc(lambda a, b: a + b, 2, 1, identity=0)
      >>> add.accumulate(jnp.arange(4))
      Array([0, 1, 3, 6], dtype=int32)
    """
    return ufunc(func, nin, nout, identity=identity)


__all__ = ["frompyfunc", "ufunc"]
