"""stablax.array_api: the Array API 2024.12 namespace of `stablax.numpy`, true to the current mode.

`stablax.numpy` keeps JAX's names, so `jnp.float64` exists even while `jax_enable_x64` is off and
arrays stay 32-bit. Code written against the Array API standard decides which dtypes a library
has by looking for those names, so here the 64-bit dtypes (int64, uint64, float64, complex128)
exist only while x64 is on: `__getattr__` reads the live flag, so `stablax.enable_x64()` and
`stablax.config.update('jax_enable_x64', ...)` switch them. Every other name is the very object
`stablax.numpy` (or its `linalg`, `fft`) exports, but for two where JAX's choice and the standard
differ: `finfo` gives Python floats (JAX's gives NumPy scalars) and `searchsorted` returns the
default index dtype (JAX's is int32 even with x64 on).

    import stablax.array_api as xp
    xp.asarray([1.0]).dtype   # float32; hasattr(xp, "float64") is False unless x64 is on
"""

from __future__ import annotations

import dataclasses as _dataclasses
from typing import Any as _Any

import numpy as _np

import stablax.numpy as _jnp
from stablax._src import dtypes as _dtypes
from stablax._src.config import config as _config

# The standard's functions and constants (array-api 2024.12, every `__all__` of the stubs but
# the array object's, the info functions' and the extensions').
_FUNCTIONS = (
    "abs acos acosh add all any arange argmax argmin argsort asarray asin asinh astype atan atan2 "
    "atanh bitwise_and bitwise_invert bitwise_left_shift bitwise_or bitwise_right_shift "
    "bitwise_xor broadcast_arrays broadcast_to can_cast ceil clip concat conj copysign cos cosh "
    "count_nonzero cumulative_prod cumulative_sum diff divide e empty empty_like equal exp "
    "expand_dims expm1 eye flip floor floor_divide from_dlpack full full_like greater "
    "greater_equal hypot iinfo imag inf isdtype isfinite isinf isnan less less_equal linspace log "
    "log10 log1p log2 logaddexp logical_and logical_not logical_or logical_xor matmul "
    "matrix_transpose max maximum mean meshgrid min minimum moveaxis multiply nan negative newaxis "
    "nextafter nonzero not_equal ones ones_like permute_dims pi positive pow prod real reciprocal "
    "remainder repeat reshape result_type roll round sign signbit sin sinh sort sqrt "
    "square squeeze stack std subtract sum take take_along_axis tan tanh tensordot tile tril triu "
    "trunc unique_all unique_counts unique_inverse unique_values unstack var vecdot where zeros "
    "zeros_like"
).split()
_DTYPES_32 = "bool int8 int16 int32 uint8 uint16 uint32 float32 complex64".split()
_DTYPES_64 = frozenset({"int64", "uint64", "float64", "complex128"})
_OTHERS = ["__array_api_version__", "__array_namespace_info__", "linalg", "fft"]

for _name in (*_FUNCTIONS, *_DTYPES_32, *_OTHERS):
    globals()[_name] = getattr(_jnp, _name)
del _name


@_dataclasses.dataclass(frozen=True)
class _FloatInfo:
    """What `finfo` returns: the standard's fields, the numbers as Python scalars."""

    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: _np.dtype


def finfo(type: _Any, /) -> _FloatInfo:  # noqa: A002  (the standard's parameter name)
    """Machine limits of a floating dtype (of the real part for complex); the Array API's `finfo`.

    Args:
        type: a real or complex floating dtype, or an array of one.

    Returns:
        `stablax.numpy.finfo(type)`'s bits, eps, max, min and smallest_normal as Python numbers.
    """
    info = _jnp.finfo(type)
    numbers = (float(info.eps), float(info.max), float(info.min), float(info.smallest_normal))
    return _FloatInfo(int(info.bits), *numbers, _np.dtype(info.dtype))


def searchsorted(x1: _Any, x2: _Any, /, *, side: str = "left", sorter: _Any = None) -> _Any:
    """Insertion indices of `x2` in sorted `x1`; the Array API's `searchsorted`.

    Args:
        x1: a 1-D array, sorted ascending unless `sorter` sorts it.
        x2: the values to insert.
        side: 'left' (first suitable index) or 'right' (last).
        sorter: indices that sort `x1`, or None.

    Returns:
        `stablax.numpy.searchsorted`'s indices in the default index dtype (int64 with x64 on).
    """
    out = _jnp.searchsorted(x1, x2, side=side, sorter=sorter)
    return _jnp.astype(out, _dtypes.default_int_dtype())


_ADAPTED = ["finfo", "searchsorted"]


def _public() -> list[str]:
    """The namespace's names in the current mode."""
    names = [*_FUNCTIONS, *_ADAPTED, *_DTYPES_32, *_OTHERS]
    if _config.jax_enable_x64:
        names += sorted(_DTYPES_64)
    return names


def __getattr__(name: str):
    if name in _DTYPES_64 and _config.jax_enable_x64:
        return getattr(_jnp, name)
    if name == "__all__":
        return _public()
    if name in _DTYPES_64:
        raise AttributeError(
            f"module 'stablax.array_api' has no attribute {name!r}: 64-bit dtypes exist only "
            "with x64 on (stablax.enable_x64(), or stablax.config.update('jax_enable_x64', True))"
        )
    raise AttributeError(f"module 'stablax.array_api' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*_public(), *(n for n in globals() if n.startswith("__"))})
