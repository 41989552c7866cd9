"""Index arrays: diag_indices, tril_indices and triu_indices (and their _from forms),
mask_indices, ix_, and flat indices to coordinates and back (unravel_index, ravel_multi_index)."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from stablax._src import dtypes, lax
from stablax._src import ir as mlir
from stablax._src.core import ConcretizationTypeError
from stablax._src.dtype_promotion import result_type
from stablax._src.lax._argcheck import check_callable, int_or_int_sequence, sequence
from stablax._src.numpy import _shape, _ufuncs
from stablax._src.numpy import _ufuncs_division as division
from stablax._src.numpy._asarray import asarray
from stablax._src.numpy._creation import ones, zeros
from stablax._src.numpy._indexing_funcs import _check_int_indices, _concrete_or_none
from stablax._src.numpy._promotion import check_arraylike
from stablax._src.numpy._sorting import nonzero


def _index_array(values: np.ndarray) -> Any:
    return asarray(np.asarray(values, dtype=dtypes.default_int_dtype()))


def diag_indices(n: int, ndim: int = 2) -> tuple[Any, ...]:
    """`np.diag_indices`: `ndim` copies of `arange(n)`, indexing the main diagonal."""
    n, ndim = operator.index(n), operator.index(ndim)
    if n < 0 or ndim < 0:
        raise ValueError(f"n and ndim must be non-negative, got n={n}, ndim={ndim}")
    # Before NumPy's arange, which returns an empty array for n = 2**63 (its size overflows).
    mlir.check_extents((n,), dtypes.default_int_dtype())
    return (_index_array(np.arange(n)),) * ndim


def diag_indices_from(arr: Any) -> tuple[Any, ...]:
    """`np.diag_indices_from`: the main-diagonal indices of an array with all sides equal."""
    check_arraylike("diag_indices_from", arr)  # before the shape, in JAX's order
    shape = np.shape(arr)
    if len(shape) < 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return diag_indices(shape[0], len(shape))


def _triangle_indices(np_fn: Callable, n: int, k: int, m: int | None) -> tuple[Any, Any]:
    n, k, m = operator.index(n), operator.index(k), None if m is None else operator.index(m)
    if n < 0 or (m is not None and m < 0):  # JAX builds them from a mask of shape (n, m)
        raise TypeError(
            f"jnp.{np_fn.__name__}: shape must have every element be nonnegative, got "
            f"{(n, n if m is None else m)}{mlir.where_suffix()}"
        )
    # NumPy builds the (n, m) mask from aranges, empty for n = 2**63 (the size overflows).
    mlir.check_extents((n, n if m is None else m), dtypes.default_int_dtype())
    rows, cols = np_fn(n, k, m)
    return _index_array(rows), _index_array(cols)


def tril_indices(n: int, k: int = 0, m: int | None = None) -> tuple[Any, Any]:
    """`np.tril_indices`: row and column indices of the lower triangle (diagonal offset k)."""
    return _triangle_indices(np.tril_indices, n, k, m)


def triu_indices(n: int, k: int = 0, m: int | None = None) -> tuple[Any, Any]:
    """`np.triu_indices`: row and column indices of the upper triangle (diagonal offset k)."""
    return _triangle_indices(np.triu_indices, n, k, m)


def _shape_2d(arr: Any, name: str) -> tuple[int, int]:
    if isinstance(arr, (str, bytes)):  # JAX's asarray rejects them (TypeError)
        raise TypeError(f"jnp.{name}: expected an array, got {type(arr).__name__}")
    check_arraylike(name, arr)  # None and other non-arrays: JAX's TypeError, before the shape
    shape = np.shape(arr) if not hasattr(arr, "shape") else tuple(arr.shape)
    if len(shape) != 2:
        raise ValueError(f"jnp.{name}: only 2-D inputs are accepted, got shape {shape}")
    return shape


def tril_indices_from(arr: Any, k: int = 0) -> tuple[Any, Any]:
    """`np.tril_indices_from`: `tril_indices` for the shape of a 2-D array."""
    rows, cols = _shape_2d(arr, "tril_indices_from")
    return tril_indices(rows, k, cols)


def triu_indices_from(arr: Any, k: int = 0) -> tuple[Any, Any]:
    """`np.triu_indices_from`: `triu_indices` for the shape of a 2-D array."""
    rows, cols = _shape_2d(arr, "triu_indices_from")
    return triu_indices(rows, k, cols)


def mask_indices(
    n: int, mask_func: Callable[[Any, int], Any], k: int = 0, *, size: int | None = None
) -> tuple[Any, Any]:
    """`np.mask_indices`: the indices where `mask_func(ones((n, n)), k)` is non-zero."""
    check_callable("jnp.mask_indices", mask_func, "mask_func")
    n = operator.index(n)
    mask = mask_func(ones((n, n)), k)  # JAX's: a float array (lax functions check its dtype)
    check_arraylike("jnp.mask_indices: nonzero of mask_func's result", mask)  # JAX's class
    # jnp.nonzero, as JAX: a traced mask works under jit when `size` is given.
    rows, cols = nonzero(mask, size=size)
    return rows, cols


def ix_(*args: Any) -> tuple[Any, ...]:
    """`np.ix_`: 1-D index arrays reshaped to an open mesh (`x[ix_(rows, cols)]`)."""
    check_arraylike("jnp.ix_", *args)  # every argument before any shape, as JAX
    out = []
    for i, arg in enumerate(args):
        arg = asarray(arg)
        if arg.aval.ndim != 1:
            raise ValueError(
                f"Arguments to jax.numpy.ix_ must be 1-dimensional, got shape {arg.aval.shape}"
            )
        if arg.aval.dtype == np.bool_:
            raise NotImplementedError("Boolean arguments to jax.numpy.ix_ are not implemented")
        shape = [1] * len(args)
        shape[i] = arg.aval.shape[0]
        if arg.aval.size == 0:  # NumPy and JAX: an empty index is of the integer index type
            arg = zeros((0,), dtypes.default_int_dtype())
        out.append(_shape.reshape(arg, shape))
    return tuple(out)


def unravel_index(indices: Any, shape: Sequence[int]) -> tuple[Any, ...]:
    """`np.unravel_index`: flat indices to coordinates in `shape` (C order).

    Unlike NumPy (and as JAX does), out-of-bounds indices are clamped after negative ones wrap.
    """
    indices = asarray(indices)
    if indices.aval.dtype == np.bool_:  # NumPy takes booleans as 0 and 1 (JAX: weak ints)
        indices = lax.convert_element_type(indices, dtypes.default_int_dtype(), weak_type=True)
    indices = _check_int_indices("unravel_index", indices)
    shape = int_or_int_sequence(shape, "shape", "jnp.unravel_index")
    if any(d < 0 for d in shape):
        raise ValueError(
            f"jnp.unravel_index: shape must be non-negative, got {tuple(shape)}"
            f"{mlir.where_suffix()}"
        )
    size = int(np.prod(shape, dtype=np.int64))
    dtype, weak = indices.aval.dtype, indices.aval.weak_type
    if dtypes.itemsize_bits(dtype) < 8:  # int4: computed in int32 (XLA has no int4 remainder)
        indices = lax.convert_element_type(indices, np.int32)
    if size == 0 and indices.aval.size:  # NumPy: "index 0 is out of bounds for array with size 0"
        raise ValueError(
            f"jnp.unravel_index: every index is out of bounds for shape {tuple(shape)} of size "
            f"0 (indices {indices.aval.str_short()}){mlir.where_suffix()}"
        )
    wrapped = _ufuncs.where(_ufuncs.less(indices, 0), _ufuncs.add(indices, size), indices)
    flat = _ufuncs.clip(wrapped, 0, max(size - 1, 0))
    coords = []
    for d in reversed(shape):
        coords.append(lax.convert_element_type(division.remainder(flat, d), dtype, weak_type=weak))
        flat = division.floor_divide(flat, d)
    return tuple(reversed(coords))


def ravel_multi_index(
    multi_index: Sequence[Any],
    dims: Sequence[int],
    mode: str = "raise",
    order: str = "C",
    *,
    dtype: Any = None,
) -> Any:
    """`np.ravel_multi_index`: coordinates in `dims` to flat indices (order "C" or "F").

    mode "raise" checks the coordinates, so they must be concrete; "clip"/"wrap" work traced.
    """
    dims = int_or_int_sequence(dims, "dims", "jnp.ravel_multi_index")
    if hasattr(multi_index, "aval") or isinstance(multi_index, np.ndarray):
        multi_index = list(asarray(multi_index)) if np.ndim(multi_index) else [multi_index]
    multi_index = sequence(multi_index, "multi_index", "jnp.ravel_multi_index")
    if len(multi_index) != len(dims):
        raise ValueError(
            f"jnp.ravel_multi_index: {len(multi_index)} coordinate arrays for {len(dims)} dims"
        )
    # As JAX: the result dtype (by default the coordinates' promoted with a weak int) is
    # checked before the coordinates are.
    multi_index = [asarray(c) for c in multi_index]
    if dtype is None:
        dtype = result_type(int, *multi_index)
    else:
        dtype = dtypes.check_user_dtype(dtype, "jnp.ravel_multi_index", warn=True)
    if dtypes.KIND.get(dtype) not in ("i", "u"):
        raise ValueError(f"jnp.ravel_multi_index: dtype={dtype!r} is not an integer type.")
    if math.prod(dims) - 1 > dtypes.iinfo(dtype).max:
        raise ValueError(
            f"jnp.ravel_multi_index: dtype={dtype!r} not large enough to hold flattened index "
            f"for dims={dims}. Use the dtype argument to pass a suitable dtype."
        )
    coords = [_check_int_indices("ravel_multi_index", c) for c in multi_index]
    if mode == "raise":
        for c, d in zip(coords, dims, strict=True):
            concrete = _concrete_or_none(c)
            if concrete is None:
                raise ConcretizationTypeError(
                    "jnp.ravel_multi_index: mode='raise' needs concrete coordinates, got "
                    f"{c.aval.str_short()}{mlir.where_suffix()}. Use mode='wrap' or mode='clip'."
                )
            if np.any((concrete < 0) | (concrete >= d)):
                raise ValueError("invalid entry in coordinates array")
    elif mode == "wrap":
        coords = [division.remainder(c, d) for c, d in zip(coords, dims, strict=True)]
    elif mode == "clip":
        coords = [_ufuncs.clip(c, 0, d - 1) for c, d in zip(coords, dims, strict=True)]
    elif mode != "ignore":
        raise ValueError(f"invalid mode={mode!r}. Expected 'raise', 'wrap', 'clip' or 'ignore'")
    if order not in ("C", "F"):  # last, as JAX
        raise ValueError("only 'C' or 'F' order is permitted")
    order_dims = range(len(dims)) if order == "F" else reversed(range(len(dims)))
    result, stride = None, 1
    for i in order_dims:
        term = _ufuncs.multiply(asarray(coords[i], dtype=dtype), stride)
        result = term if result is None else _ufuncs.add(result, term)
        stride *= dims[i]
    return zeros((), dtype) if result is None else result
