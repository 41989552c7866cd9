"""The `stablehlo.convolution` op: its shape rule, lowering, decoder, derivatives and batching,
registered together. `_conv.py` holds the public functions that bind it."""

from __future__ import annotations

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
from stablax._src.lax._conv_dimensions import ConvDimensionNumbers, _error
from stablax._src.lax._dot import (
    decode_precision,
    decode_preferred_element_type,
    precision_config,
)
from stablax._src.lax._elementwise_common import ANY, check_dtype
from stablax._src.lax._reduce_bodies import int_tuple, pad_pairs
from stablax._src.lax._shapes import convert_element_type, full, reshape, transpose
from stablax._src.lax._slice_pad import rev
from stablax._src.lax._windowed import dilate_dim
from stablax._src.op_rules import def_op

# --- shape rule, lowering, decoder ----------------------------------------------------------------


def _conv_rule(
    lhs: ShapedArray,
    rhs: ShapedArray,
    *,
    window_strides,
    padding,
    lhs_dilation,
    rhs_dilation,
    dimension_numbers,
    feature_group_count,
    batch_group_count,
    precision,
    preferred_element_type,
) -> ShapedArray:
    op = "conv_general_dilated"
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    if not lhs.ndim == rhs.ndim == len(lhs_spec) or lhs.ndim < 2:
        raise _error(
            op,
            f"lhs {lhs.str_short()} and rhs {rhs.str_short()} must have the same "
            f"rank, at least 2, matching dimension_numbers {dimension_numbers}",
        )
    nspatial = lhs.ndim - 2
    for name, values in (
        ("window_strides", window_strides),
        ("padding", padding),
        ("lhs_dilation", lhs_dilation),
        ("rhs_dilation", rhs_dilation),
    ):
        if len(values) != nspatial:  # JAX's class: a TypeError for the padding pairs
            raise _error(
                op,
                f"{name} {values} must have one entry per spatial dimension "
                f"({nspatial}) of {lhs.str_short()}",
                TypeError if name == "padding" else ValueError,
            )
        if name != "padding" and any(v <= 0 for v in values):  # dilations: JAX's TypeError
            raise _error(
                op,
                f"{name} must be strictly positive, got {values}",
                ValueError if name == "window_strides" else TypeError,
            )
    if feature_group_count < 1 or batch_group_count < 1:
        raise _error(
            op,
            f"feature_group_count ({feature_group_count}) and batch_group_count "
            f"({batch_group_count}) must be positive",
            ValueError,
        )
    if feature_group_count > 1 and batch_group_count > 1:
        raise _error(
            op,
            "at most one of feature_group_count and batch_group_count may exceed "
            f"1, got {feature_group_count} and {batch_group_count}",
            ValueError,
        )
    batch, in_features = lhs.shape[lhs_spec[0]], lhs.shape[lhs_spec[1]]
    out_features, rhs_in_features = rhs.shape[rhs_spec[0]], rhs.shape[rhs_spec[1]]
    shapes = f"lhs {lhs.str_short()}, rhs {rhs.str_short()}"
    if in_features % feature_group_count or out_features % feature_group_count:
        raise _error(
            op,
            f"feature_group_count {feature_group_count} must divide the lhs feature "
            f"size {in_features} and the rhs output feature size {out_features} "
            f"({shapes})",
            ValueError,
        )
    if in_features // feature_group_count != rhs_in_features:
        raise _error(
            op,
            f"lhs feature size divided by feature_group_count, {in_features} // "
            f"{feature_group_count}, must equal the rhs input feature size "
            f"{rhs_in_features} ({shapes})",
            ValueError,
        )
    if batch % batch_group_count or out_features % batch_group_count:
        raise _error(
            op,
            f"batch_group_count {batch_group_count} must divide the lhs batch size "
            f"{batch} and the rhs output feature size {out_features} ({shapes})",
            ValueError,
        )
    spatial = []
    for i in range(nspatial):
        size = dilate_dim(lhs.shape[lhs_spec[2 + i]], lhs_dilation[i]) + sum(padding[i])
        window = dilate_dim(rhs.shape[rhs_spec[2 + i]], rhs_dilation[i])
        if size < 0:
            raise _error(
                op, f"padding {padding} removes more than the whole input ({shapes})", ValueError
            )
        spatial.append(0 if size < window else (size - window) // window_strides[i] + 1)
    shape = [0] * lhs.ndim
    for dim, size in zip(
        out_spec, (batch // batch_group_count, out_features, *spatial), strict=True
    ):
        shape[dim] = size
    # the dtypes after the shapes, as JAX's shape rule runs before its dtype rule
    if lhs.dtype != rhs.dtype:
        raise _error(
            op, f"lhs and rhs must have the same dtype, got {lhs.str_short()} and {rhs.str_short()}"
        )
    check_dtype(op, lhs.dtype, ANY)
    if preferred_element_type is not None:
        _check_preferred(op, lhs.dtype, np.dtype(preferred_element_type))
    dtype = lhs.dtype if preferred_element_type is None else preferred_element_type
    weak = lhs.weak_type and rhs.weak_type and preferred_element_type is None
    return ShapedArray(shape, dtype, weak)


def _check_preferred(op: str, dtype: np.dtype, preferred: np.dtype) -> None:
    # JAX's rule: integers may widen to integers of their signedness or to floats, floats to
    # floats, complex to complex, never to a narrower type.
    kinds = (np.integer, np.floating, np.complexfloating)
    integer_to_float = dtypes.issubdtype(dtype, np.integer) and dtypes.issubdtype(
        preferred, np.floating
    )
    if not integer_to_float and (
        any(dtypes.issubdtype(dtype, k) and not dtypes.issubdtype(preferred, k) for k in kinds)
        or (
            dtypes.issubdtype(dtype, np.signedinteger)
            and not dtypes.issubdtype(preferred, np.signedinteger)
        )
    ):
        raise _error(op, f"preferred_element_type {preferred.name} does not suit {dtype.name}")
    if preferred.itemsize < dtype.itemsize:
        raise _error(op, f"preferred_element_type {preferred.name} is narrower than {dtype.name}")


def _conv_lowering(
    operands,
    in_avals,
    out_avals,
    *,
    window_strides,
    padding,
    lhs_dilation,
    rhs_dilation,
    dimension_numbers,
    feature_group_count,
    batch_group_count,
    precision,
    preferred_element_type,
):
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    pads = np.asarray(padding, np.int64).reshape(len(padding), 2)
    attrs = {
        "window_strides": mlir.i64_array(window_strides),
        "padding": mlir.dense_i64(pads, pads.shape),
        "lhs_dilation": mlir.i64_array(lhs_dilation),
        "rhs_dilation": mlir.i64_array(rhs_dilation),
        "dimension_numbers": mlir.stablehlo.ConvDimensionNumbers.get(
            input_batch_dimension=lhs_spec[0],
            input_feature_dimension=lhs_spec[1],
            input_spatial_dimensions=list(lhs_spec[2:]),
            kernel_input_feature_dimension=rhs_spec[1],
            kernel_output_feature_dimension=rhs_spec[0],
            kernel_spatial_dimensions=list(rhs_spec[2:]),
            output_batch_dimension=out_spec[0],
            output_feature_dimension=out_spec[1],
            output_spatial_dimensions=list(out_spec[2:]),
        ),
        "feature_group_count": mlir.i64(feature_group_count),
        "batch_group_count": mlir.i64(batch_group_count),
        **precision_config(precision),
    }
    op = mlir.emit("stablehlo.convolution", operands, [mlir.aval_type(out_avals[0])], attrs)
    return list(op.results)


def _conv_decode(op: Any) -> dict[str, Any]:
    attrs = op.attributes
    dn = mlir.stablehlo.ConvDimensionNumbers(attrs["dimension_numbers"])
    return {
        "window_strides": int_tuple(attrs["window_strides"]),
        "padding": pad_pairs(attrs["padding"]),
        "lhs_dilation": int_tuple(attrs["lhs_dilation"]),
        "rhs_dilation": int_tuple(attrs["rhs_dilation"]),
        "dimension_numbers": ConvDimensionNumbers(
            (dn.input_batch_dimension, dn.input_feature_dimension, *dn.input_spatial_dimensions),
            (
                dn.kernel_output_feature_dimension,
                dn.kernel_input_feature_dimension,
                *dn.kernel_spatial_dimensions,
            ),
            (dn.output_batch_dimension, dn.output_feature_dimension, *dn.output_spatial_dimensions),
        ),
        "feature_group_count": ir.IntegerAttr(attrs["feature_group_count"]).value,
        "batch_group_count": ir.IntegerAttr(attrs["batch_group_count"]).value,
        "precision": decode_precision(op),
        "preferred_element_type": decode_preferred_element_type(op),
    }


# --- derivatives ----------------------------------------------------------------------------------


def _conv_jvp(primals, tangents, **params):
    # Bilinear: d(lhs * rhs) = dlhs * rhs + lhs * drhs.
    (lhs, rhs), (t_lhs, t_rhs) = primals, tangents
    out = bind("stablehlo.convolution", lhs, rhs, **params)
    terms = []
    if t_lhs is not None:
        terms.append(bind("stablehlo.convolution", t_lhs, rhs, **params))
    if t_rhs is not None:
        terms.append(bind("stablehlo.convolution", lhs, t_rhs, **params))
    return out, terms[0] if len(terms) == 1 else ew.add(*terms)


def _conv_transpose_rule(ct, lhs, rhs, **params):
    if is_undefined(lhs) and is_undefined(rhs):
        raise NotImplementedError("[transpose] a convolution is linear in one operand at a time")
    if is_undefined(lhs):
        return [_lhs_cotangent(ct, lhs.aval, rhs, **params), None]
    return [None, _rhs_cotangent(ct, lhs, rhs.aval, **params)]


def _lhs_cotangent(
    ct,
    lhs_aval,
    rhs,
    *,
    window_strides,
    padding,
    lhs_dilation,
    rhs_dilation,
    dimension_numbers,
    feature_group_count,
    batch_group_count,
    precision,
    preferred_element_type,
):
    # lhs[i] collects ct[p] * rhs[k] wherever p * stride + k * rhs_dilation equals
    # low + i * lhs_dilation: a convolution of ct dilated by the strides with the spatially
    # flipped kernel, its in/out features swapped within each group, striding by the lhs dilation.
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    n = len(lhs_spec) - 2
    groups = max(feature_group_count, batch_group_count)
    rhs_shape = aval_of(rhs).shape
    out_features, in_features = rhs_shape[rhs_spec[0]], rhs_shape[rhs_spec[1]]
    window = [rhs_shape[rhs_spec[2 + d]] for d in range(n)]
    if groups == 1:
        # Keep the kernel's layout: flip its window and swap the roles of its feature dims.
        kernel = rev(rhs, tuple(rhs_spec[2:]))
        kernel_spec = _swap_roles(rhs_spec)
    else:
        kernel = transpose(rhs, rhs_spec)  # (O, I, *window)
        kernel = reshape(kernel, (groups, out_features // groups, in_features, *window))
        kernel = transpose(kernel, (0, 2, 1, *range(3, 3 + n)))
        kernel = reshape(kernel, (groups * in_features, out_features // groups, *window))
        kernel = rev(kernel, tuple(range(2, 2 + n)))
        kernel_spec = tuple(range(n + 2))
    pads = []
    for d in range(n):
        size, k = lhs_aval.shape[lhs_spec[2 + d]], window[d]
        low = (k - 1) * rhs_dilation[d] - padding[d][0]
        needed = dilate_dim(size, lhs_dilation[d]) + (k - 1) * rhs_dilation[d]
        out_size = dilate_dim(aval_of(ct).shape[out_spec[2 + d]], window_strides[d])
        pads.append((low, needed - low - out_size))
    ct_dtype = aval_of(ct).dtype
    if aval_of(kernel).dtype != ct_dtype:
        kernel = convert_element_type(kernel, ct_dtype)
    canonical = tuple(range(n + 2))
    batch_groups = batch_group_count > 1
    result = bind(
        "stablehlo.convolution",
        ct,
        kernel,
        window_strides=tuple(lhs_dilation),
        padding=tuple(pads),
        lhs_dilation=tuple(window_strides),
        rhs_dilation=rhs_dilation,
        dimension_numbers=ConvDimensionNumbers(
            out_spec, kernel_spec, canonical if batch_groups else lhs_spec
        ),
        feature_group_count=groups,
        batch_group_count=1,
        precision=precision,
        preferred_element_type=None,
    )
    if batch_groups:  # output feature block b belongs to lhs batch block b
        batch, _, *spatial = aval_of(result).shape
        result = reshape(result, (batch, groups, in_features, *spatial))
        result = transpose(result, (1, 0, *range(2, 3 + n)))
        result = reshape(result, (groups * batch, in_features, *spatial))
        result = transpose(result, tuple(int(i) for i in np.argsort(lhs_spec)))
    if aval_of(result).dtype != lhs_aval.dtype:
        result = convert_element_type(result, lhs_aval.dtype)
    return result


def _swap_roles(spec: tuple[int, ...]) -> tuple[int, ...]:
    return (spec[1], spec[0], *spec[2:])


def _rhs_cotangent(
    ct,
    lhs,
    rhs_aval,
    *,
    window_strides,
    padding,
    lhs_dilation,
    rhs_dilation,
    dimension_numbers,
    feature_group_count,
    batch_group_count,
    precision,
    preferred_element_type,
):
    # rhs[o, c, k] = sum over batch and positions p of lhs[p * stride + k * rhs_dilation] ct[p]:
    # a convolution of lhs with ct as the kernel, where lhs features act as the batch and the
    # batch is contracted; feature groups become batch groups and vice versa.
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    n = len(lhs_spec) - 2
    pads = []
    for d in range(n):
        size = aval_of(lhs).shape[lhs_spec[2 + d]]
        k = rhs_aval.shape[rhs_spec[2 + d]]
        out_size = aval_of(ct).shape[out_spec[2 + d]]
        needed = (k - 1) * rhs_dilation[d] + dilate_dim(out_size, window_strides[d])
        low = padding[d][0]
        pads.append((low, needed - low - dilate_dim(size, lhs_dilation[d])))
    ct_dtype = aval_of(ct).dtype
    if aval_of(lhs).dtype != ct_dtype:
        lhs = convert_element_type(lhs, ct_dtype)
    result = bind(
        "stablehlo.convolution",
        lhs,
        ct,
        window_strides=tuple(rhs_dilation),
        padding=tuple(pads),
        lhs_dilation=tuple(lhs_dilation),
        rhs_dilation=tuple(window_strides),
        dimension_numbers=ConvDimensionNumbers(
            _swap_roles(lhs_spec), _swap_roles(out_spec), _swap_roles(rhs_spec)
        ),
        feature_group_count=batch_group_count,
        batch_group_count=feature_group_count,
        precision=precision,
        preferred_element_type=None,
    )
    if aval_of(result).dtype != rhs_aval.dtype:
        result = convert_element_type(result, rhs_aval.dtype)
    return result


# --- batching -------------------------------------------------------------------------------------


def _fold_batch(x, bdim: int, axis: int, groups: int = 1):
    """Merges batch dim `bdim` of x into its `axis` (an index of the unbatched layout).

    The batch becomes the major part of each of the axis' `groups` contiguous groups: the
    merged axis is laid out (groups, batch, size // groups).
    """
    x = moveaxis(x, bdim, axis)
    shape = aval_of(x).shape
    batch, size = shape[axis], shape[axis + 1]
    before, after = shape[:axis], shape[axis + 2 :]
    if groups > 1:
        x = reshape(x, (*before, batch, groups, size // groups, *after))
        x = moveaxis(x, axis + 1, axis)
    return reshape(x, (*before, batch * size, *after))


def _unfold_batch(x, axis: int, batch: int, groups: int = 1):
    """The inverse of `_fold_batch` on a result: `axis` splits into (batch, the rest), with the
    batch as a new dimension at `axis`."""
    shape = aval_of(x).shape
    size = shape[axis] // batch
    before, after = shape[:axis], shape[axis + 1 :]
    if groups > 1:
        x = reshape(x, (*before, groups, batch, size // groups, *after))
        x = moveaxis(x, axis + 1, axis)
    return reshape(x, (*before, batch, size, *after))


def _drop_axis(aval: ShapedArray, axis: int) -> ShapedArray:
    return ShapedArray(aval.shape[:axis] + aval.shape[axis + 1 :], aval.dtype)


def _conv_batch(values, dims, *, axis_size, **params):
    # Still one convolution: a batched lhs folds the vmap axis into the conv's batch, a batched
    # rhs into its output features, and both batched into feature (or batch) groups, one group
    # of features per example.
    (lhs, rhs), (lhs_dim, rhs_dim) = values, dims
    if axis_size == 0:  # nothing to fold: an empty batch of one example's result
        examples = [
            aval_of(x) if d is None else _drop_axis(aval_of(x), d) for x, d in zip(values, dims)
        ]
        out = _conv_rule(*examples, **params)
        return full((0, *out.shape), 0, out.dtype), 0
    lhs_spec, rhs_spec, out_spec = params["dimension_numbers"]
    feature_groups, batch_groups = params["feature_group_count"], params["batch_group_count"]
    if lhs_dim is not None and rhs_dim is not None:
        if batch_groups > 1:
            lhs = _fold_batch(lhs, lhs_dim, lhs_spec[0])
            params = dict(params, batch_group_count=batch_groups * axis_size)
        else:
            lhs = _fold_batch(lhs, lhs_dim, lhs_spec[1])
            params = dict(params, feature_group_count=feature_groups * axis_size)
        rhs = _fold_batch(rhs, rhs_dim, rhs_spec[0])
        out = bind("stablehlo.convolution", lhs, rhs, **params)
        return _unfold_batch(out, out_spec[1], axis_size), out_spec[1]
    if lhs_dim is not None:
        lhs = _fold_batch(lhs, lhs_dim, lhs_spec[0], batch_groups)
        out = bind("stablehlo.convolution", lhs, rhs, **params)
        return _unfold_batch(out, out_spec[0], axis_size), out_spec[0]
    groups = max(feature_groups, batch_groups)  # either splits the output features
    rhs = _fold_batch(rhs, rhs_dim, rhs_spec[0], groups)
    out = bind("stablehlo.convolution", lhs, rhs, **params)
    return _unfold_batch(out, out_spec[1], axis_size, groups), out_spec[1]


def_op(
    "stablehlo.convolution",
    _conv_rule,
    _conv_lowering,
    decode=_conv_decode,
    jvp=_conv_jvp,
    transpose=_conv_transpose_rule,
    batch=_conv_batch,
)
