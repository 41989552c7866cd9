"""Sorting: `sort` and `sort_key_val` (`stablehlo.sort` with a comparator region) and `top_k`
(`chlo.top_k`).

Floats sort in JAX's order: NaNs last, -0.0 equal to +0.0 (a stable sort keeps their order).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from stablax._src import dtypes
from stablax._src import ir as mlir
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.dispatch import bind
from stablax._src.interpreters.ad import is_undefined
from stablax._src.interpreters.batching import moveaxis
from stablax._src.ir import ir
from stablax._src.lax import _elementwise as ew
from stablax._src.lax import _elementwise_unary as unary
from stablax._src.lax._argcheck import RANK, axis_arg
from stablax._src.lax._dot import dot_general
from stablax._src.lax._elementwise_common import ANY, BOOL, FLOAT, INT, check_dtype
from stablax._src.lax._reduce_bodies import emit_region_body
from stablax._src.lax._shapes import (
    batch_at,
    broadcast_in_dim,
    broadcasted_iota,
    convert_element_type,
    transpose,
)
from stablax._src.op_rules import def_op

# --- sort --------------------------------------------------------------------------------------


def _sort_rule(
    *operands: ShapedArray, dimension: int, is_stable: bool, num_keys: int
) -> tuple[ShapedArray, ...]:
    where = mlir.where_suffix()
    if not operands:
        raise TypeError(f"lax.sort requires at least one operand{where}")
    first = operands[0]
    if any(x.shape != first.shape for x in operands):
        shapes = ", ".join(x.str_short() for x in operands)
        raise TypeError(f"lax.sort requires operands of equal shapes, got {shapes}{where}")
    if not 0 <= dimension < first.ndim:
        raise ValueError(
            f"lax.sort: dimension {dimension} is out of bounds for {first.str_short()}{where}"
        )
    if not 1 <= num_keys <= len(operands):
        raise ValueError(
            f"lax.sort: num_keys={num_keys} must be between 1 and the number of "
            f"operands, {len(operands)}{where}"
        )
    for x in operands[:num_keys]:
        check_dtype("sort", x.dtype, ANY)
    return operands


def _sort_lowering(operands, in_avals, out_avals, *, dimension, is_stable, num_keys):
    op = mlir.emit(
        "stablehlo.sort",
        operands,
        [mlir.aval_type(a) for a in out_avals],
        {"dimension": mlir.i64(dimension), "is_stable": mlir.bool_attr(is_stable)},
        regions=1,
    )
    # The comparator takes (lhs, rhs) scalar pairs, one pair per operand.
    scalar_types = [mlir.tensor_type((), a.dtype) for a in in_avals for _ in range(2)]
    block = op.regions[0].blocks.append(*scalar_types)
    emit_region_body(block, _lexicographic_less(num_keys))
    return list(op.results)


def _lexicographic_less(num_keys: int):
    def body(*args):
        keys = []
        for lhs, rhs in zip(args[0 : 2 * num_keys : 2], args[1 : 2 * num_keys : 2], strict=True):
            if lhs.dtype.kind == "c":  # complex: by real part, then imaginary part
                keys += [(unary.real(lhs), unary.real(rhs)), (unary.imag(lhs), unary.imag(rhs))]
            else:
                keys.append((lhs, rhs))
        less = None
        for lhs, rhs in reversed(keys):
            key_less = _key_less(lhs, rhs)
            less = (
                key_less if less is None else ew.or_(key_less, ew.and_(_key_equal(lhs, rhs), less))
            )
        return (less,)

    return body


def _is_nan(x):
    return ew.ne(x, x)


def _key_less(a, b):
    if not dtypes.issubdtype(a.dtype, np.floating):
        return ew.lt(a, b)
    return ew.or_(ew.lt(a, b), ew.and_(ew.eq(a, a), _is_nan(b)))  # numbers before NaNs


def _key_equal(a, b):
    if not dtypes.issubdtype(a.dtype, np.floating):
        return ew.eq(a, b)
    return ew.or_(ew.eq(a, b), ew.and_(_is_nan(a), _is_nan(b)))  # all NaNs tie


def _sort_decode(op: Any) -> dict[str, Any]:
    # num_keys is not an attribute: it is how many operand pairs the comparator reads.
    block = op.regions[0].blocks[0]
    arguments = list(block.arguments)
    used = {arguments.index(v) for o in block.operations for v in o.operands if v in arguments}
    return {
        "dimension": ir.IntegerAttr(op.attributes["dimension"]).value,
        "is_stable": ir.BoolAttr(op.attributes["is_stable"]).value,
        "num_keys": max(used) // 2 + 1,
    }


def _sort_jvp(primals, tangents, *, dimension, is_stable, num_keys):
    # Tangents are permuted alongside: one more sort by the same keys, carrying them.
    params = {"dimension": dimension, "is_stable": is_stable}
    outs = bind("stablehlo.sort", *primals, num_keys=num_keys, **params)
    carried = [i for i, t in enumerate(tangents) if t is not None]
    out_tangents = [None] * len(primals)
    if carried:
        keys = primals[:num_keys]
        moved = bind(
            "stablehlo.sort", *keys, *(tangents[i] for i in carried), num_keys=num_keys, **params
        )
        for i, t in zip(carried, moved[num_keys:], strict=True):
            out_tangents[i] = t
    return list(outs), out_tangents


def _sort_transpose(cts, *operands, dimension, is_stable, num_keys):
    # Linear in the carried operands for fixed keys: undo the permutation by sorting the
    # cotangents by the positions the forward sort sent each element to.
    keys = operands[:num_keys]
    if any(is_undefined(k) for k in keys):
        raise NotImplementedError("[transpose] sort is not linear in its keys")
    cts = cts if isinstance(cts, (list, tuple)) else [cts]
    shape = aval_of(keys[0]).shape
    params = {"dimension": dimension, "is_stable": is_stable}
    iota = broadcasted_iota(np.int32, shape, dimension)
    positions = bind("stablehlo.sort", *keys, iota, num_keys=num_keys, **params)[-1]
    result = [None] * num_keys
    for operand, ct in zip(operands[num_keys:], cts[num_keys:], strict=True):
        if not is_undefined(operand) or ct is None:
            result.append(None)
            continue
        result.append(bind("stablehlo.sort", positions, ct, num_keys=1, **params)[1])
    return result


def _sort_batch(values, dims, *, axis_size, dimension, is_stable, num_keys):
    # One batch position for all operands (unbatched ones broadcast); the sorted axis shifts
    # past it.
    bdim = next(d for d in dims if d is not None)
    operands = [batch_at(x, d, bdim, axis_size) for x, d in zip(values, dims, strict=True)]
    outs = bind(
        "stablehlo.sort",
        *operands,
        dimension=dimension + (dimension >= bdim),
        is_stable=is_stable,
        num_keys=num_keys,
    )
    return list(outs), [bdim] * len(outs)


def_op(
    "stablehlo.sort",
    _sort_rule,
    _sort_lowering,
    decode=_sort_decode,
    jvp=_sort_jvp,
    transpose=_sort_transpose,
    batch=_sort_batch,
)


def sort(
    operand: Any | Sequence[Any], dimension: int = -1, is_stable: bool = True, num_keys: int = 1
) -> Any:
    """Sorts along `dimension` (`stablehlo.sort`), lexicographically over the first `num_keys`
    operands; the other operands are permuted alongside.

    Args:
      operand: an array, or a sequence of arrays of the same shape.
      dimension: the axis to sort along.
      is_stable: keep the order of equal keys.
      num_keys: how many leading operands are sort keys.

    Returns:
      The sorted array, or a tuple of sorted arrays for a sequence. NaNs sort last; complex
      numbers by real part, then imaginary part.

    Example:
      `sort((keys, values), num_keys=1)` orders `values` by `keys`.
    """
    single = not isinstance(operand, (tuple, list))
    operands = (operand,) if single else tuple(operand)
    if not operands:
        raise TypeError(f"lax.sort requires at least one operand{mlir.where_suffix()}")
    if single and num_keys != 1:  # before the other checks, as JAX
        raise ValueError(
            f"lax.sort: num_keys={num_keys!r} must equal 1 for a single operand"
            f"{mlir.where_suffix()}"
        )
    ndim = aval_of(operands[0]).ndim
    dimension = axis_arg(
        dimension, ndim, "lax.sort", what="dimension", array=RANK, convert=operator.index
    )
    outs = bind(
        "stablehlo.sort",
        *operands,
        dimension=dimension,
        is_stable=bool(is_stable),
        num_keys=operator.index(num_keys),
    )
    return outs[0] if single else outs


def sort_key_val(
    keys: Any, values: Any, dimension: int = -1, is_stable: bool = True
) -> tuple[Any, Any]:
    """Sorts `keys` along `dimension` and permutes `values` alongside (`stablehlo.sort`)."""
    return sort((keys, values), dimension=dimension, is_stable=is_stable, num_keys=1)


# --- top_k -------------------------------------------------------------------------------------


def _top_k_rule(x: ShapedArray, *, k: int) -> tuple[ShapedArray, ShapedArray]:
    where = mlir.where_suffix()
    if np.issubdtype(x.dtype, np.complexfloating):  # JAX's class
        raise ValueError(f"lax.top_k: top_k is not compatible with complex inputs{where}")
    check_dtype("top_k", x.dtype, (BOOL, INT, FLOAT))
    if k < 0:
        raise ValueError(f"lax.top_k: k must be nonnegative, got {k}{where}")
    if x.ndim == 0 or k > x.shape[-1]:
        raise ValueError(
            f"lax.top_k: k={k} must be no larger than the size of the last axis of "
            f"{x.str_short()}{where}"
        )
    shape = (*x.shape[:-1], k)
    return ShapedArray(shape, x.dtype, x.weak_type), ShapedArray(shape, np.int32)


def _top_k_lowering(operands, in_avals, out_avals, *, k):
    op = mlir.emit(
        "chlo.top_k", operands, [mlir.aval_type(a) for a in out_avals], {"k": mlir.i64(k)}
    )
    return list(op.results)


def _top_k_jvp(primals, tangents, *, k):
    # The values' tangents are the input tangents at the chosen indices: a one-hot contraction.
    (x,), (t,) = primals, tangents
    values, indices = bind("chlo.top_k", x, k=k)
    if t is None:
        return [values, indices], [None, None]
    rank = aval_of(x).ndim
    table_shape = (*aval_of(indices).shape, aval_of(x).shape[-1])
    one_hot = convert_element_type(
        ew.eq(
            broadcast_in_dim(indices, table_shape, range(rank)),
            broadcasted_iota(np.int32, table_shape, rank),
        ),
        aval_of(t).dtype,
    )
    batch = tuple(range(rank - 1))
    tangent = dot_general(one_hot, t, (((rank,), (rank - 1,)), (batch, batch)))
    return [values, indices], [tangent, None]


def _top_k_batch(values, dims, *, axis_size, k):
    # chlo.top_k reads the last axis: a batch dim there moves to the front.
    (x,), (bdim,) = values, dims
    if bdim == aval_of(x).ndim - 1:
        x, bdim = moveaxis(x, bdim, 0), 0
    return list(bind("chlo.top_k", x, k=k)), [bdim, bdim]


def_op(
    "chlo.top_k",
    _top_k_rule,
    _top_k_lowering,
    decode=lambda op: {"k": ir.IntegerAttr(op.attributes["k"]).value},
    jvp=_top_k_jvp,
    batch=_top_k_batch,
)


def top_k(operand: Any, k: int, *, axis: int = -1) -> tuple[Any, Any]:
    """The `k` largest entries along `axis` and their int32 indices (`chlo.top_k`).

    Entries come in descending order; equal values in index order; NaN ranks above every number
    and +0.0 above -0.0.

    Args:
      operand: a boolean, integer or floating array.
      k: how many entries to keep, at most the size of `axis`.
      axis: the axis to search.

    Returns:
      `(values, indices)`, both with `axis` of size `k`.
    """
    # JAX's order: k's sign first (a traced k fails here, converted to bool), then the axis,
    # then the operand's dtype.
    if k < 0:
        raise ValueError(f"lax.top_k: k must be nonnegative, got {k}{mlir.where_suffix()}")
    try:
        ndim = aval_of(operand).ndim
    except TypeError:
        # JAX checks the axis against np.ndim(operand) before reading it as an array: None or
        # a string is rank 0, an out-of-bounds axis (a ValueError) before the operand's type.
        if np.ndim(operand) != 0:
            raise
        ndim = 0
    if ndim == 0:
        raise ValueError(
            f"lax.top_k: axis {axis} is out of bounds for a rank-0 array{mlir.where_suffix()}"
        )
    axis = axis_arg(axis, ndim, "lax.top_k", array=RANK, convert=operator.index)
    if np.issubdtype(aval_of(operand).dtype, np.complexfloating):
        raise ValueError(
            f"lax.top_k: top_k is not compatible with complex inputs{mlir.where_suffix()}"
        )
    k = operator.index(k)
    dtype = aval_of(operand).dtype
    if dtypes.itemsize_bits(dtype) < 8:
        # XLA's CPU top_k decomposer fails on 2- and 4-bit layouts: rank in a byte-wide type
        # that holds every value exactly (the order is the same), then narrow back.
        if dtypes.issubdtype(dtype, np.floating):
            wide = np.float32
        else:
            wide = np.int8 if dtypes.issubdtype(dtype, np.signedinteger) else np.uint8
        values, indices = top_k(convert_element_type(operand, wide), k, axis=axis)
        return convert_element_type(values, dtype), indices
    if axis == ndim - 1:
        return bind("chlo.top_k", operand, k=k)
    # chlo.top_k works on the last axis: move `axis` there and back.
    perm = (*range(axis), *range(axis + 1, ndim), axis)
    inverse = tuple(perm.index(i) for i in range(ndim))
    values, indices = bind("chlo.top_k", transpose(operand, perm), k=k)
    return transpose(values, inverse), transpose(indices, inverse)


__all__ = ["sort", "sort_key_val", "top_k"]
