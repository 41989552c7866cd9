"""DLPack exchange with other array libraries: `stablax.dlpack.from_dlpack` and its dtypes."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from stablax._src import array, dtypes, lax

_SUPPORTED = frozenset(
    np.dtype(d)
    for d in (
        np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
        np.float16, ml_dtypes.bfloat16, np.float32, np.float64, np.complex64, np.complex128,
        np.bool_,
    )
)  # fmt: skip


def is_supported_dtype(dtype: Any) -> bool:
    """Whether arrays of `dtype` can cross DLPack (the dtypes JAX 0.10.2 exchanges).

    Args:
      dtype: a dtype-like object (not None).
    """
    if dtype is None:
        raise TypeError(f"Expected a string or dtype-like object; got {dtype=}")
    return np.dtype(dtype) in _SUPPORTED


def _float8_of_ours(external_array: Any) -> bool:
    """An Array's float8 data crosses (XLA exports and imports DLPack's float8 codes), as in
    JAX, although `is_supported_dtype` (NumPy's exchange) leaves them out."""
    dtype = np.dtype(external_array.dtype)
    return isinstance(external_array, array.ArrayImpl) and dtype.name.startswith("float8_")


def from_dlpack(external_array: Any, device: Any = None, copy: bool | None = None) -> Any:
    """An Array holding the data of any DLPack producer (NumPy, PyTorch, CuPy, ...).

    Args:
      external_array: an object with `__dlpack__` and `__dlpack_device__` methods.
      device: the device to place the result on (the default device when None).
      copy: True to always copy, False to never copy (an error if a copy is needed), None to
        copy only when necessary.

    Returns:
      An Array sharing the producer's memory where possible, its dtype canonicalized as
      `jnp.asarray` would (float64 becomes float32 unless x64 is enabled).
    """
    if not (hasattr(external_array, "__dlpack__") and hasattr(external_array, "__dlpack_device__")):
        raise TypeError(
            "The array passed to from_dlpack must have __dlpack__ and __dlpack_device__ methods."
        )
    dtype = getattr(external_array, "dtype", None)
    if dtype is not None and not is_supported_dtype(dtype) and not _float8_of_ours(external_array):
        raise TypeError(f"from_dlpack: dtype {np.dtype(dtype)} is not supported by DLPack")
    target = None if dtype is None else dtypes.canonicalize_dtype(np.dtype(dtype))
    if target is not None and target != np.dtype(dtype):
        # The import is converted and dropped: it must own its memory, since the producer's
        # array may be freed before the asynchronous conversion has read it.
        imported = array.from_dlpack(external_array, device, copy=True)
        return lax.convert_element_type(imported, target)
    result = array.from_dlpack(external_array, device, copy)
    target = dtypes.canonicalize_dtype(result.dtype)
    if target != result.dtype:  # (a producer without `dtype`): convert before letting go
        return lax.convert_element_type(result, target).block_until_ready()
    return result
