"""Public dtype utilities, as `jax.dtypes`."""

from __future__ import annotations

from stablax._src.dtypes import (
    TypePromotionError,
    bfloat16,
    canonicalize_dtype,
    extended,
    finfo,
    float0,
    iinfo,
    is_weakly_typed,
    issubdtype,
    itemsize_bits,
    prng_key,
    promote_types,
    result_type,
    scalar_type_of,
)

__all__ = [
    "TypePromotionError",
    "bfloat16",
    "canonicalize_dtype",
    "extended",
    "finfo",
    "float0",
    "iinfo",
    "is_weakly_typed",
    "issubdtype",
    "itemsize_bits",
    "prng_key",
    "promote_types",
    "result_type",
    "scalar_type_of",
]
