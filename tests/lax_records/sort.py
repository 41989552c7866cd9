"""Op records for sort (one and several operands, ties, NaNs, signed zeros), sort_key_val, top_k."""

from __future__ import annotations

import numpy as np

from stablax import lax
from tests.lax_records.reductions import separated, ties_and_nans
from tests.op_record import BF16, BOOL, C64, C128, F16, F32, F64, I8, I32, I64, U8, U32, OpRecord

# Values are permutations, but exact=True would compare with assert_array_equal, which does not
# see bfloat16 NaNs as equal; the tolerance path compares NaNs positionally (and ints exactly).
SHAPES = [((7,),), ((3, 5),), ((4, 0),)]
DTYPES = (F32, F16, BF16, I32, U8, BOOL)


def _bits(dtype):
    return np.int32 if np.dtype(dtype) == F32 else np.int64


def small_complex(rng, shape, dtype):
    """Complex numbers with few distinct real parts (ties broken by the imaginary part)."""
    return (rng.integers(-2, 3, shape) + 1j * rng.integers(-2, 3, shape)).astype(dtype)


def _lexsort_last(*keys):
    """Indices sorting along the last axis by keys[0], then keys[1], ... (stable)."""
    return np.lexsort(keys[::-1], axis=-1)


def _top_k_reference(k, output):
    # Descending, NaN first, +0.0 before -0.0, equal values in index order.
    def reference(x):
        value = x.astype(np.float64)
        nan = np.isnan(value)
        order = np.lexsort((np.signbit(value), -np.where(nan, 0.0, value), ~nan), axis=-1)
        indices = order[..., :k]
        return np.take_along_axis(x, indices, -1) if output == 0 else indices.astype(np.int32)

    return reference


def _top_k_axis0_values(x):
    return np.moveaxis(_top_k_reference(2, 0)(np.moveaxis(x, 0, -1)), -1, 0)


def _sort_multi(output):
    def reference(a, b, c):
        order = _lexsort_last(a, b)
        return np.take_along_axis((a, b, c)[output], order, -1)

    return reference


TOP_K_SHAPES = [((5,),), ((2, 3, 4),)]
MULTI_SHAPES = [((9,), (9,), (9,)), ((3, 6), (3, 6), (3, 6))]

RECORDS = [
    OpRecord(
        "sort",
        lambda x: lax.sort(x),
        lambda x: np.sort(x, -1, kind="stable"),
        SHAPES,
        DTYPES,
        ties_and_nans,
        differentiable=False,  # ties, NaNs and infinities: not smooth
        x64_dtypes=(F64, I64),
    ),
    OpRecord(
        "sort_dimension0",
        lambda x: lax.sort(x, dimension=0),
        lambda x: np.sort(x, 0, kind="stable"),
        [((7,),), ((2, 3, 4),)],
        (F32, I8, U32),
        ties_and_nans,
        differentiable=False,  # ties, NaNs and infinities: not smooth
        exact=True,
    ),
    OpRecord(
        "sort_unstable",
        lambda x: lax.sort(x, is_stable=False),
        lambda x: np.sort(x, -1),
        SHAPES[:2],
        (F32, I32),
        ties_and_nans,
        differentiable=False,  # ties, NaNs and infinities: not smooth
        exact=True,
    ),
    # Bit patterns: -0.0 and +0.0 keep their order (they tie), NaNs go last in their order.
    OpRecord(
        "sort_bits",
        lambda x: lax.bitcast_convert_type(lax.sort(x), _bits(x.dtype)),
        lambda x: np.sort(x, -1, kind="stable").view(_bits(x.dtype)),
        SHAPES[:2],
        (F32,),
        ties_and_nans,
        exact=True,
        differentiable=False,
        x64_dtypes=(F64,),
    ),
    OpRecord(
        "sort_complex",
        lambda x: lax.sort(x),
        lambda x: np.sort(x, -1, kind="stable"),
        SHAPES[:2],
        (C64,),
        small_complex,
        exact=True,
        differentiable=False,  # equal elements make the permutation ambiguous
        x64_dtypes=(C128,),
    ),
    OpRecord(
        "sort_two_keys_values",
        lambda a, b, c: lax.sort((a, b, c), num_keys=2)[2],
        _sort_multi(2),
        MULTI_SHAPES,
        (F32, I32, BOOL),
        ties_and_nans,
        exact=True,
        differentiable=False,
        arg_dtypes=lambda dt: (dt, F32, I32),
    ),
    OpRecord(
        "sort_two_keys_second_key",
        lambda a, b, c: lax.sort((a, b, c), num_keys=2)[1],
        _sort_multi(1),
        MULTI_SHAPES,
        (F32, U8),
        ties_and_nans,
        differentiable=False,  # ties, NaNs and infinities: not smooth
        exact=True,
        arg_dtypes=lambda dt: (dt, F32, I32),
    ),
    OpRecord(
        "sort_key_val",
        lambda k, v: lax.sort_key_val(k, v)[1],
        lambda k, v: np.take_along_axis(v, np.argsort(k, -1, kind="stable"), -1),
        [((8,), (8,)), ((3, 5), (3, 5))],
        (F32, F16, I32),
        ties_and_nans,
        differentiable=False,  # ties, NaNs and infinities: not smooth
        exact=True,
        arg_dtypes=lambda dt: (dt, F32),
    ),
    OpRecord(
        "top_k_values",
        lambda x: lax.top_k(x, 3)[0],
        _top_k_reference(3, 0),
        TOP_K_SHAPES,
        (F32, F16, BF16, I32, U8, BOOL),
        ties_and_nans,
        differentiable=False,  # ties, NaNs and infinities: not smooth
        x64_dtypes=(F64, I64),
    ),
    OpRecord(
        "top_k_indices",
        lambda x: lax.top_k(x, 3)[1],
        _top_k_reference(3, 1),
        TOP_K_SHAPES,
        (F32, F16, I32, BOOL),
        ties_and_nans,
        exact=True,
        differentiable=False,
        x64_dtypes=(F64,),
    ),
    OpRecord(
        "top_k_axis0",
        lambda x: lax.top_k(x, 2, axis=0)[0],
        _top_k_axis0_values,
        [((4,),), ((3, 2, 2),)],
        (F32, I32),
        ties_and_nans,
        differentiable=False,  # ties, NaNs and infinities: not smooth
        exact=True,
    ),
    OpRecord(
        "top_k_zero",
        lambda x: lax.top_k(x, 0)[0],
        _top_k_reference(0, 0),
        TOP_K_SHAPES,
        (F32,),
        exact=True,
    ),
    # Well separated floats: sort is differentiable (the tangents are permuted alongside).
    OpRecord(
        "sort_smooth",
        lambda x: lax.sort(x),
        lambda x: np.sort(x, -1),
        [((6,),), ((3, 4),)],
        (F32,),
        separated,
        x64_dtypes=(F64,),
    ),
    OpRecord(
        "sort_by_key_smooth",
        lambda k, v: lax.sort((k, v), num_keys=1)[1],
        lambda k, v: np.take_along_axis(v, np.argsort(k, -1), -1),
        [((6,), (6,)), ((3, 4), (3, 4))],
        (F32,),
        separated,
        x64_dtypes=(F64,),
    ),
    OpRecord(
        "top_k_smooth",
        lambda x: lax.top_k(x, 3)[0],
        _top_k_reference(3, 0),
        [((5,),), ((2, 6),)],
        (F32,),
        separated,
        x64_dtypes=(F64,),
    ),
]
