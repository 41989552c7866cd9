"""Contractions: `dot_general` (`stablehlo.dot_general`) and its `dot` convenience."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from stablax._src import dtypes, runtime
from stablax._src import ir as mlir
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.config import config
from stablax._src.dispatch import bind
from stablax._src.interpreters.ad import is_undefined
from stablax._src.ir import ir
from stablax._src.lax._dot_algorithms import DotAlgorithm, DotAlgorithmPreset, Precision
from stablax._src.lax._elementwise import add
from stablax._src.lax._elementwise_common import ANY, check_dtype
from stablax._src.lax._shapes import convert_element_type, transpose
from stablax._src.op_rules import def_op

_PRECISION_NAMES = {
    "default": Precision.DEFAULT,
    "fastest": Precision.DEFAULT,
    "bfloat16": Precision.DEFAULT,
    "high": Precision.HIGH,
    "tensorfloat32": Precision.HIGH,
    "bfloat16_3x": Precision.HIGH,
    "highest": Precision.HIGHEST,
    "float32": Precision.HIGHEST,
}


def canonicalize_precision(precision: Any) -> tuple[Precision, Precision] | None:
    """None, a name, a Precision or a pair of them -> a hashable pair (or None for the default)."""
    if precision is None:
        name = config.jax_default_matmul_precision
        if name is None:
            return None
        precision = name
    if isinstance(precision, str):
        try:
            p = _PRECISION_NAMES[precision.lower()]
        except KeyError:
            raise ValueError(f"lax.dot_general: unknown precision {precision!r}") from None
        return (p, p)
    if isinstance(precision, Precision):
        return (precision, precision)
    if isinstance(precision, (tuple, list)) and len(precision) == 2:
        pair = tuple(
            canonicalize_precision(p)[0] if p is not None else Precision.DEFAULT for p in precision
        )
        return pair  # type: ignore[return-value]
    raise ValueError(
        f"lax.dot_general: precision must be None, a name, Precision or a pair, got {precision!r}"
    )


def _shape(x: Any) -> tuple:
    # NumPy's shape of what is no array (None: ()), as JAX reads it for the default numbers.
    try:
        return aval_of(x).shape
    except TypeError:
        return np.shape(x)


def _default_dims(lhs: Any, rhs: Any) -> tuple:
    """JAX's dimension numbers when none are given: a plain matrix/vector product, else
    ValueError."""
    lhs_shape, rhs_shape = _shape(lhs), _shape(rhs)
    if 1 <= len(lhs_shape) <= 2 and 1 <= len(rhs_shape) <= 2 and lhs_shape[-1] == rhs_shape[0]:
        return (((len(lhs_shape) - 1,), (0,)), ((), ()))
    raise ValueError(
        "lax.dot: dimension_numbers must be given unless the product is a plain matrix-matrix, "
        f"matrix-vector or vector-vector one; got shapes {lhs_shape} and {rhs_shape}"
        f"{mlir.where_suffix()}"
    )


def _dims(dimension_numbers) -> tuple:
    try:
        (lc, rc), (lb, rb) = dimension_numbers
    except (TypeError, ValueError):
        raise ValueError(
            "lax.dot_general: dimension_numbers must be "
            f"(((lhs_contract), (rhs_contract)), ((lhs_batch), (rhs_batch))), got "
            f"{dimension_numbers!r}"
        ) from None
    try:
        return (
            (tuple(map(int, lc)), tuple(map(int, rc))),
            (tuple(map(int, lb)), tuple(map(int, rb))),
        )
    except (TypeError, ValueError):
        raise TypeError(
            "lax.dot_general: dimension_numbers must be "
            f"(((lhs_contract), (rhs_contract)), ((lhs_batch), (rhs_batch))), got "
            f"{dimension_numbers!r}"
        ) from None


def _dot_general_rule(
    lhs: ShapedArray, rhs: ShapedArray, *, dimension_numbers, precision, preferred_element_type
) -> ShapedArray:
    (lc, rc), (lb, rb) = dimension_numbers
    where = mlir.where_suffix()
    check_dtype("dot_general", lhs.dtype, ANY)
    if lhs.dtype != rhs.dtype:
        raise TypeError(
            f"lax.dot_general requires operands of the same dtype, got {lhs.dtype.name} and "
            f"{rhs.dtype.name}{where}"
        )
    for dims, aval, side in (
        (lc, lhs, "lhs"),
        (lb, lhs, "lhs"),
        (rc, rhs, "rhs"),
        (rb, rhs, "rhs"),
    ):
        if any(not 0 <= d < aval.ndim for d in dims):
            raise TypeError(
                f"lax.dot_general: {side} dimension numbers {dims} out of range for "
                f"{aval.str_short()}{where}"
            )
    if len(set(lc + lb)) != len(lc + lb) or len(set(rc + rb)) != len(rc + rb):
        raise TypeError(f"lax.dot_general: repeated dimensions in {dimension_numbers}{where}")
    if len(lc) != len(rc) or len(lb) != len(rb):
        raise TypeError(
            f"lax.dot_general: contracting/batch dimension counts differ in {dimension_numbers}"
            f"{where}"
        )
    for lhs_dims, rhs_dims, kind in ((lc, rc, "contracting"), (lb, rb, "batch")):
        for a, b in zip(lhs_dims, rhs_dims, strict=True):
            if lhs.shape[a] != rhs.shape[b]:
                raise TypeError(
                    f"lax.dot_general requires {kind} dimensions to have the same shape, got "
                    f"{lhs.str_short()} and {rhs.str_short()} with dimension_numbers "
                    f"{dimension_numbers}{where}"
                )
    batch = tuple(lhs.shape[d] for d in lb)
    lhs_free = tuple(s for i, s in enumerate(lhs.shape) if i not in lc and i not in lb)
    rhs_free = tuple(s for i, s in enumerate(rhs.shape) if i not in rc and i not in rb)
    dtype = lhs.dtype if preferred_element_type is None else preferred_element_type
    weak = lhs.weak_type and rhs.weak_type and preferred_element_type is None
    return ShapedArray(batch + lhs_free + rhs_free, dtype, weak)


def _dot_general_lowering(
    operands, in_avals, out_avals, *, dimension_numbers, precision, preferred_element_type
):
    (lc, rc), (lb, rb) = dimension_numbers
    attrs = {
        "dot_dimension_numbers": mlir.stablehlo.DotDimensionNumbers.get(
            lhs_batching_dimensions=list(lb),
            rhs_batching_dimensions=list(rb),
            lhs_contracting_dimensions=list(lc),
            rhs_contracting_dimensions=list(rc),
        )
    }
    attrs.update(precision_config(precision))
    op = mlir.emit("stablehlo.dot_general", operands, [mlir.aval_type(out_avals[0])], attrs)
    return list(op.results)


def precision_config(precision: tuple[Precision, ...] | None) -> dict[str, ir.Attribute]:
    """The `precision_config` attribute of a dot or a convolution: none for `precision=None`."""
    if precision is None:
        return {}
    return {
        "precision_config": ir.ArrayAttr.get(
            [mlir.stablehlo.PrecisionAttr.get(p.value) for p in precision]
        )
    }


def decode_precision(op: Any) -> tuple[Precision, ...] | None:
    """The inverse of `precision_config`."""
    if "precision_config" not in op.attributes:
        return None
    return tuple(
        Precision(mlir.stablehlo.PrecisionAttr(a).value)
        for a in ir.ArrayAttr(op.attributes["precision_config"])
    )


def decode_preferred_element_type(op: Any) -> np.dtype | None:
    """A dot's or convolution's `preferred_element_type`: its result dtype where that is not
    its first operand's."""
    out_dtype = mlir.dtype_of_type(op.results[0].type)
    return None if out_dtype == mlir.dtype_of_type(op.operands[0].type) else out_dtype


# --- decoder, derivatives and batching ------------------------------------------------------------


def _decode_dot_general(op: Any) -> dict[str, Any]:
    dn = mlir.stablehlo.DotDimensionNumbers(op.attributes["dot_dimension_numbers"])
    dims = (
        (tuple(dn.lhs_contracting_dimensions), tuple(dn.rhs_contracting_dimensions)),
        (tuple(dn.lhs_batching_dimensions), tuple(dn.rhs_batching_dimensions)),
    )
    return {
        "dimension_numbers": dims,
        "precision": decode_precision(op),
        "preferred_element_type": decode_preferred_element_type(op),
    }


def _ranges_like(*groups: Sequence[int]) -> list[list[int]]:
    start, out = 0, []
    for g in groups:
        out.append(list(range(start, start + len(g))))
        start += len(g)
    return out


def _remaining(n: int, *taken: Sequence[int]) -> list[int]:
    used = {i for group in taken for i in group}
    return [i for i in range(n) if i not in used]


def _transpose_lhs(
    ct, x_aval, y, dimension_numbers, precision, preferred_element_type, swap_ans=False
):
    # The cotangent of x: contract ct with y over y's free dims, then restore x's axis order.
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    y_ndim = y.aval.ndim
    x_kept = _remaining(x_aval.ndim, x_contract, x_batch)
    y_kept = _remaining(y_ndim, y_contract, y_batch)
    if swap_ans:
        ans_batch, ans_y, _ = _ranges_like(x_batch, y_kept, x_kept)
    else:
        ans_batch, _, ans_y = _ranges_like(x_batch, x_kept, y_kept)
    dims = ((tuple(ans_y), tuple(y_kept)), (tuple(ans_batch), tuple(y_batch)))
    order = np.argsort(y_contract) if len(y_contract) else np.array([], int)
    x_contract_by_y = [x_contract[i] for i in order]
    out_axes = np.argsort([*x_batch, *x_kept, *x_contract_by_y])
    x_bar = dot_general(ct, y, dims, precision, preferred_element_type=None)
    x_bar = transpose(x_bar, tuple(int(a) for a in out_axes))
    if x_bar.aval.dtype != x_aval.dtype:
        x_bar = convert_element_type(x_bar, x_aval.dtype)
    return x_bar


def _dot_general_transpose(ct, lhs, rhs, *, dimension_numbers, precision, preferred_element_type):
    (lc, rc), (lb, rb) = dimension_numbers
    if is_undefined(lhs) and is_undefined(rhs):
        raise ValueError("[transpose] dot_general is not linear in both operands at once")
    if is_undefined(lhs):
        if ct.aval.dtype != rhs.aval.dtype:
            ct = convert_element_type(ct, rhs.aval.dtype)
        return [_transpose_lhs(ct, lhs.aval, rhs, dimension_numbers, precision, None), None]
    if ct.aval.dtype != lhs.aval.dtype:
        ct = convert_element_type(ct, lhs.aval.dtype)
    swapped = ((rc, lc), (rb, lb))
    return [None, _transpose_lhs(ct, rhs.aval, lhs, swapped, precision, None, swap_ans=True)]


def _dot_general_jvp(primals, tangents, *, dimension_numbers, precision, preferred_element_type):
    lhs, rhs = primals
    t_lhs, t_rhs = tangents
    kwargs = {"precision": precision, "preferred_element_type": preferred_element_type}
    out = dot_general(lhs, rhs, dimension_numbers, **kwargs)
    terms = []
    if t_lhs is not None:
        terms.append(dot_general(t_lhs, rhs, dimension_numbers, **kwargs))
    if t_rhs is not None:
        terms.append(dot_general(lhs, t_rhs, dimension_numbers, **kwargs))
    tangent = terms[0] if len(terms) == 1 else add(terms[0], terms[1])
    return out, tangent


def _dot_general_batch(values, dims, *, axis_size, dimension_numbers, **params):
    # Two batched operands: the vmap axis becomes one more dot batch dimension (the last one, so
    # nothing moves). One batched operand: the vmap axis is one more free dimension of it.
    (lhs, rhs), (lhs_dim, rhs_dim) = values, dims
    (lc, rc), (lb, rb) = dimension_numbers

    def past(axes, bdim):
        return axes if bdim is None else tuple(a + (a >= bdim) for a in axes)

    def free_before(bdim, contracting, batch):
        return sum(1 for a in range(bdim) if a not in contracting and a not in batch)

    lc, lb, rc, rb = past(lc, lhs_dim), past(lb, lhs_dim), past(rc, rhs_dim), past(rb, rhs_dim)
    if lhs_dim is not None and rhs_dim is not None:
        lb, rb, out_dim = (*lb, lhs_dim), (*rb, rhs_dim), len(lb)
    elif lhs_dim is not None:
        out_dim = len(lb) + free_before(lhs_dim, lc, lb)
    else:
        lhs_free = aval_of(lhs).ndim - len(lc) - len(lb)
        out_dim = len(lb) + lhs_free + free_before(rhs_dim, rc, rb)
    out = bind("stablehlo.dot_general", lhs, rhs, dimension_numbers=((lc, rc), (lb, rb)), **params)
    return out, out_dim


def_op(
    "stablehlo.dot_general",
    _dot_general_rule,
    _dot_general_lowering,
    decode=_decode_dot_general,
    jvp=_dot_general_jvp,
    transpose=_dot_general_transpose,
    batch=_dot_general_batch,
)


def dot_general(
    lhs: Any,
    rhs: Any,
    dimension_numbers: Any,
    precision: Any = None,
    preferred_element_type: Any = None,
    out_sharding: Any = None,
) -> Any:
    """General tensor contraction (`stablehlo.dot_general`).

    Args:
      lhs, rhs: arrays; of different dtypes, both are converted to the result dtype (the more
        precise of the two as XLA ranks them, or `preferred_element_type`).
      dimension_numbers: `((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))`.
      precision: None, 'default'/'high'/'highest', a `Precision`, or a pair of them.
      preferred_element_type: the accumulation and output dtype, if not the inputs' dtype.
      out_sharding: None, or a sharding on stablax's one device (where every result lives, so
        it does not change the result).

    Returns:
      batch dims, then lhs free dims, then rhs free dims.
    """
    # JAX's order: the default dimension numbers, the sharding, the dimension numbers' form,
    # then the preferred type.
    if dimension_numbers is None:  # as JAX (dot_general is dot with dimension numbers)
        dimension_numbers = _default_dims(lhs, rhs)
    runtime.check_sharding(out_sharding, "lax.dot_general")
    numbers = _dims(dimension_numbers)
    pet = (
        None
        if preferred_element_type is None
        else dtypes.canonicalize_dtype(preferred_element_type)
    )
    if isinstance(precision, (DotAlgorithm, DotAlgorithmPreset)):
        return _dot_with_algorithm(lhs, rhs, numbers, precision, pet)
    precision = canonicalize_precision(precision)  # checked before the dtypes, as JAX
    lhs_dtype, rhs_dtype = aval_of(lhs).dtype, aval_of(rhs).dtype
    out_dtype = _result_dtype(lhs_dtype, rhs_dtype, pet)
    # As XLA:CPU: operands of two dtypes both in the result dtype; sub-byte operands too when
    # the result is wider (XLA's verifier rejects a complex result of int4 operands).
    sub_byte = pet is not None and pet != lhs_dtype and dtypes.itemsize_bits(lhs_dtype) < 8
    if lhs_dtype != rhs_dtype or sub_byte:
        lhs, rhs = convert_element_type(lhs, out_dtype), convert_element_type(rhs, out_dtype)
        pet = None
    return bind(
        "stablehlo.dot_general",
        lhs,
        rhs,
        dimension_numbers=numbers,
        precision=precision,
        preferred_element_type=pet,
    )


def _bit_width(dtype: np.dtype) -> int:
    # As XLA: a complex dtype counts the bits of its real part, a boolean one bit.
    if dtypes.issubdtype(dtype, np.inexact):
        return int(dtypes.finfo(dtype).bits)
    return 1 if dtype.kind == "b" else dtypes.itemsize_bits(dtype)


def _precision_rank(dtype: np.dtype) -> tuple:
    # XLA's HigherPrecisionType: complex, exponent range, mantissa, bit width, then signed.
    real = dtypes.finfo(dtype).dtype if dtype.kind == "c" else dtype
    floating = dtypes.issubdtype(real, np.floating)
    return (
        dtype.kind == "c",
        dtypes.finfo(real).maxexp if floating else -1,
        dtypes.finfo(real).nmant if floating else -1,
        _bit_width(real),
        real.kind != "u",
    )


def _result_dtype(lhs: np.dtype, rhs: np.dtype, preferred: np.dtype | None) -> np.dtype:
    """The dtype of a contraction of `lhs` and `rhs` operands (the more precise one, as XLA),
    or `preferred`, which must not be narrower for a non-floating result."""
    lhs_rank, rhs_rank = _precision_rank(lhs), _precision_rank(rhs)
    if lhs != rhs and lhs_rank == rhs_rank:
        raise TypeError(
            f"lax.dot_general: operand dtypes {lhs.name} and {rhs.name} have no common "
            f"result dtype{mlir.where_suffix()}"
        )
    result = lhs if lhs_rank >= rhs_rank else rhs
    if preferred is None or preferred == result:
        return result
    if not dtypes.issubdtype(result, np.floating) and (_bit_width(preferred) < _bit_width(result)):
        raise TypeError(
            f"lax.dot_general: preferred_element_type {preferred.name} is narrower than the "
            f"result dtype {result.name}{mlir.where_suffix()}"
        )
    return preferred


# The presets XLA's CPU backend can honour (it computes them by converting the operands).
_CPU_PRESETS = frozenset(
    DotAlgorithmPreset[n]
    for n in (
        "DEFAULT F16_F16_F16 F32_F32_F32 F64_F64_F64 BF16_BF16_F32 BF16_BF16_F32_X3 "
        "BF16_BF16_F32_X6"
    ).split()
)


def _dot_with_algorithm(lhs, rhs, numbers, algorithm, preferred):
    """dot_general with a DotAlgorithm(Preset): operands converted to the algorithm's input
    types, products accumulated in its accumulation type, as JAX lowers it. The algorithm itself
    is not passed to XLA, which the CPU backend would ignore anyway."""
    if runtime.default_backend() == "cpu" and algorithm not in _CPU_PRESETS:
        raise ValueError(f"The precision '{algorithm}' is not supported by dot_general on CPU")
    a, b = aval_of(lhs), aval_of(rhs)
    out_dtype = preferred if preferred is not None else dtypes.result_type(a.dtype, b.dtype)
    if isinstance(algorithm, DotAlgorithm):
        lhs_t, rhs_t = algorithm.lhs_precision_type, algorithm.rhs_precision_type
        acc_t = algorithm.accumulation_type
    else:
        lhs_t, rhs_t = _supported(a.dtype, algorithm.supported_lhs_types), None
        rhs_t = _supported(b.dtype, algorithm.supported_rhs_types)
        acc_t = _supported(out_dtype, algorithm.supported_output_types(lhs_t, rhs_t))
    lhs = convert_element_type(lhs, lhs_t) if lhs_t is not None else lhs
    rhs = convert_element_type(rhs, rhs_t) if rhs_t is not None else rhs
    acc_t = None if acc_t is None else dtypes.canonicalize_dtype(acc_t)
    out = bind(
        "stablehlo.dot_general",
        lhs,
        rhs,
        dimension_numbers=numbers,
        precision=None,
        preferred_element_type=acc_t,
    )
    return out if aval_of(out).dtype == out_dtype else convert_element_type(out, out_dtype)


def _supported(dtype: np.dtype, allowed: Any) -> Any:
    if allowed is None or np.dtype(dtype) in [np.dtype(t) for t in allowed]:
        return dtype
    return allowed[0]


def dot(
    lhs: Any,
    rhs: Any,
    precision: Any = None,
    preferred_element_type: Any = None,
    *,
    dimension_numbers: Any = None,
    out_sharding: Any = None,
) -> Any:
    """Vector/matrix products of rank-1 or rank-2 operands (contracting lhs's last axis with
    rhs's first), or the contraction `dimension_numbers` gives (as `dot_general`).

    Raises:
      ValueError: without `dimension_numbers`, for operands that are not a plain matrix/vector
        product (as JAX).
    """
    if dimension_numbers is None:
        dimension_numbers = _default_dims(lhs, rhs)
    return dot_general(
        lhs, rhs, dimension_numbers, precision, preferred_element_type, out_sharding=out_sharding
    )
