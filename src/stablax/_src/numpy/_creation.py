"""Array creation: zeros, ones, full, empty and their *_like, arange, linspace, eye, copy."""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from stablax._src import dtypes, lax
from stablax._src import ir as mlir
from stablax._src.array import Array, from_host
from stablax._src.core import Tracer
from stablax._src.dispatch import weak_scalar
from stablax._src.lax._argcheck import int_arg
from stablax._src.numpy import _ufuncs as uf
from stablax._src.numpy import _ufuncs_division as division
from stablax._src.numpy._asarray import _check_placement, _on_device, array, asarray
from stablax._src.numpy._promotion import check_arraylike
from stablax._src.numpy._shape import broadcast_to, moveaxis
from stablax._src.shape_dtype_struct import ShapeDtypeStruct


def _shape_tuple(shape: Any) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)) or hasattr(shape, "__index__"):
        return (operator.index(shape),)
    try:
        if isinstance(shape, (str, bytes, bytearray)):  # iterable, but not of dimensions
            raise TypeError
        return tuple(operator.index(d) for d in shape)
    except TypeError as error:
        if type(error) is not TypeError:  # a tracer's concretization error says more
            raise
        raise TypeError(
            f"Shapes must be 1D sequences of concrete values of integer type, got {shape!r}"
        ) from None


def _dtype_or_default(dtype: Any) -> np.dtype:
    if dtype is None:
        return dtypes.default_float_dtype()
    return dtypes.canonicalize_dtype(dtypes.check_user_dtype(dtype, "stablax.numpy"))


def full(
    shape: Any, fill_value: Any, dtype: Any = None, *, device: Any = None, out_sharding: Any = None
) -> Any:
    """An array of `shape` filled with `fill_value`.

    `out_sharding`: None, or a sharding on stablax's one device.
    """
    _check_placement(device, out_sharding, "jnp.full")
    shape = _shape_tuple(shape)
    if dtype is not None:
        dtype = dtypes.canonicalize_dtype(dtypes.check_user_dtype(dtype, "jnp.full"))
    # With no dtype, the fill value's dtype and weak type carry over (full((2,), 3) is weak).
    # A Python scalar goes to lax.full as it is: with a dtype it is cast straight to it (2**100
    # fills a float32 array), not first made an int32 array.
    fill = fill_value if dtypes.is_python_scalar(fill_value) else asarray(fill_value)
    if np.ndim(fill):
        out = broadcast_to(fill if dtype is None else lax.convert_element_type(fill, dtype), shape)
        return _on_device(out, device, "full")
    return _on_device(lax.full(shape, fill, dtype), device, "full")


def zeros(shape: Any, dtype: Any = None, *, device: Any = None, out_sharding: Any = None) -> Any:
    """An array of zeros (float32 by default).

    `out_sharding`: None, or a sharding on stablax's one device.
    """
    _check_placement(device, out_sharding, "jnp.zeros")
    return _on_device(lax.full(_shape_tuple(shape), 0, _dtype_or_default(dtype)), device, "zeros")


def ones(shape: Any, dtype: Any = None, *, device: Any = None, out_sharding: Any = None) -> Any:
    """An array of ones (float32 by default).

    `out_sharding`: None, or a sharding on stablax's one device.
    """
    _check_placement(device, out_sharding, "jnp.ones")
    return _on_device(lax.full(_shape_tuple(shape), 1, _dtype_or_default(dtype)), device, "ones")


def empty(shape: Any, dtype: Any = None, *, device: Any = None, out_sharding: Any = None) -> Any:
    """Zeros: XLA arrays are always initialised.

    `out_sharding`: None, or a sharding on stablax's one device.
    """
    _check_placement(device, out_sharding, "jnp.empty")
    return zeros(shape, dtype, device=device)


def _prototype(a: Any, dtype: Any) -> Any:
    """`a` as an array for `*_like`: a ShapeDtypeStruct stands for an array of its shape and
    dtype, as in JAX (optax passes `jax.eval_shape` results)."""
    if isinstance(a, ShapeDtypeStruct):
        return lax.full(tuple(a.shape), 0, a.dtype)
    if isinstance(a, (str, bytes)) and dtype is not None:
        # A str is a NumPy scalar: given a dtype, only its shape () matters (NumPy, JAX).
        return lax.full((), False, np.bool_)
    if dtypes.is_python_scalar(a):  # only its type matters, not whether it fits (2**63)
        return weak_scalar(0, dtypes.python_scalar_dtype(a), weak_type=type(a) is not bool)
    return asarray(a)


def _filled_like(a: Any, fill_value: Any, dtype: Any, shape: Any, device: Any, name: str) -> Any:
    """jnp.`name`'s array: `a`'s shape (or `shape`) and dtype (or `dtype`), filled with the
    scalar `fill_value`, on `device`."""
    prototype = _prototype(a, dtype)
    shape = None if shape is None else _shape_tuple(shape)
    return _on_device(lax.full_like(prototype, fill_value, dtype, shape), device, name)


def zeros_like(
    a: Any, dtype: Any = None, shape: Any = None, *, device: Any = None, out_sharding: Any = None
) -> Any:
    _check_placement(device, out_sharding, "jnp.zeros_like")
    return _filled_like(a, 0, dtype, shape, device, "zeros_like")


def ones_like(
    a: Any, dtype: Any = None, shape: Any = None, *, device: Any = None, out_sharding: Any = None
) -> Any:
    _check_placement(device, out_sharding, "jnp.ones_like")
    return _filled_like(a, 1, dtype, shape, device, "ones_like")


def empty_like(prototype: Any, dtype: Any = None, shape: Any = None, *, device: Any = None) -> Any:
    """Zeros like `prototype`: XLA arrays are always initialised."""
    return zeros_like(prototype, dtype, shape, device=device)


def full_like(
    a: Any,
    fill_value: Any,
    dtype: Any = None,
    shape: Any = None,
    *,
    device: Any = None,
    out_sharding: Any = None,
) -> Any:
    _check_placement(device, out_sharding, "jnp.full_like")
    if np.ndim(fill_value):  # an array fill broadcasts to the shape, as NumPy and JAX
        prototype = _prototype(a, dtype)
        shape = np.shape(prototype) if shape is None else shape
        return full(shape, fill_value, prototype.dtype if dtype is None else dtype, device=device)
    return _filled_like(a, fill_value, dtype, shape, device, "full_like")


def arange(
    start: Any,
    stop: Any = None,
    step: Any = None,
    dtype: Any = None,
    *,
    device: Any = None,
    out_sharding: Any = None,
) -> Any:
    """Evenly spaced values in [start, stop), NumPy's `arange` with JAX's dtype rules.

    `out_sharding`: None, or a sharding on stablax's one device.
    """
    _check_placement(device, out_sharding, "jnp.arange")
    return _on_device(_arange(start, stop, step, dtype), device, "arange")


def _arange(start: Any, stop: Any, step: Any, dtype: Any) -> Any:
    for v in (start, stop, step):
        if isinstance(v, Tracer):
            raise TypeError(
                "jnp.arange: arguments must be concrete (not traced); use lax.iota for "
                "traced sizes or mark them static"
            )
    if start is None:
        raise TypeError(f"jnp.arange: start must be a number, got None{mlir.where_suffix()}")
    for v in (start, stop, step):
        if v is not None and np.ndim(v) != 0:
            raise ValueError(f"jnp.arange: arguments must be scalars, got {v!r}")
        if isinstance(v, (complex, np.complexfloating)) or np.iscomplexobj(v):
            raise ValueError("jnp.arange: complex start/stop/step are not supported")
        if not (isinstance(v, (bool, int, float, np.generic, np.ndarray, Array)) or v is None):
            raise TypeError(f"jnp.arange: arguments must be numbers, got {type(v).__name__}")
    if dtype is None:
        # NumPy scalars and arrays keep their dtype (arange(np.int8(3)) is int8); Python
        # scalars are weak. Only the arguments given count, as JAX.
        dtype = dtypes.result_type(*[v for v in (start, stop, step) if v is not None])
    if stop is None:
        start, stop = 0, start
    if step is None:
        step = 1
    values = [
        np.asarray(v).item() if isinstance(v, (Array, np.ndarray, np.generic)) else v
        for v in (start, stop, step)
    ]
    dtype = dtypes.canonicalize_dtype(dtype)
    if dtype == np.bool_:  # as JAX, whose iota takes numbers only
        raise TypeError(
            "jnp.arange: dtype bool is not supported: the values are made by iota, which "
            f"accepts integer, floating and complex types only{mlir.where_suffix()}"
        )
    start_v, stop_v, step_v = values
    if step_v == 0:
        raise ValueError("jnp.arange: step must not be zero")
    size = max(0, math.ceil((stop_v - start_v) / step_v))
    if dtype.kind in "iu" and all(isinstance(v, int) for v in values):
        out = lax.iota(dtype, size)
        if size == 0:  # the bounds need not fit the dtype (arange(2**63, 5) is empty)
            return out
        if step_v != 1:
            out = lax.mul(out, np.asarray(step_v, dtype))
        if start_v != 0:
            out = lax.add(out, np.asarray(start_v, dtype))
        return out
    # Computed on the host in float64 as NumPy does, then transferred.
    return from_host(np.arange(start_v, stop_v, step_v).astype(dtype))


def linspace(
    start: Any,
    stop: Any,
    num: int = 50,
    endpoint: bool = True,
    retstep: bool = False,
    dtype: Any = None,
    axis: int = 0,
    *,
    device: Any = None,
) -> Any:
    """`num` evenly spaced samples over [start, stop]."""
    num = operator.index(num)
    if num < 0:  # JAX's first check
        raise ValueError(f"jnp.linspace: number of samples, {num}, must be non-negative")
    for what, value in (("start", start), ("stop", stop)):
        if value is None:  # JAX's and NumPy's class
            raise TypeError(
                f"jnp.linspace: {what} must be an array or a scalar, got None{mlir.where_suffix()}"
            )
    if dtype is None:  # JAX's rule: the inexact type of start and stop together
        dtype = dtypes.to_inexact_dtype(dtypes.result_type(start, stop))
    dtype = dtypes.canonicalize_dtype(dtypes.check_user_dtype(dtype, "linspace"))
    compute = dtypes.to_inexact_dtype(dtype)
    start_a, stop_a = asarray(start, compute), asarray(stop, compute)
    shape = np.broadcast_shapes(start_a.aval.shape, stop_a.aval.shape)
    start_a, stop_a = broadcast_to(start_a, shape), broadcast_to(stop_a, shape)
    div = (num - 1) if endpoint else num
    nan = lax.full((), np.nan, compute)
    if num > 1:
        step = division.divide(uf.subtract(stop_a, start_a), asarray(div, compute))
        # As JAX: start*(1-t) + stop*t recovers both ends exactly, an infinite end included
        # (start + i*step is NaN from an infinite start on).
        real = dtypes.finfo(compute).dtype
        t = lax.div(lax.iota(real, div), lax.full((), div, real))
        t = lax.broadcast_in_dim(lax.convert_element_type(t, compute), (div, *shape), (0,))
        one = lax.full((), 1, compute)
        start_b = lax.broadcast_in_dim(start_a, (div, *shape), tuple(range(1, len(shape) + 1)))
        stop_b = lax.broadcast_in_dim(stop_a, (div, *shape), tuple(range(1, len(shape) + 1)))
        out = uf.add(uf.multiply(start_b, uf.subtract(one, t)), uf.multiply(stop_b, t))
        # Equal finite ends give exactly that value, as NumPy (the blend rounds a hair off
        # some: a negative logspace base raised to those is NaN). Infinite ends keep the blend;
        # the gradient stays the blend's (the correction is a constant).
        no_span = lax.eq(uf.subtract(stop_b, start_b), lax.full((), 0, compute))
        exact = uf.add(out, lax.stop_gradient(uf.subtract(start_b, out)))
        out = lax.select(no_span, exact, out)
        if endpoint:
            out = lax.concatenate([out, lax.reshape(stop_a, (1, *shape))], 0)
    elif num == 1:
        step = nan if endpoint else uf.subtract(stop_a, start_a)
        out = lax.reshape(start_a, (1, *shape))
    else:  # NumPy's empty result
        step = nan
        out = lax.full((0, *shape), 0, compute)
    if axis != 0:
        out = moveaxis(out, 0, axis)
    if dtypes.issubdtype(dtype, np.integer) and not dtypes.issubdtype(compute, np.integer):
        out = lax.floor(out)  # as JAX: toward -inf, not toward zero
    out = _on_device(lax.convert_element_type(out, dtype), device, "linspace")
    return (out, step) if retstep else out


def eye(
    N: int,  # noqa: N803 (NumPy's parameter names)
    M: int | None = None,  # noqa: N803
    k: int = 0,
    dtype: Any = None,
    *,
    device: Any = None,
) -> Any:
    """A 2-D array with ones on the k-th diagonal."""
    # JAX's order of checks: dtype, k, the dimensions' types, then their signs.
    dtype = _dtype_or_default(dtype)
    k = diagonal_offset(k, "jnp.eye")
    n = int_arg(N, "N", "jnp.eye")
    m = n if M is None else int_arg(M, "M", "jnp.eye")
    if n < 0 or m < 0:
        raise ValueError(
            f"jnp.eye: negative dimensions are not allowed, got {N} and {M}{mlir.where_suffix()}"
        )
    N, M = n, m  # noqa: N806
    k = max(-N, min(k, M))  # a diagonal past the corner is empty, however far (k=2**63 too)
    rows = lax.broadcasted_iota(np.int32, (N, M), 0)
    cols = lax.broadcasted_iota(np.int32, (N, M), 1)
    mask = lax.eq(lax.add(rows, np.int32(k)), cols)
    return _on_device(lax.convert_element_type(mask, dtype), device, "eye")


def diagonal_offset(k: Any, name: str, python_bool: bool = True) -> int:
    """The diagonal offset `k` of eye (and of trace, which JAX builds on eye) as a Python int.

    As JAX: a float, complex, bool or non-scalar array-like offset raises ValueError; what is not
    array-like (None, a string, a list) TypeError. A Python bool passes when `python_bool`
    (JAX's eye treats it as an int; its jitted trace sees a bool array).
    """
    if not (python_bool and isinstance(k, bool)):
        dtype = np.dtype(type(k)) if isinstance(k, (bool, float, complex)) else None
        dtype = getattr(k, "dtype", dtype)
        if dtype is not None and (
            getattr(k, "shape", ()) != () or not dtypes.issubdtype(dtype, np.integer)
        ):
            raise ValueError(f"{name}: k must be a scalar integer; got {k!r}{mlir.where_suffix()}")
    return int_arg(k, "k", name)


def identity(n: int, dtype: Any = None) -> Any:
    return eye(n, dtype=dtype)


def copy(a: Any, order: str | None = None) -> Any:
    """A copy of `a` in a new device buffer (deleting or donating one leaves the other intact).

    `order` is NumPy's memory layout: None or 'K' (arrays have one layout), as `jnp.array`.
    """
    check_arraylike("jnp.copy", a)  # before order, as JAX
    return array(a, copy=True, order=order)
