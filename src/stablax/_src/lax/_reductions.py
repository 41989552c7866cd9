"""Reductions over axes: `stablehlo.reduce` and its rules, argmax/argmin and `lax.reduce`.

One op, `stablehlo.reduce`, with a `computation` parameter naming its region body; its decoder
reads the body back. Monoid bodies are one binary op on scalars (reduce_sum & co and their shape
rule: _reduce_monoids.py); argmax/argmin reduce (values, indices) pairs with a comparator body
(the bodies themselves: _reduce_bodies.py). A computation that is no monoid makes a generic
reduce (_reduce_generic.py).
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

import numpy as np

from stablax._src import dtypes, runtime, tree_util
from stablax._src import ir as mlir
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.core import Tracer
from stablax._src.dispatch import bind
from stablax._src.interpreters.ad import is_undefined
from stablax._src.lax import _elementwise as ew
from stablax._src.lax import _reduce_generic as generic
from stablax._src.lax._argcheck import int_arg
from stablax._src.lax._elementwise_common import _same_kind
from stablax._src.lax._reduce_bodies import (
    computation_of,
    emit_monoid_body,
    emit_region_body,
    int_tuple,
)
from stablax._src.lax._reduce_monoids import (
    ARG_REDUCTIONS,
    identity_element,
    init_operand,
    named_reduce_rule,
    normalize_axes,
    reduce_monoid,
)
from stablax._src.lax._shapes import (
    batch_at,
    broadcast_in_dim,
    broadcasted_iota,
    convert_element_type,
    full,
    reshape,
    transpose,
    zeros,
)
from stablax._src.op_rules import def_op

# --- the reduce op -----------------------------------------------------------------------------


def _reduce_rule(*args: ShapedArray, computation: Any, axes: tuple[int, ...]) -> Any:
    if not isinstance(computation, str):  # a traced body: _reduce_generic.py
        return generic.reduce_rule(*args, computation=computation, axes=axes)
    return named_reduce_rule(*args, computation=computation, axes=axes)


def _reduce_lowering(operands, in_avals, out_avals, *, computation, axes):
    op = mlir.emit(
        "stablehlo.reduce",
        operands,
        [mlir.aval_type(a) for a in out_avals],
        {"dimensions": mlir.i64_array(axes)},
        regions=1,
    )
    if not isinstance(computation, str):  # a generic body: the traced computation
        generic.emit_body(op, computation, in_avals)
        return list(op.results)
    scalars = [mlir.tensor_type((), a.dtype) for a in in_avals[: len(in_avals) // 2]]
    block = op.regions[0].blocks.append(*scalars, *scalars)
    if computation in ARG_REDUCTIONS:
        emit_region_body(block, _arg_reduce_body(computation, _is_float(in_avals[0].dtype)))
    else:
        emit_monoid_body(block, computation, in_avals[0].dtype)
    return list(op.results)


def _is_float(dtype: np.dtype) -> bool:
    return dtypes.issubdtype(dtype, np.floating)


def _arg_reduce_body(computation: str, is_float: bool):
    beats = ew.gt if computation == "argmax" else ew.lt

    # `a` (the accumulated value) wins if it beats `b` or is NaN, and keeps its index also on a
    # tie with a lower index: NumPy's answer (the first NaN, else the first extremum) for XLA's
    # in-order reductions. This is the comparator XLA:CPU runs as a fast arg-reduction; any
    # other (a NaN test on `b`, say) makes it a generic loop six times slower on 100 elements.
    def body(a, a_index, b, b_index):
        pick_a = beats(a, b)
        if is_float:
            pick_a = ew.or_(pick_a, ew.ne(a, a))
        pick_a_index = ew.or_(pick_a, ew.and_(ew.eq(a, b), ew.lt(a_index, b_index)))
        return ew.select(pick_a, a, b), ew.select(pick_a_index, a_index, b_index)

    return body


def decode_computation(op: Any, owner: Any) -> Any:
    """The `computation` of an emitted reduce/reduce_window: a monoid's or special body's name,
    or, for a generic body (or one no pattern recognises), the region read back as a function."""
    if generic.is_generic(op):
        return generic.decode_body(op, owner)
    try:
        return computation_of(op)
    except (KeyError, StopIteration):
        return generic.decode_body(op, owner)


def _reduce_decode(op: Any, owner: Any) -> dict[str, Any]:
    return {
        "computation": decode_computation(op, owner),
        "axes": int_tuple(op.attributes["dimensions"]),
    }


# --- derivatives -------------------------------------------------------------------------------


def zeros_like(x: Any) -> Any:
    """A strongly typed zero array of `x`'s shape and dtype (a tangent's instantiated zero)."""
    return zeros(aval_of(x))


def expand_reduced(y: Any, shape: Sequence[int], axes: Sequence[int]) -> Any:
    """Broadcasts a reduction's result back over the reduced `axes` of `shape`."""
    kept = [d for d in range(len(shape)) if d not in axes]
    return broadcast_in_dim(y, shape, kept)


def chooser_tangent(x: Any, y: Any, tx: Any, axes: Sequence[int], init: Any = None) -> Any:
    # max/min: the tangent at the chosen elements, averaged over ties (as JAX does); an init
    # value that wins counts as a chosen element with a zero tangent.
    shape, dtype = aval_of(x).shape, aval_of(x).dtype
    chosen = convert_element_type(ew.eq(x, expand_reduced(y, shape, axes)), dtype)
    count = reduce_monoid("add", chosen, axes)
    if init is not None:
        count = ew.add(count, convert_element_type(ew.eq(y, init), dtype))
    return ew.div(reduce_monoid("add", ew.mul(tx, chosen), axes), count)


def exclusive_products(x: Any, axes: Sequence[int]) -> Any:
    """For every element, the product of the other elements of its reduction group.

    Built without division (zeros are fine) from an n x n table per group, n the group size.
    """
    aval = aval_of(x)
    kept = [d for d in range(aval.ndim) if d not in axes]
    kept_shape = tuple(aval.shape[d] for d in kept)
    n = int(np.prod([aval.shape[d] for d in axes], dtype=np.int64))
    rank = len(kept_shape)
    flat = reshape(transpose(x, (*kept, *axes)), (*kept_shape, n))
    table_shape = (*kept_shape, n, n)
    table = broadcast_in_dim(flat, table_shape, (*range(rank), rank + 1))
    diagonal = ew.eq(
        broadcasted_iota(np.int32, table_shape, rank),
        broadcasted_iota(np.int32, table_shape, rank + 1),
    )
    others = ew.select(diagonal, full(table_shape, 1, aval.dtype), table)
    grouped = reshape(
        reduce_monoid("mul", others, (rank + 1,)), (*kept_shape, *(aval.shape[d] for d in axes))
    )
    inverse = np.argsort((*kept, *axes))
    return transpose(grouped, tuple(int(i) for i in inverse))


def _reduce_jvp(primals, tangents, *, computation, axes):
    if not isinstance(computation, str):
        return generic.reduce_jvp(primals, tangents, computation=computation, axes=axes)
    outs = bind("stablehlo.reduce", *primals, computation=computation, axes=axes)
    half = len(primals) // 2
    (x, init), (tx, t_init) = primals[::half][:2], tangents[::half][:2]
    if computation == "add":
        tx = zeros_like(x) if tx is None else tx
        t_init = zeros_like(init) if t_init is None else t_init
        return outs, bind("stablehlo.reduce", tx, t_init, computation="add", axes=axes)
    if computation == "mul":
        terms = []
        if tx is not None:
            terms.append(
                ew.mul(reduce_monoid("add", ew.mul(tx, exclusive_products(x, axes)), axes), init)
            )
        if t_init is not None:
            terms.append(ew.mul(t_init, reduce_monoid("mul", x, axes)))
        return outs, terms[0] if len(terms) == 1 else ew.add(*terms)
    if computation in ARG_REDUCTIONS:  # indices have no derivative; the values are a max/min
        return outs, (None if tx is None else chooser_tangent(x, outs[0], tx, axes), None)
    if computation in ("max", "min") and tx is not None:
        return outs, chooser_tangent(x, outs, tx, axes, init)
    return outs, None  # and/or/xor act on integers; an init value's tangent is not tracked


def _reduce_transpose(ct, *operands, computation, axes):
    # Only the sum is linear: broadcast back over the reduced axes; the init gets the total.
    if computation != "add":
        raise NotImplementedError(f"[transpose] reduce with {computation} is not linear")
    x, init = operands
    ct_x = ct_init = None
    if is_undefined(x):
        ct_x = expand_reduced(ct, x.aval.shape, axes)
    if is_undefined(init):
        ct_init = reduce_monoid("add", ct, tuple(range(aval_of(ct).ndim)))
    return [ct_x, ct_init]


def argmax(operand: Any, axis: int, index_dtype: Any) -> Any:
    """Index of the largest element along `axis` (a two-operand `stablehlo.reduce`).

    Ties go to the lowest index; NaN counts as the largest value (the first NaN wins), as in
    `numpy.argmax`.

    Args:
      operand: a boolean, integer or floating array with a non-empty `axis`.
      axis: the axis to reduce.
      index_dtype: the integer dtype of the result.

    Returns:
      An `index_dtype` array of the operand's shape without `axis`.
    """
    return _arg_reduce("argmax", operand, axis, index_dtype)


def argmin(operand: Any, axis: int, index_dtype: Any) -> Any:
    """Index of the smallest element along `axis`; ties and NaN handled as in `argmax`."""
    return _arg_reduce("argmin", operand, axis, index_dtype)


def _arg_reduce(computation: str, operand: Any, axis: int, index_dtype: Any) -> Any:
    if index_dtype is None:  # JAX's class, before the operand is read
        raise ValueError(f"lax.{computation}: index_dtype must be specified{mlir.where_suffix()}")
    aval = aval_of(operand)
    # JAX's order: the dtype is read, then the axis and its size checked, then the dtype's kind.
    index_dtype = dtypes.canonicalize_dtype(dtypes.check_user_dtype(index_dtype, computation))
    axis = int_arg(axis, "axis", f"lax.{computation}")  # one axis (a tuple is no axis)
    (axis,) = normalize_axes((axis,), aval.ndim, f"lax.{computation}")
    if aval.shape[axis] == 0:
        raise ValueError(
            f"lax.{computation} requires a non-empty reduced dimension, got "
            f"{aval.str_short()} with axis {axis}{mlir.where_suffix()}"
        )
    if index_dtype.kind not in "iu":
        raise TypeError(
            f"lax.{computation}: index_dtype must be an integer type, got "
            f"{index_dtype.name}{mlir.where_suffix()}"
        )
    indices = broadcasted_iota(index_dtype, aval.shape, axis)
    monoid = "max" if computation == "argmax" else "min"
    inits = (
        init_operand(identity_element(monoid, aval.dtype), aval.dtype),
        init_operand(0, index_dtype),
    )
    out = bind("stablehlo.reduce", operand, indices, *inits, computation=computation, axes=(axis,))
    return out[1]


# The monoid computations `reduce` recognises, by function identity (as JAX does).
MONOID_FUNCTIONS = {
    ew.add: "add",
    ew.mul: "mul",
    ew.max: "max",
    ew.min: "min",
    ew.bitwise_and: "and",
    ew.bitwise_or: "or",
    ew.bitwise_xor: "xor",
}


def monoid_name(computation: Any) -> str | None:
    """The monoid ("add", "max", ...) a public lax function computes, or None."""
    return MONOID_FUNCTIONS.get(inspect.unwrap(computation))  # public functions are wrapped


def _is_identity_init(computation: str, init: Any, init_dtype: np.dtype) -> bool:
    """Whether a concrete init value is the identity JAX's lax.reduce recognises, so that it
    reduces with reduce_sum & co and ignores the init value's dtype."""
    if computation in ("and", "or", "xor") and not (
        init_dtype == np.bool_ or dtypes.issubdtype(init_dtype, np.integer)
    ):
        return False
    with np.errstate(all="ignore"):
        return bool(np.equal(np.asarray(init), identity_element(computation, init_dtype)))


def _check_init_dtype(computation: str, operand_aval, init: Any, init_aval) -> None:
    """A strongly typed concrete init value other than the identity must have the operand's
    dtype, as JAX's reduce requires (stablax converted it: 0.5 into an int32 sum was 0). A
    Python scalar takes the operand's dtype if of its kind, as in stablax's binary lax ops
    (-2.5 into an int16 sum was -2; JAX refuses it); a traced one meets the shape rule's check."""
    if (
        isinstance(init, Tracer)
        or init_aval.dtype == operand_aval.dtype
        or _is_identity_init(computation, init, init_aval.dtype)
        or (
            dtypes.is_python_scalar(init)
            and _same_kind(dtypes.python_scalar_dtype(init), operand_aval.dtype)
        )
    ):
        return
    raise TypeError(
        "lax.reduce: operand dtypes should match the initial value dtypes (or the initial value "
        f"be the computation's identity), got {operand_aval.str_short()} and "
        f"{init_aval.str_short()}{mlir.where_suffix()}"
    )


def reduce(
    operands: Any,
    init_values: Any,
    computation: Any,
    dimensions: Sequence[int],
    out_sharding: Any = None,
) -> Any:
    """Reduces `operands` over `dimensions` with `computation` (`stablehlo.reduce`).

    Args:
      operands: an array or a pytree of arrays of one shape.
      init_values: scalars in `operands`' structure, usually the computation's identity.
      computation: a function of two such pytrees (accumulated, new) returning one. A monoid
        (`lax.add`, `lax.mul`, `lax.max`, `lax.min`, the bitwise ones, or any callable that is
        one such op of its two arguments, like `lambda a, b: a + b`) reduces with its own rules;
        anything else becomes the body of a generic reduce (see _reduce_generic.py).
      dimensions: the axes to reduce.
      out_sharding: None, or a sharding placing the result on the one device (as JAX's).

    Returns:
      The reduction, without the reduced axes: an array for a monoid of one array, else a
      pytree in the structure `computation` returns.
    """
    flat_operands, flat_inits, tree = generic.flatten_args("reduce", operands, init_values)
    name = monoid_name(computation) if len(flat_operands) == 1 else None
    if name is not None:
        init_aval = aval_of(flat_inits[0])
        if init_aval.shape == ():
            _check_init_dtype(name, aval_of(flat_operands[0]), flat_inits[0], init_aval)
            runtime.check_sharding(out_sharding, "lax.reduce")  # last, as JAX's bind
            return _monoid_reduce(name, flat_operands[0], flat_inits[0], dimensions)
    operand_avals = [aval_of(x) for x in flat_operands]
    init_avals = [aval_of(i) for i in flat_inits]
    # JAX's order: the computation is traced, the init values checked, then its outputs.
    fn, out_tree = generic.trace_computation("reduce", computation, init_avals, tree)
    generic.check_inits("reduce", operand_avals, init_avals)
    generic.check_outputs("reduce", fn, init_avals)
    dims = normalize_axes(dimensions, operand_avals[0].ndim, "lax.reduce")
    runtime.check_sharding(out_sharding, "lax.reduce")
    name = generic.monoid_of(fn) if len(flat_operands) == 1 else None
    if name is not None:
        outs = [_monoid_reduce(name, flat_operands[0], flat_inits[0], dims)]
    else:
        outs = generic.reduce_generic(flat_operands, flat_inits, fn, dims)
    return tree_util.tree_unflatten(out_tree, outs)


def _monoid_reduce(name: str, operand: Any, init: Any, dimensions: Sequence[int]) -> Any:
    dims = normalize_axes(dimensions, aval_of(operand).ndim, "lax.reduce")
    result = reduce_monoid(name, operand, dims, init)
    # As JAX: weakly typed only when both the operand and the init value are.
    weak = aval_of(operand).weak_type and aval_of(init).weak_type
    if aval_of(result).weak_type != weak:
        result = convert_element_type(result, aval_of(result).dtype, weak_type=weak)
    return result


# --- batching ----------------------------------------------------------------------------------


def _reduce_batch(values, dims, *, axis_size, computation, axes):
    if not isinstance(computation, str):
        return generic.reduce_batch(
            values, dims, axis_size=axis_size, computation=computation, axes=axes
        )
    half = len(values) // 2
    if any(d is not None for d in dims[half:]):
        return _reduce_batch_init(values, dims, axis_size, computation, axes)
    # The batch dim stays where it is: the reduced axes shift past it.
    bdim = next(d for d in dims[:half] if d is not None)
    arrays = [
        batch_at(x, d, bdim, axis_size) for x, d in zip(values[:half], dims[:half], strict=True)
    ]
    shifted = tuple(a + (a >= bdim) for a in axes)
    out = bind("stablehlo.reduce", *arrays, *values[half:], computation=computation, axes=shifted)
    outs = list(out) if isinstance(out, tuple) else [out]
    return outs, [bdim - sum(a < bdim for a in axes)] * len(outs)


def _reduce_batch_init(values, dims, axis_size, computation, axes):
    # A batched init of a monoid: reduce from the identity, then combine with the init once.
    if computation in ARG_REDUCTIONS:
        raise NotImplementedError(f"[vmap] {computation} with a batched init value")
    (x, init), (x_dim, init_dim) = values, dims
    dtype = aval_of(x).dtype
    identity = init_operand(identity_element(computation, dtype), dtype)
    if x_dim is not None:
        x, axes = batch_at(x, x_dim, 0, axis_size), tuple(a + 1 for a in axes)
    reduced = bind("stablehlo.reduce", x, identity, computation=computation, axes=axes)
    reduced = batch_at(reduced, None if x_dim is None else 0, 0, axis_size)
    init = broadcast_in_dim(batch_at(init, init_dim, 0, axis_size), aval_of(reduced).shape, (0,))
    return [MONOID_COMBINE[computation](reduced, init)], [0]


MONOID_COMBINE = {name: fn for fn, name in MONOID_FUNCTIONS.items()}

def_op(
    "stablehlo.reduce",
    _reduce_rule,
    _reduce_lowering,
    decode=_reduce_decode,
    decode_reads_owner=True,
    jvp=_reduce_jvp,
    transpose=_reduce_transpose,
    batch=_reduce_batch,
)


__all__ = ["argmax", "argmin", "reduce"]
