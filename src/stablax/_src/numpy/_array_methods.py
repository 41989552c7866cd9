"""Operators and NumPy-style methods shared by `Array` and `Tracer`, attached at import time."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax._src import api, dtypes, lax
from stablax._src.array import Array
from stablax._src.core import Tracer
from stablax._src.numpy import (
    _array_api,
    _at,
    _creation,
    _indexing_gather,
    _linalg_basic,
    _math_cumulative,
    _reductions,
    _shape,
    _shape_diag,
    _shape_rearrange,
    _sorting,
    _ufuncs,
)
from stablax._src.numpy import _ufuncs_division as division

_OPERAND_TYPES = (Array, Tracer, np.ndarray, np.generic, bool, int, float, complex)


def _binary_operator(fn, reflected: bool = False):
    def method(self, other):
        if not isinstance(other, _OPERAND_TYPES) and not hasattr(other, "__jax_array__"):
            if isinstance(other, (list, tuple)):
                raise TypeError(
                    f"unsupported operand type(s) for {fn.__name__}: stablax array and "
                    f"{type(other).__name__} (convert it with jnp.asarray first)"
                )
            return NotImplemented
        return fn(other, self) if reflected else fn(self, other)

    return method


def _reduction_method(fn):
    # NumPy's np.sum(x) etc. call x.sum(axis=..., out=None, ...): accept out=None only.
    def method(self, axis=None, *args, out=None, **kwargs):
        if out is not None:
            raise NotImplementedError(
                f"The 'out' argument to {fn.__name__} is not supported: stablax arrays are "
                "immutable."
            )
        if args:  # NumPy's positional order after axis is (dtype, out, ...) for sum-like ones
            kwargs.setdefault("dtype", args[0])
        return fn(self, axis=axis, **kwargs)

    method.__name__ = fn.__name__
    return method


def _astype(self, dtype, copy=False, device=None):
    return _array_api.astype(self, dtype, copy=copy, device=device)


def _reshape(self, *shape, order="C"):
    if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
        shape = shape[0]
    return _shape.reshape(self, shape, order)


def _round_builtin(self, ndigits=None):
    # Python's round(x) gives an integer, round(x, n) keeps the dtype (as JAX's Array does).
    if ndigits is None:
        return lax.convert_element_type(_ufuncs.round(self), dtypes.default_int_dtype())
    return _ufuncs.round(self, ndigits)


def _transpose(self, *axes):
    if len(axes) == 1 and (axes[0] is None or not isinstance(axes[0], (int, np.integer))):
        axes = axes[0]
    return _shape.transpose(self, axes if axes else None)


_METHODS: dict[str, Any] = {
    "__add__": _binary_operator(_ufuncs.add),
    "__radd__": _binary_operator(_ufuncs.add, True),
    "__sub__": _binary_operator(_ufuncs.subtract),
    "__rsub__": _binary_operator(_ufuncs.subtract, True),
    "__mul__": _binary_operator(_ufuncs.multiply),
    "__rmul__": _binary_operator(_ufuncs.multiply, True),
    "__truediv__": _binary_operator(division.true_divide),
    "__rtruediv__": _binary_operator(division.true_divide, True),
    "__floordiv__": _binary_operator(division.floor_divide),
    "__rfloordiv__": _binary_operator(division.floor_divide, True),
    "__mod__": _binary_operator(division.remainder),
    "__rmod__": _binary_operator(division.remainder, True),
    "__divmod__": _binary_operator(division.divmod),
    "__rdivmod__": _binary_operator(division.divmod, True),
    "__pow__": _binary_operator(division.power),
    "__rpow__": _binary_operator(division.power, True),
    "__matmul__": _binary_operator(_linalg_basic.matmul),
    "__rmatmul__": _binary_operator(_linalg_basic.matmul, True),
    "__and__": _binary_operator(_ufuncs.bitwise_and),
    "__rand__": _binary_operator(_ufuncs.bitwise_and, True),
    "__or__": _binary_operator(_ufuncs.bitwise_or),
    "__ror__": _binary_operator(_ufuncs.bitwise_or, True),
    "__xor__": _binary_operator(_ufuncs.bitwise_xor),
    "__rxor__": _binary_operator(_ufuncs.bitwise_xor, True),
    "__lshift__": _binary_operator(_ufuncs.left_shift),
    "__rlshift__": _binary_operator(_ufuncs.left_shift, True),
    "__rshift__": _binary_operator(_ufuncs.right_shift),
    "__rrshift__": _binary_operator(_ufuncs.right_shift, True),
    "__eq__": _binary_operator(_ufuncs.equal),
    "__ne__": _binary_operator(_ufuncs.not_equal),
    "__lt__": _binary_operator(_ufuncs.less),
    "__le__": _binary_operator(_ufuncs.less_equal),
    "__gt__": _binary_operator(_ufuncs.greater),
    "__ge__": _binary_operator(_ufuncs.greater_equal),
    "__neg__": lambda self: _ufuncs.negative(self),
    "__pos__": lambda self: _ufuncs.positive(self),
    "__abs__": lambda self: _ufuncs.absolute(self),
    "__invert__": lambda self: _ufuncs.invert(self),
    "__round__": _round_builtin,
    "__getitem__": _indexing_gather.getitem,
    "at": property(_at.at_property),
    "T": property(lambda self: _shape.transpose(self)),
    "mT": property(lambda self: _shape.matrix_transpose(self)),
    "real": property(lambda self: _ufuncs.real(self)),
    "imag": property(lambda self: _ufuncs.imag(self)),
    "astype": _astype,
    "reshape": _reshape,
    "transpose": _transpose,
    "ravel": lambda self, order="C": _shape.ravel(self, order),
    "flatten": lambda self, order="C": _shape.ravel(self, order),
    "squeeze": lambda self, axis=None: _shape.squeeze(self, axis),
    "swapaxes": lambda self, a, b: _shape.swapaxes(self, a, b),
    **{
        name: _reduction_method(getattr(_reductions, name))
        for name in ("sum", "prod", "max", "min", "mean", "var", "std", "any", "all")
    },
    "clip": lambda self, min=None, max=None: _ufuncs.clip(self, min, max),  # noqa: A006
    "round": lambda self, decimals=0: _ufuncs.round(self, decimals),
    "copy": lambda self: _creation.copy(self),
    "conj": lambda self: _ufuncs.conjugate(self),
    "conjugate": lambda self: _ufuncs.conjugate(self),
    "dot": lambda self, other: _linalg_basic.dot(self, other),
    "argmax": lambda self, axis=None, out=None, keepdims=None: _reductions.argmax(
        self, axis, out, keepdims
    ),
    "argmin": lambda self, axis=None, out=None, keepdims=None: _reductions.argmin(
        self, axis, out, keepdims
    ),
    "ptp": lambda self, axis=None, out=None, keepdims=False: _reductions.ptp(
        self, axis, out, keepdims
    ),
    "cumsum": lambda self, axis=None, dtype=None, out=None: _math_cumulative.cumsum(
        self, axis, dtype, out
    ),
    "cumprod": lambda self, axis=None, dtype=None, out=None: _math_cumulative.cumprod(
        self, axis, dtype, out
    ),
    "__array_namespace__": lambda self, api_version=None: _array_api.array_namespace(api_version),
    "to_device": lambda self, device, stream=None: api.device_put(self, device),
    "diagonal": lambda self, offset=0, axis1=0, axis2=1: _shape_diag.diagonal(
        self, offset, axis1, axis2
    ),
    "repeat": lambda self, repeats, axis=None, *, total_repeat_length=None: _shape_rearrange.repeat(
        self, repeats, axis, total_repeat_length=total_repeat_length
    ),
    # JAX's x.sort() returns a sorted copy (arrays are immutable); x.nonzero() needs size= under
    # jit.
    "sort": lambda self, axis=-1, **kwargs: _sorting.sort(self, axis, **kwargs),
    "argsort": lambda self, axis=-1, **kwargs: _sorting.argsort(self, axis, **kwargs),
    "argpartition": lambda self, kth, axis=-1: _sorting.argpartition(self, kth, axis),
    "searchsorted": lambda self, v, side="left", sorter=None, *, method="scan": (
        _sorting.searchsorted(self, v, side, sorter, method=method)
    ),
    "nonzero": lambda self, *, fill_value=None, size=None: _sorting.nonzero(
        self, size=size, fill_value=fill_value
    ),
    "trace": lambda self, offset=0, axis1=0, axis2=1, dtype=None, out=None: _shape_diag.trace(
        self, offset, axis1, axis2, dtype, out
    ),
    # x.take(indices, axis, ...) is jnp.take(x, ...) (optax's integer-label cross entropy).
    "take": lambda self, *args, **kwargs: _take(self, *args, **kwargs),
}


def _take(self: Any, *args: Any, **kwargs: Any) -> Any:
    from stablax._src.numpy._indexing_funcs import take

    return take(self, *args, **kwargs)


def attach_methods() -> None:
    for cls in (Array, Tracer):
        for name, method in _METHODS.items():
            setattr(cls, name, method)
    # Equality operators make these unhashable, as NumPy arrays are.
    Array.__hash__ = None  # type: ignore[assignment]
    Tracer.__hash__ = None  # type: ignore[assignment]


attach_methods()
