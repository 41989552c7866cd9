"""Contractions: `dot_general` (`stablehlo.dot_general`) and its `dot` convenience."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any

import numpy as np

from stablax._src import dtypes
from stablax._src import ir as mlir
from stablax._src.config import config
from stablax._src.core import ShapedArray
from stablax._src.dispatch import bind, def_op
from stablax._src.ir import ir
from stablax._src.lax._elementwise import ANY, check_dtype


class Precision(enum.Enum):
    """XLA's matmul precision: DEFAULT (fastest), HIGH, HIGHEST (full float32 on TPU/GPU)."""

    DEFAULT = "DEFAULT"
    HIGH = "HIGH"
    HIGHEST = "HIGHEST"

    def __str__(self) -> str:
        return self.name


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


def _dims(dimension_numbers) -> tuple:
    try:
        (lc, rc), (lb, rb) = dimension_numbers
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
    if precision is not None:
        attrs["precision_config"] = ir.ArrayAttr.get(
            [mlir.stablehlo.PrecisionAttr.get(p.value) for p in precision]
        )
    op = mlir.emit("stablehlo.dot_general", operands, [mlir.aval_type(out_avals[0])], attrs)
    return list(op.results)


def_op("stablehlo.dot_general", _dot_general_rule, _dot_general_lowering)


def dot_general(
    lhs: Any,
    rhs: Any,
    dimension_numbers: Any,
    precision: Any = None,
    preferred_element_type: Any = None,
) -> Any:
    """General tensor contraction (`stablehlo.dot_general`).

    Args:
      lhs, rhs: arrays of the same dtype.
      dimension_numbers: `((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))`.
      precision: None, 'default'/'high'/'highest', a `Precision`, or a pair of them.
      preferred_element_type: the accumulation and output dtype, if not the inputs' dtype.

    Returns:
      batch dims, then lhs free dims, then rhs free dims.
    """
    pet = (
        None
        if preferred_element_type is None
        else dtypes.canonicalize_dtype(preferred_element_type)
    )
    return bind(
        "stablehlo.dot_general",
        lhs,
        rhs,
        dimension_numbers=_dims(dimension_numbers),
        precision=canonicalize_precision(precision),
        preferred_element_type=pet,
    )


def dot(lhs: Any, rhs: Any, precision: Any = None, preferred_element_type: Any = None) -> Any:
    """Vector/matrix products of rank-1 or rank-2 operands (contracting lhs's last axis)."""
    lhs_ndim, rhs_ndim = (
        np.ndim(lhs) if not hasattr(lhs, "aval") else lhs.aval.ndim,
        (np.ndim(rhs) if not hasattr(rhs, "aval") else rhs.aval.ndim),
    )
    if lhs_ndim not in (1, 2) or rhs_ndim not in (1, 2):
        raise TypeError(
            f"lax.dot requires rank-1 or rank-2 operands, got ranks {lhs_ndim} and {rhs_ndim}"
            f"{mlir.where_suffix()}"
        )
    dims: Sequence = (((lhs_ndim - 1,), (0,)), ((), ()))
    return dot_general(lhs, rhs, dims, precision, preferred_element_type)
