"""Collectives over named vmap axes: psum, pmean, pmax, pmin, all_gather, psum_scatter, axis_index.

Each is a marker op (`stablehlo.custom_call:stablax.<name>`, see ir_passes.py) carrying its axis
names. vmap's batching rule turns it into a reduction (or a reshuffle) of the batch dimension when
the named axis is the one being rewritten, so no compiled program ever holds one.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Hashable
from typing import Any

import numpy as np

from stablax._src import core, dispatch, dtypes, op_rules, tree_util
from stablax._src import ir as mlir
from stablax._src.arraylike import is_arraylike
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.core import current_trace, to_tracer
from stablax._src.interpreters.ad import jvp_not_implemented
from stablax._src.interpreters.batching import bound_axis_size, moveaxis, rewritten_axis
from stablax._src.ir import ir
from stablax._src.ir_passes import PAYLOAD_ATTRIBUTE, emit_marker
from stablax._src.lax._elementwise import add, div, mul
from stablax._src.lax._reduce_monoids import reduce_max, reduce_min, reduce_sum
from stablax._src.lax._shapes import (
    broadcast_in_dim,
    convert_element_type,
    full_like,
    iota,
    reshape,
)

PSUM = "stablehlo.custom_call:stablax.psum"
PMAX = "stablehlo.custom_call:stablax.pmax"
PMIN = "stablehlo.custom_call:stablax.pmin"
ALL_GATHER = "stablehlo.custom_call:stablax.all_gather"
PSUM_SCATTER = "stablehlo.custom_call:stablax.psum_scatter"
AXIS_INDEX = "stablehlo.custom_call:stablax.axis_index"


def _axis_names(axis_name: Any) -> tuple:
    return tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)


def _check_groups(name: str, axis_index_groups: Any, reduced_axes: Any = None) -> None:
    """Groups are unsupported; JAX's reductions refuse them over positional axes first."""
    if axis_index_groups is None:
        return
    if any(isinstance(n, int) for n in _axis_names(reduced_axes)):  # JAX's check (ValueError)
        raise ValueError(
            f"lax.{name}: axis_index_groups only supported for reductions over named axes, "
            f"got axis_name={reduced_axes!r}{mlir.where_suffix()}"
        )
    raise NotImplementedError(f"lax.{name}: axis_index_groups not supported in vmap collectives.")


# --- marker ops --------------------------------------------------------------------------------

# Params travel in the marker's backend_config as their repr. Axis names may be any hashable:
# params whose repr does not read back are also kept as a payload of the module.


def _literal(text: str) -> Any:
    try:
        return dict(ast.literal_eval(text))
    except (ValueError, SyntaxError, TypeError):
        return None


def _decode(op: Any, owner: Any) -> dict[str, Any]:
    if PAYLOAD_ATTRIBUTE in op.attributes:
        return dict(owner.payloads[ir.StringAttr(op.attributes[PAYLOAD_ATTRIBUTE]).value])
    return _literal(ir.StringAttr(op.attributes["backend_config"]).value)


def _lowering(target: str):
    def lower(operands, in_avals, out_avals, **params):
        text = repr(sorted(params.items()))
        attributes = {"backend_config": ir.StringAttr.get(text)}
        if _literal(text) != params:
            key = core.lowering_trace().add_payload("collective", dict(params))
            attributes[PAYLOAD_ATTRIBUTE] = ir.StringAttr.get(key)
        return emit_marker(target, operands, out_avals, attributes)

    return lower


def _same_aval(x: ShapedArray, **params: Any) -> ShapedArray:
    return x


def _all_gather_aval(x: ShapedArray, *, axis_name, axis, tiled, size) -> ShapedArray:
    shape = list(x.shape)
    if tiled:
        shape[axis] *= size
    else:
        shape.insert(axis, size)
    return ShapedArray(shape, x.dtype, x.weak_type)


def _psum_scatter_aval(x: ShapedArray, *, axis_name, scatter_dimension, tiled, size) -> ShapedArray:
    shape = list(x.shape)
    if tiled:
        shape[scatter_dimension] //= size
    else:
        shape.pop(scatter_dimension)
    return ShapedArray(shape, x.dtype, x.weak_type)


def _axis_index_aval(*, axis_name) -> ShapedArray:
    return ShapedArray((), np.dtype(np.int32))


def _linear_jvp(name: str):
    def jvp(primals, tangents, **params):
        return dispatch.bind(name, *primals, **params), dispatch.bind(name, *tangents, **params)

    return jvp


def _psum_transpose(ct, x, **params):
    return [dispatch.bind(PSUM, ct, **params)]


def _all_gather_transpose(ct, x, *, axis_name, axis, tiled, size):
    params = dict(axis_name=axis_name, scatter_dimension=axis, tiled=tiled, size=size)
    return [dispatch.bind(PSUM_SCATTER, ct, **params)]


def _psum_scatter_transpose(ct, x, *, axis_name, scatter_dimension, tiled, size):
    params = dict(axis_name=axis_name, axis=scatter_dimension, tiled=tiled, size=size)
    return [dispatch.bind(ALL_GATHER, ct, **params)]


def _unbound_axis(op: Any) -> None:
    target = ir.StringAttr(op.attributes["call_target_name"]).value
    raise NameError(
        f"unbound axis name in {target.removeprefix('stablax.')}: collectives need an enclosing "
        "vmap (or pmap) with that axis_name"
    )


# --- batching rules: where the collectives are computed ----------------------------------------


def _reduce_rule(name: str, reduce: Any, unbatched: Any):
    """psum/pmax/pmin: reduce over the batch dim for the axis being rewritten (the result is the
    same in every instance: unbatched); over other axes the op stays, one per instance."""

    def rule(values, dims, *, axis_size, axis_name):
        (x,), (d,) = values, dims
        here = rewritten_axis()
        if here is None or here not in axis_name:
            return dispatch.bind(name, x, axis_name=axis_name), d
        out = unbatched(x, axis_size) if d is None else reduce(x, (d,))
        rest = tuple(n for n in axis_name if n != here)
        if rest:
            out = dispatch.bind(name, out, axis_name=rest)
        return out, None

    return rule


def _psum_unbatched(x, axis_size):
    # every instance holds x: their sum is axis_size * x
    return mul(x, full_like(x, axis_size))


def _same_in_every_instance(x, axis_size):
    # the max (min) over instances of a value every instance holds
    return x


def _all_gather_batch(values, dims, *, axis_size, axis_name, axis, tiled, size):
    (x,), (d,) = values, dims
    params = dict(axis_name=axis_name, tiled=tiled, size=size)
    if rewritten_axis() not in axis_name:
        if d is None:
            return dispatch.bind(ALL_GATHER, x, axis=axis, **params), None
        return dispatch.bind(ALL_GATHER, moveaxis(x, d, 0), axis=axis + 1, **params), 0
    shape = aval_of(x).shape
    if d is None:  # every instance holds x: the gathered array is x repeated
        full = (*shape[:axis], axis_size, *shape[axis:])
        kept = tuple(i for i in range(len(full)) if i != axis)
        out = broadcast_in_dim(x, full, kept)
    else:  # the batch dim becomes the gathered dim
        out = moveaxis(x, d, axis)
    if tiled:
        gathered = aval_of(out).shape
        merged = (*gathered[:axis], axis_size * gathered[axis + 1], *gathered[axis + 2 :])
        out = reshape(out, merged)
    return out, None


def _psum_scatter_batch(values, dims, *, axis_size, axis_name, scatter_dimension, tiled, size):
    (x,), (d,) = values, dims
    params = dict(axis_name=axis_name, tiled=tiled, size=size)
    sd = scatter_dimension
    if rewritten_axis() not in axis_name:
        if d is None:
            return dispatch.bind(PSUM_SCATTER, x, scatter_dimension=sd, **params), None
        moved = moveaxis(x, d, 0)
        return dispatch.bind(PSUM_SCATTER, moved, scatter_dimension=sd + 1, **params), 0
    # Instance i gets chunk i of the sum over instances: the summed array, with the scatter
    # dimension as the batch dimension.
    total = _psum_unbatched(x, axis_size) if d is None else reduce_sum(x, (d,))
    if tiled:
        shape = aval_of(total).shape
        split = (*shape[:sd], axis_size, shape[sd] // axis_size, *shape[sd + 1 :])
        total = reshape(total, split)
    return total, sd


def _axis_index_batch(values, dims, *, axis_size, axis_name):
    if rewritten_axis() != axis_name:
        return dispatch.bind(AXIS_INDEX, axis_name=axis_name), None
    return iota(np.int32, axis_size), 0


# (op, shape rule, jvp, transpose, batching rule); axis_index has no derivative.
for _key, _shape_rule, _jvp, _transpose, _batch in (
    (
        PSUM,
        _same_aval,
        _linear_jvp(PSUM),
        _psum_transpose,
        _reduce_rule(PSUM, reduce_sum, _psum_unbatched),
    ),
    (
        PMAX,
        _same_aval,
        jvp_not_implemented("pmax"),
        None,
        _reduce_rule(PMAX, reduce_max, _same_in_every_instance),
    ),
    (
        PMIN,
        _same_aval,
        jvp_not_implemented("pmin"),
        None,
        _reduce_rule(PMIN, reduce_min, _same_in_every_instance),
    ),
    (
        ALL_GATHER,
        _all_gather_aval,
        _linear_jvp(ALL_GATHER),
        _all_gather_transpose,
        _all_gather_batch,
    ),
    (
        PSUM_SCATTER,
        _psum_scatter_aval,
        _linear_jvp(PSUM_SCATTER),
        _psum_scatter_transpose,
        _psum_scatter_batch,
    ),
    (AXIS_INDEX, _axis_index_aval, None, None, _axis_index_batch),
):
    op_rules.def_op(
        _key,
        _shape_rule,
        _lowering(_key.split(":", 1)[1]),
        decode=_decode,
        decode_reads_owner=True,
        jvp=_jvp,
        transpose=_transpose,
        batch=_batch,
        differentiable=_key != AXIS_INDEX,
        expand=_unbound_axis,
        named_axis=True,  # psum of an unbatched x is size * x
    )


# --- the public functions ----------------------------------------------------------------------


def _as_operand(x: Any) -> Any:
    # The collective must land in the current trace (the vmapped function's), even when its
    # operand comes from outside it (an unbatched argument): lift it in.
    trace = current_trace()
    if trace is None:
        return x if hasattr(x, "aval") else dispatch.to_array(x)
    return to_tracer(trace, x)


def _check_leaves(fname: str, x: Any) -> bool:
    """TypeError for a leaf that is no array (before the axis names are looked at, as JAX);
    whether `x` has leaves at all (JAX returns a tree of none as it is)."""
    leaves = tree_util.tree_leaves(x)
    for leaf in leaves:
        if not is_arraylike(leaf):
            raise TypeError(
                f"lax.{fname}: argument {leaf!r} of type {type(leaf).__name__} is not a valid "
                f"array{mlir.where_suffix()}"
            )
    return bool(leaves)


def psum(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    """Sums `x` (a pytree) over the named vmap axis (or axes): every instance gets the total.

    Args:
      x: a pytree of arrays; booleans are summed as int32.
      axis_name: the `axis_name` of an enclosing vmap, or a tuple of them.
      axis_index_groups: unsupported under vmap (must be None).

    Returns:
      The sum over the axis, shaped like `x`. `psum(1, name)` is the size of the axis.

    A marker op that vmap rewrites into `stablehlo.reduce` over the batch dimension.
    """
    if not _check_leaves("psum", x):
        return x
    names = _axis_names(axis_name)
    _check_groups("psum", axis_index_groups, axis_name)
    size = math.prod(bound_axis_size(n) for n in names)

    def one(leaf):
        if dtypes.is_python_scalar(leaf) and not isinstance(leaf, bool):
            return leaf * size  # constant across the axis
        leaf = _as_operand(leaf)
        if aval_of(leaf).dtype == np.bool_:
            leaf = convert_element_type(leaf, np.int32)
        return dispatch.bind(PSUM, leaf, axis_name=names)

    return tree_util.tree_map(one, x)


def pmean(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    """The mean of `x` (a pytree) over the named vmap axis (or axes); integers give floats.

    Args:
      x: a pytree of arrays.
      axis_name: the `axis_name` of an enclosing vmap, or a tuple of them.
      axis_index_groups: unsupported under vmap (must be None).

    Returns:
      `psum(x, axis_name) / axis size`.
    """
    _check_leaves("pmean", x)  # a tree of no leaves still needs the axis (its size), as JAX
    names = _axis_names(axis_name)
    _check_groups("pmean", axis_index_groups, axis_name)
    size = math.prod(bound_axis_size(n) for n in names)

    def one(leaf):
        total = psum(leaf, names)
        if dtypes.is_python_scalar(total):
            return total / size
        dtype = aval_of(total).dtype
        if not dtypes.issubdtype(dtype, np.inexact):
            total = convert_element_type(total, dtypes.default_float_dtype())
        return div(total, full_like(total, size))

    return tree_util.tree_map(one, x)


def _extremum(fname: str, key: str, x: Any, axis_name: Any, axis_index_groups: Any) -> Any:
    _check_groups(fname, axis_index_groups, axis_name)  # first, as JAX
    if not _check_leaves(fname, x):
        return x
    names = _axis_names(axis_name)
    for n in names:
        bound_axis_size(n)
    return tree_util.tree_map(
        lambda leaf: dispatch.bind(key, _as_operand(leaf), axis_name=names), x
    )


def pmax(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    """The maximum of `x` (a pytree) over the named vmap axis (or axes).

    Args:
      x: a pytree of arrays.
      axis_name: the `axis_name` of an enclosing vmap, or a tuple of them.
      axis_index_groups: unsupported under vmap (must be None).

    Returns:
      The elementwise maximum over the axis, shaped like `x` (not differentiable, as in JAX).
    """
    return _extremum("pmax", PMAX, x, axis_name, axis_index_groups)


def pmin(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    """The minimum of `x` (a pytree) over the named vmap axis (or axes).

    Args:
      x: a pytree of arrays.
      axis_name: the `axis_name` of an enclosing vmap, or a tuple of them.
      axis_index_groups: unsupported under vmap (must be None).

    Returns:
      The elementwise minimum over the axis, shaped like `x` (not differentiable, as in JAX).
    """
    return _extremum("pmin", PMIN, x, axis_name, axis_index_groups)


def _single_axis(fname: str, axis_name: Any) -> Hashable:
    names = _axis_names(axis_name)
    if len(names) != 1:
        raise NotImplementedError(f"lax.{fname}: gathering over several axes {names} under vmap")
    return names[0]


def all_gather(
    x: Any, axis_name: Any, *, axis_index_groups: Any = None, axis: int = 0, tiled: bool = False
) -> Any:
    """Every instance gets the values of `x` from all instances of the named axis, stacked.

    Args:
      x: a pytree of arrays.
      axis_name: the `axis_name` of an enclosing vmap.
      axis_index_groups: unsupported under vmap (must be None).
      axis: where the new axis of size `axis size` goes (or, when tiled, which axis grows).
      tiled: concatenate along `axis` instead of stacking.

    Returns:
      The gathered arrays; under vmap, the batch dimension moved to `axis`.
    """
    name = _single_axis("all_gather", axis_name)
    _check_groups("all_gather", axis_index_groups)
    size = bound_axis_size(name)

    def one(leaf):
        leaf = _as_operand(leaf)
        ndim = aval_of(leaf).ndim
        rank = ndim if tiled else ndim + 1
        if not -rank <= axis < rank or (tiled and ndim == 0):
            raise ValueError(f"axis {axis} is out of bounds for array of dimension {rank}")
        params = dict(axis_name=(name,), axis=axis % rank, tiled=bool(tiled), size=size)
        return dispatch.bind(ALL_GATHER, leaf, **params)

    return tree_util.tree_map(one, x)


def psum_scatter(
    x: Any,
    axis_name: Any,
    *,
    scatter_dimension: int = 0,
    axis_index_groups: Any = None,
    tiled: bool = False,
) -> Any:
    """Sums `x` over the named axis and gives instance i the i-th chunk of the total.

    Args:
      x: a pytree of arrays whose `scatter_dimension` has the axis' size (a multiple of it when
        tiled).
      axis_name: the `axis_name` of an enclosing vmap.
      axis_index_groups: unsupported under vmap (must be None).
      scatter_dimension: the dimension split between the instances.
      tiled: keep the scattered dimension (of size 1/axis size) instead of dropping it.

    Returns:
      This instance's chunk of the sum (the transpose of all_gather).
    """
    name = _single_axis("psum_scatter", axis_name)
    _check_groups("psum_scatter", axis_index_groups)
    size = bound_axis_size(name)

    def one(leaf):
        leaf = _as_operand(leaf)
        aval = aval_of(leaf)
        if not -aval.ndim <= scatter_dimension < aval.ndim:
            raise ValueError(
                f"lax.psum_scatter: scatter_dimension {scatter_dimension} is out of bounds for "
                f"{aval.str_short()}"
            )
        sd = scatter_dimension % aval.ndim
        if aval.shape[sd] % size if tiled else aval.shape[sd] != size:
            raise ValueError(
                f"lax.psum_scatter: dimension {sd} of {aval.str_short()} must "
                f"{'be a multiple of' if tiled else 'equal'} the size {size} of axis {name!r}"
            )
        params = dict(axis_name=(name,), scatter_dimension=sd, tiled=bool(tiled), size=size)
        return dispatch.bind(PSUM_SCATTER, leaf, **params)

    return tree_util.tree_map(one, x)


def axis_index(axis_name: Any) -> Any:
    """This instance's index along the named vmap axis (int32; row-major over a tuple of names).

    Args:
      axis_name: the `axis_name` of an enclosing vmap, or a tuple of them.

    Returns:
      An int32 scalar; under vmap, `iota` over the batch.
    """
    index = None
    for name in _axis_names(axis_name):
        size = bound_axis_size(name)
        here = dispatch.bind(AXIS_INDEX, axis_name=name)
        index = here if index is None else add(mul(index, size), here)
    return index
