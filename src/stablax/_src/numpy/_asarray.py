"""jnp.asarray and jnp.array: any array-like (lists, scalars, NumPy arrays, `__array__` and
`__dlpack__` objects, tracers) as an Array, and the placement checks creation functions share."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax._src import core, dtypes, lax, runtime
from stablax._src import ir as mlir
from stablax._src.api import device_put
from stablax._src.array import Array, from_host
from stablax._src.core import Tracer
from stablax._src.dispatch import weak_scalar
from stablax._src.dlpack import from_dlpack
from stablax._src.jit import jit as _eager
from stablax._src.lax._argcheck import int_arg


def asarray(
    a: Any,
    dtype: Any = None,
    order: str | None = None,
    *,
    copy: bool | None = None,
    device: Any = None,
    out_sharding: Any = None,
) -> Any:
    """Converts lists, scalars, NumPy arrays, `__array__`/`__dlpack__` objects to an Array.

    `out_sharding`: None, or a sharding on stablax's one device.
    """
    _check_placement(device, out_sharding, "jnp.asarray", sharding=False)
    if copy is False and device is not None and not isinstance(a, (Array, Tracer)):
        # JAX asks for the device's platform (to refuse a copy) before it looks at `order`.
        _check_device(device, "asarray")
    if dtype is not None:  # JAX's order: the dtype, then order, then the device
        dtypes.check_user_dtype(dtype, "asarray")
    _check_order(order, "asarray")
    runtime.check_sharding(out_sharding, "jnp.asarray")
    if device is not None:
        _check_device(device, "asarray")
        if isinstance(a, (Array, Tracer)) or dtypes.is_python_scalar(a):
            return _on_device(asarray(a, dtype), device, "asarray")
    if isinstance(a, (Array, Tracer)):
        if dtype is not None:
            dtype = dtypes.canonicalize_dtype(dtypes.check_user_dtype(dtype, "asarray"))
            if dtype != a.aval.dtype or a.aval.weak_type:
                return lax.convert_element_type(a, dtype)
        return a
    if dtypes.is_python_scalar(a) and dtype is None:
        # Python int/float/complex are weakly typed; bools never are (as in JAX).
        return weak_scalar(a, dtypes.python_scalar_dtype(a), weak_type=type(a) is not bool)
    if hasattr(a, "__jax_array__"):
        return asarray(a.__jax_array__(), dtype)
    if isinstance(a, (list, tuple)) and _contains_traced(a):
        return _stack_nested(a, dtype)
    if dtype is None and not isinstance(a, (np.ndarray, np.generic, list, tuple)):
        if hasattr(a, "__dlpack__") and not hasattr(a, "__array__"):
            return from_dlpack(a)
    if dtype is not None:
        dtype = dtypes.check_user_dtype(dtype, "asarray")
    if dtype is not None and any(leaf is None for leaf in nested_leaves(a)):
        # NumPy's cast would make NaN of it, a silent wrong value. (With no dtype, NumPy's
        # object array is refused below, the TypeError the functions built on asarray keep.)
        raise ValueError(
            f"jnp.asarray: None is not a valid value for jnp.array{mlir.where_suffix()}"
        )
    if dtype is None and isinstance(a, (list, tuple)):
        dtype = _list_dtype(a)
    return from_host(np.asarray(a, dtype=dtype), device=device)


def _check_order(order: Any, name: str) -> None:
    # Arrays have one memory layout, so only NumPy's 'K' (keep) order means anything (as JAX).
    if order is not None and order != "K":
        raise NotImplementedError(
            f"jnp.{name}: only order='K' is implemented, got order={order!r}{mlir.where_suffix()}"
        )


def _list_dtype(a: Any) -> np.dtype | None:
    """JAX's rule for nested lists: the result type of the elements, Python scalars weak."""
    leaves = list(nested_leaves(a))
    if not leaves:
        return np.dtype(dtypes.default_float_dtype())
    if all(dtypes.is_python_scalar(x) for x in leaves):
        return dtypes.result_type(*{type(x) for x in leaves})
    return dtypes.result_type(*[x if dtypes.is_python_scalar(x) else np.asarray(x) for x in leaves])


def nested_leaves(a: Any):
    """The elements of nested lists and tuples, depth first (`a` itself if it is neither)."""
    if isinstance(a, (list, tuple)):
        for x in a:
            yield from nested_leaves(x)
    else:
        yield a


def _contains_traced(a: Any) -> bool:
    return any(isinstance(x, (Array, Tracer)) for x in nested_leaves(a))


def _stack_nested(a: Any, dtype: Any) -> Any:
    # stack converts its operands with asarray: the one import of this module kept inside a
    # function (a cycle).
    from stablax._src.numpy._shape import stack

    if isinstance(a, (list, tuple)):
        return stack([_stack_nested(x, dtype) for x in a])
    return asarray(a, dtype)


def array(
    object: Any,  # noqa: A002  (NumPy's name)
    dtype: Any = None,
    copy: bool = True,
    order: str | None = None,
    ndmin: int = 0,
    *,
    device: Any = None,
    out_sharding: Any = None,
) -> Any:
    """Like `asarray`, with NumPy's `ndmin`; `copy` (the default) gives an Array a new buffer.

    `out_sharding`: None, or a sharding on stablax's one device.
    """
    _check_placement(device, out_sharding, "jnp.array", sharding=False)
    _check_order(order, "array")
    runtime.check_sharding(out_sharding, "jnp.array")
    _check_device(device, "array")
    ndmin = int_arg(ndmin, "ndmin", "jnp.array")
    out = asarray(object, dtype=dtype, device=device)
    if copy and out is object and isinstance(out, Array):
        out = _device_copy(out)
    aval = out.aval
    if aval.ndim < ndmin:
        out = lax.reshape(out, (1,) * (ndmin - aval.ndim) + aval.shape)
    return out


def _check_device(device: Any, name: str) -> None:
    # Checked under a trace too, where the placement itself is left to the caller's jit.
    if device is None:
        return
    try:
        runtime.as_device(device)
    except ValueError:
        raise ValueError(
            f"jnp.{name}: device must be None, a Device or a single-device Sharding, got "
            f"{device!r}{mlir.where_suffix()}"
        ) from None


def _check_placement(device: Any, out_sharding: Any, name: str, sharding: bool = True) -> None:
    """JAX's checks of a creation function's placement: not both `device` and `out_sharding`
    (ValueError), then (unless `sharding` is False: asarray reads dtype and order first) the
    sharding itself (see runtime.check_sharding)."""
    if device is not None and out_sharding is not None:
        raise ValueError(
            f"{name}: only one of `device` or `out_sharding` can be set, got device={device!r} "
            f"and out_sharding={out_sharding!r}{mlir.where_suffix()}"
        )
    if sharding:
        runtime.check_sharding(out_sharding, name)


def _on_device(x: Any, device: Any, name: str) -> Any:
    """`x` placed on `device` (a Device or Sharding; None leaves it on the default device)."""
    _check_device(device, name)
    if device is None or core.trace_state.stack:
        return x
    return device_put(x, device)


def _identity(x: Any) -> Any:
    return x


_device_copy = _eager(_identity)  # XLA writes the output of an identity program to a new buffer
