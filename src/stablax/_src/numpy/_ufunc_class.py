"""`jnp.ufunc` and `jnp.frompyfunc`: NumPy's ufunc methods for any elementwise Python function.

Calls broadcast through `vectorize`; reductions of arbitrary binary functions are `lax.scan`s.
JAX's 14 built-in ufuncs (`jnp.add`, `jnp.maximum`, ...) are made here from the public functions
by `public_ufunc`, with JAX's identities and fast paths (lax reductions, cumsum, scatters).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from stablax._src import dtypes, lax
from stablax._src.api import eval_shape
from stablax._src.avals import aval_of
from stablax._src.jit import ShapeDtypeStruct
from stablax._src.jit import jit as _eager
from stablax._src.lax._argcheck import check_callable
from stablax._src.numpy import _math_cumulative, _reductions
from stablax._src.numpy._asarray import asarray
from stablax._src.numpy._creation import arange, full
from stablax._src.numpy._promotion import check_arraylike, promote_dtypes_inexact
from stablax._src.numpy._reductions_common import _axes, _finish, _masked, _with_initial
from stablax._src.numpy._shape import (
    broadcast_to,
    concatenate,
    expand_dims,
    moveaxis,
    ravel,
    reshape,
)
from stablax._src.numpy._ufuncs import where as _where

_INPLACE_MESSAGE = (
    "Because JAX arrays are immutable, jnp.ufunc.at() cannot operate inplace like\n"
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
        self.__doc__ = getattr(func, "__doc__", None)
        # Read-only, as JAX's: a ufunc marked static must not change under its hash.
        self.__props = (
            check_callable("jnp.ufunc", func, "func"),
            operator.index(nin),
            operator.index(nout),
            operator.index(nargs if nargs is not None else nin),
            identity,
        )
        self._call = call
        self._reduce = reduce
        self._accumulate = accumulate
        self._at = at
        self._reduceat = reduceat

    _func = property(lambda self: self.__props[0])
    nin = property(lambda self: self.__props[1])
    nout = property(lambda self: self.__props[2])
    nargs = property(lambda self: self.__props[3])
    identity = property(lambda self: self.__props[4])

    def _key(self) -> tuple:
        # The fast paths (call, reduce, ...) are implementation details, not identity (as JAX).
        func, nin, nout, nargs, identity = self.__props
        return (func, self.__name__, identity, nin, nout, nargs)

    def __hash__(self) -> int:
        return hash(self._key())

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, ufunc) and self._key() == other._key()

    def __repr__(self) -> str:
        return f"<jnp.ufunc '{self.__name__}'>"

    def __call__(self, *args: Any, out: None = None, where: None = None) -> Any:
        """Applies the function elementwise, broadcasting its inputs."""
        call = self._call
        if call is not None and out is None and where is None:  # jnp.add(x, y): one extra call
            return call(*args)
        check_arraylike(self.__name__, *args)
        if out is not None:
            raise NotImplementedError(f"out argument of {self}")
        if where is not None:
            raise NotImplementedError(f"where argument of {self}")
        if len(args) != self.nin:
            raise TypeError(f"{self}: expected {self.nin} positional arguments, got {len(args)}")
        from stablax._src.numpy._vectorize import vectorize

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
        check_arraylike(f"{self.__name__}.outer", A, B)
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
        check_arraylike(f"{self.__name__}.reduce", a)
        self._require_binary("reduce")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.reduce()")
        if initial is not None:
            check_arraylike(f"{self.__name__}.reduce", initial)
        if where is not None:
            check_arraylike(f"{self.__name__}.reduce", where)
            if self.identity is None and initial is None:
                raise ValueError(
                    f"reduction operation {self.__name__!r} does not have an identity, so to "
                    "use a where mask one has to specify 'initial'."
                )
            where_dtype = aval_of(asarray(where)).dtype
            if where_dtype != np.bool_:
                raise ValueError(f"where argument must have dtype=bool; got dtype={where_dtype}")
        if self._reduce is not None:
            return self._reduce(
                a, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial, where=where
            )
        a = asarray(a)
        if dtype is not None:
            a = a.astype(dtype)
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
            raise NotImplementedError(f"out argument of {self.__name__}.accumulate()")
        check_arraylike(f"{self.__name__}.accumulate", a)
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
            raise TypeError(f"{self}.at: b is required for binary and not allowed for unary")
        check_arraylike(f"{self.__name__}.at", a, *(() if b is None else (b,)))
        if self._at is not None:
            return self._at(asarray(a), indices, b)
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
            raise NotImplementedError(f"out argument of {self.__name__}.reduceat()")
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


# The fast paths of jax.numpy's own ufuncs: lax reductions, cumsum/cumprod and scatters in place
# of the generic scans.


def _sum_reduce(a, axis=0, dtype=None, keepdims=False, initial=None, where=None):
    return _reductions.sum(a, axis, dtype, None, keepdims, initial, where)


def _prod_reduce(a, axis=0, dtype=None, keepdims=False, initial=None, where=None):
    return _reductions.prod(a, axis, dtype, None, keepdims, initial, where)


def _extremum_reduce(reduce: Callable[..., Any]) -> Callable[..., Any]:
    def fn(a, axis=0, dtype=None, keepdims=False, initial=None, where=None):
        a = asarray(a)
        if dtype is not None:
            a = lax.convert_element_type(a, _user_dtype(dtype, "reduce"))
        return reduce(a, axis, None, keepdims, initial, where)

    return fn


def _user_dtype(dtype: Any, name: str) -> np.dtype:
    return dtypes.canonicalize_dtype(dtypes.check_user_dtype(dtype, name))


def _bitwise_reduce(
    name: str, lax_reduce: Callable, combine: Callable, identity: Any, logical: bool
):
    """A reduction by one lax bitwise reduce: integer (and bool) operands only, or for the
    logical ones any operand, cast to bool first (a complex one by its real part, as JAX)."""

    def fn(a, axis=0, dtype=None, keepdims=False, initial=None, where=None):
        a = asarray(a)
        kind = aval_of(a).dtype.kind
        if logical:
            a = lax.convert_element_type(lax.real(a) if kind == "c" else a, np.bool_)
        elif kind not in "biu":
            raise ValueError(f"integer argument required; got dtype={aval_of(a).dtype}")
        target = aval_of(a).dtype if dtype is None else _user_dtype(dtype, name)
        a = lax.convert_element_type(a, target)
        axes = _axes(axis, a.ndim, name)
        fill = np.array(identity).astype(target)
        out = lax_reduce(_masked(a, where, fill, name), axes)
        out = _with_initial(out, initial, combine, name)
        return _finish(out, a.shape, axes, keepdims)

    return _eager(fn, static_argnames=("axis", "dtype", "keepdims"))


def _logsumexp(base2: bool) -> Callable[..., Any]:
    name = "logaddexp2.reduce" if base2 else "logaddexp.reduce"

    def fn(a, axis=0, dtype=None, keepdims=False, initial=None, where=None):
        from stablax._src.numpy._math_ufuncs import logaddexp

        if dtype is not None:  # checked, then unused, as in JAX
            dtypes.check_user_dtype(dtype, name)
        (a,) = promote_dtypes_inexact(asarray(a))
        if base2:
            a = lax.mul(a, lax.full_like(a, _LN2))
            initial = None if initial is None else initial * _LN2
        axes = _axes(axis, a.ndim, name)
        real = lax.real(a) if aval_of(a).dtype.kind == "c" else a
        top = _reductions.max(real, axes, keepdims=True, initial=-np.inf, where=where)
        top = lax.stop_gradient(_where(lax.is_finite(top), top, lax.full_like(top, 0)))
        shifted = lax.exp(lax.sub(a, lax.convert_element_type(top, aval_of(a).dtype)))
        total = _reductions.sum(shifted, axes, keepdims=True, where=where)
        out = lax.add(lax.log(total), lax.convert_element_type(top, aval_of(total).dtype))
        if not keepdims:
            out = reshape(out, tuple(d for i, d in enumerate(out.shape) if i not in axes))
        if initial is not None:
            out = logaddexp(initial, out)
        return lax.div(out, lax.full_like(out, _LN2)) if base2 else out

    return fn


_LN2 = float(np.log(2))


def _scatter_at(method: str, via_int32: bool = False) -> Callable[..., Any]:
    # a[indices] op= b as one scatter; bools go through int32 and back, as JAX.
    def fn(a, indices, b):
        if via_int32 and aval_of(a).dtype == np.bool_:
            b = lax.convert_element_type(lax.convert_element_type(asarray(b), np.bool_), np.int32)
            a = lax.convert_element_type(a, np.int32)
            out = getattr(a.at[indices], method)(b)
            return lax.convert_element_type(out, np.bool_)
        return getattr(a.at[indices], method)(b)

    return fn


def _cumulative(name: str) -> Callable[..., Any]:
    def fn(a, axis=0, dtype=None):
        return getattr(_math_cumulative, name)(a, axis=axis, dtype=dtype)

    return fn


# name -> (nin, identity, fast paths): JAX 0.10.2's ufuncs in jax.numpy; the rest are functions.
PUBLIC_UFUNCS: dict[str, tuple[int, Any, dict[str, Callable[..., Any]]]] = {
    "add": (
        2,
        0,
        {
            "reduce": _sum_reduce,
            "accumulate": _cumulative("cumsum"),
            "at": _scatter_at("add", True),
        },
    ),
    "multiply": (
        2,
        1,
        {
            "reduce": _prod_reduce,
            "accumulate": _cumulative("cumprod"),
            "at": _scatter_at("multiply", True),
        },
    ),
    "subtract": (2, None, {"at": _scatter_at("subtract")}),
    "maximum": (2, None, {"reduce": _extremum_reduce(_reductions.max)}),
    "minimum": (2, None, {"reduce": _extremum_reduce(_reductions.min)}),
    "bitwise_and": (
        2,
        -1,
        {
            "reduce": _bitwise_reduce(
                "bitwise_and.reduce", lax.reduce_and, lax.bitwise_and, -1, False
            )
        },
    ),
    "bitwise_or": (
        2,
        0,
        {"reduce": _bitwise_reduce("bitwise_or.reduce", lax.reduce_or, lax.bitwise_or, 0, False)},
    ),
    "bitwise_xor": (
        2,
        0,
        {
            "reduce": _bitwise_reduce(
                "bitwise_xor.reduce", lax.reduce_xor, lax.bitwise_xor, 0, False
            )
        },
    ),
    "logical_and": (
        2,
        True,
        {
            "reduce": _bitwise_reduce(
                "logical_and.reduce", lax.reduce_and, lax.bitwise_and, True, True
            )
        },
    ),
    "logical_or": (
        2,
        False,
        {
            "reduce": _bitwise_reduce(
                "logical_or.reduce", lax.reduce_or, lax.bitwise_or, False, True
            )
        },
    ),
    "logical_xor": (
        2,
        False,
        {
            "reduce": _bitwise_reduce(
                "logical_xor.reduce", lax.reduce_xor, lax.bitwise_xor, False, True
            )
        },
    ),
    "logaddexp": (2, -np.inf, {"reduce": _logsumexp(False)}),
    "logaddexp2": (2, -np.inf, {"reduce": _logsumexp(True)}),
    "negative": (1, None, {}),
}


def public_ufunc(name: str, func: Callable[..., Any]) -> ufunc:
    """`jnp.<name>` as JAX has it: a ufunc whose call is the public function `func` itself."""
    nin, identity, fast = PUBLIC_UFUNCS[name]
    return ufunc(func, nin, 1, name=name, identity=identity, call=func, **fast)


__all__ = ["frompyfunc", "ufunc"]
