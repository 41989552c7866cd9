"""The Array API standard's namespace metadata and the names it spells differently from NumPy."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax._src import dtypes, lax
from stablax._src.api import device_put
from stablax._src.api import devices as _devices
from stablax._src.numpy import _ufuncs
from stablax._src.numpy._asarray import asarray
from stablax._src.numpy._creation import copy as _copy

__array_api_version__ = "2024.12"
_API_VERSIONS = ("2024.12",)


def array_namespace(api_version: str | None = None) -> Any:
    """What `x.__array_namespace__()` returns: the `stablax.numpy` module."""
    if api_version is not None and api_version not in _API_VERSIONS:
        raise ValueError(
            f"api_version={api_version!r} is not available; available versions are: "
            f"{list(_API_VERSIONS)}"
        )
    import stablax.numpy

    return stablax.numpy


# -- Data-type kinds (`isdtype`, `__array_namespace_info__().dtypes(kind=...)`) ---------------

_KIND_TESTS = {
    "bool": lambda dt: dt == np.dtype(bool),
    "signed integer": lambda dt: dt in dtypes.SIGNED_INTEGER_DTYPES,
    "unsigned integer": lambda dt: dt in dtypes.UNSIGNED_INTEGER_DTYPES,
    "integral": lambda dt: dt in dtypes.INTEGER_DTYPES,
    "real floating": lambda dt: dt in dtypes.FLOATING_DTYPES,
    "complex floating": lambda dt: dt in dtypes.COMPLEX_DTYPES,
    "numeric": lambda dt: dt != np.dtype(bool),
}


def isdtype(dtype: Any, kind: Any) -> bool:
    """Whether `dtype` is of `kind`: a kind name ('integral', ...), a dtype, or a tuple of them.

    Implements the Array API's `isdtype`; like JAX, bfloat16 and float8 are 'real floating'.
    """
    dt = np.dtype(dtype)
    kinds = kind if isinstance(kind, tuple) else (kind,)
    for k in kinds:
        if isinstance(k, str):
            if k not in _KIND_TESTS:
                raise ValueError(
                    f"jnp.isdtype: unrecognized kind {k!r}; expected one of {list(_KIND_TESTS)}"
                )
            if _KIND_TESTS[k](dt):
                return True
        elif isinstance(k, tuple):
            raise TypeError(f"jnp.isdtype: kind must not contain nested tuples, got {kind!r}")
        elif dt == np.dtype(k):
            return True
    return False


def astype(x: Any, dtype: Any, /, *, copy: bool = False, device: Any = None) -> Any:
    """Converts `x` to `dtype` (`stablehlo.convert`); the Array API's `astype`."""
    x = asarray(x)
    if dtype is None:
        dtype = dtypes.default_float_dtype()
    out = lax.convert_element_type(x, dtypes.check_user_dtype(dtype, "jnp.astype", warn=True))
    if copy and out is x:
        out = _copy(out)
    if device is not None:
        out = device_put(out, device)
    return out


class ArrayNamespaceInfo:
    """What `__array_namespace_info__()` returns: the namespace's devices and dtypes."""

    __module__ = "stablax.numpy"

    def capabilities(self) -> dict[str, Any]:
        return {"boolean indexing": False, "data-dependent shapes": False, "max dimensions": 64}

    def default_device(self) -> None:
        return None  # arrays go where the default backend puts them

    def devices(self) -> list[Any]:
        return [None, *_devices()]

    def default_dtypes(self, *, device: Any = None) -> dict[str, np.dtype]:
        return {
            "real floating": dtypes.default_float_dtype(),
            "complex floating": dtypes.default_complex_dtype(),
            "integral": dtypes.default_int_dtype(),
            "indexing": dtypes.default_int_dtype(),
        }

    def dtypes(self, *, device: Any = None, kind: Any = None) -> dict[str, np.dtype]:
        names = (
            "bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float32 float64 "
            "complex64 complex128"
        ).split()
        # With x64 off the 64-bit types do not exist as array dtypes.
        available = [np.dtype(n) for n in names if dtypes.canonicalize_dtype(n) == np.dtype(n)]
        if kind is None:
            return {dt.name: dt for dt in available}
        return {dt.name: dt for dt in available if isdtype(dt, kind)}


def __array_namespace_info__() -> ArrayNamespaceInfo:  # noqa: N807
    return ArrayNamespaceInfo()


# -- Array API spellings of NumPy functions -------------------------------------------------------

acos = _ufuncs.arccos
acosh = _ufuncs.arccosh
asin = _ufuncs.arcsin
asinh = _ufuncs.arcsinh
atan = _ufuncs.arctan
atan2 = _ufuncs.arctan2
atanh = _ufuncs.arctanh
bitwise_left_shift = _ufuncs.left_shift
bitwise_right_shift = _ufuncs.right_shift
