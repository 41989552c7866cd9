"""Convolution layouts and shapes: dimension numbers from layout strings, and output shapes.

Dimension numbers name each operand's layout: `('NCHW', 'OIHW', 'NCHW')` strings, or a
`ConvDimensionNumbers` of index tuples (batch, feature, spatial... for lhs and out; out-feature,
in-feature, spatial... for rhs).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import NamedTuple

from stablax._src import ir as mlir
from stablax._src.lax._argcheck import int_sequence
from stablax._src.lax._windowed import normalize_padding


class ConvDimensionNumbers(NamedTuple):
    """Operand layouts as dimension indices: lhs/out (batch, feature, spatial...), rhs
    (out feature, in feature, spatial...)."""

    lhs_spec: tuple[int, ...]
    rhs_spec: tuple[int, ...]
    out_spec: tuple[int, ...]


ConvGeneralDilatedDimensionNumbers = tuple[str, str, str] | ConvDimensionNumbers | None


def _error(opname: str, message: str, kind: type = TypeError) -> Exception:
    return kind(f"lax.{opname}: {message}{mlir.where_suffix()}")


# --- dimension numbers -------------------------------------------------------------------------


def conv_general_permutations(
    dimension_numbers: tuple[str, str, str], opname: str = "conv_general_permutations"
) -> tuple[tuple[int, ...], ...]:
    """Index permutations for layout strings such as `('NHWC', 'HWIO', 'NHWC')`.

    Spatial dimensions are ordered as they appear in the rhs string.
    """
    try:
        lhs, rhs, out = (str(s) for s in dimension_numbers)
    except (TypeError, ValueError):
        raise _error(
            opname, f"dimension_numbers must be three layout strings, got {dimension_numbers!r}"
        ) from None
    for spec, (a, b) in ((lhs, "NC"), (rhs, "OI"), (out, "NC")):
        if spec.count(a) != 1 or spec.count(b) != 1 or len(set(spec)) != len(spec):
            raise _error(
                opname,
                f"layout {spec!r} must name {a!r} and {b!r} once each and "
                f"repeat no dimension, in {dimension_numbers!r}",
            )
    spatial = [c for c in rhs if c not in "OI"]
    if not set(lhs) - set("NC") == set(spatial) == set(out) - set("NC"):
        raise _error(
            opname,
            "dimension_numbers elements must each have the same set of spatial "
            f"characters, got {dimension_numbers!r}",
        )
    return (
        (lhs.index("N"), lhs.index("C"), *(lhs.index(c) for c in spatial)),
        (rhs.index("O"), rhs.index("I"), *(rhs.index(c) for c in spatial)),
        (out.index("N"), out.index("C"), *(out.index(c) for c in spatial)),
    )


def conv_dimension_numbers(
    lhs_shape: Sequence[int],
    rhs_shape: Sequence[int],
    dimension_numbers: ConvGeneralDilatedDimensionNumbers,
    opname: str = "conv_dimension_numbers",
) -> ConvDimensionNumbers:
    """`ConvDimensionNumbers` for layout strings, an existing one, or None (`NCHW`/`OIHW`)."""
    lhs_shape = int_sequence(lhs_shape, "lhs_shape", f"lax.{opname}")
    rhs_shape = int_sequence(rhs_shape, "rhs_shape", f"lax.{opname}")
    ndim = len(lhs_shape)
    if len(rhs_shape) != ndim:
        raise _error(
            opname,
            f"lhs and rhs must have the same rank, got shapes "
            f"{tuple(lhs_shape)} and {tuple(rhs_shape)}",
        )
    if not isinstance(dimension_numbers, (type(None), tuple, list)):  # JAX's class and order
        raise _error(
            opname,
            "dimension_numbers must be a tuple/list or None, got "
            f"{type(dimension_numbers).__name__}",
        )
    # The public function, as JAX's, gives the default numbers for any rank; a convolution
    # needs rank 2 or more.
    if ndim < 2 and not (dimension_numbers is None and opname == "conv_dimension_numbers"):
        raise _error(opname, f"operands must have rank at least 2, got shape {tuple(lhs_shape)}")
    if dimension_numbers is None:
        default = tuple(range(ndim))
        return ConvDimensionNumbers(default, default, default)
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        specs = dimension_numbers
    elif len(dimension_numbers) == 3 and all(isinstance(s, str) for s in dimension_numbers):
        for spec in dimension_numbers:
            if len(spec) != ndim:
                raise _error(opname, f"layout {spec!r} does not match operands of rank {ndim}")
        specs = conv_general_permutations(dimension_numbers, opname)
    else:
        specs = dimension_numbers
    try:
        specs = ConvDimensionNumbers(*(tuple(operator.index(i) for i in s) for s in specs))
    except (TypeError, ValueError):
        raise _error(
            opname,
            "dimension_numbers must be None, three layout strings or a "
            f"ConvDimensionNumbers, got {dimension_numbers!r}",
        ) from None
    for spec in specs:
        if sorted(spec) != list(range(ndim)):
            raise _error(opname, f"dimension numbers {specs} are not permutations of range({ndim})")
    return specs


# --- shape helpers -----------------------------------------------------------------------------


def conv_shape_tuple(
    lhs_shape: Sequence[int],
    rhs_shape: Sequence[int],
    strides: Sequence[int],
    pads: str | Sequence[tuple[int, int]],
    batch_group_count: int = 1,
) -> tuple[int, ...]:
    """The output shape of an NCHW/OIHW convolution."""
    name = "lax.conv_shape_tuple"
    lhs_shape, rhs_shape = (
        int_sequence(lhs_shape, "lhs_shape", name),
        int_sequence(rhs_shape, "rhs_shape", name),
    )
    strides = int_sequence(strides, "strides", name)
    if not isinstance(pads, str) and hasattr(pads, "__len__") and len(pads) != len(lhs_shape) - 2:
        # explicit pads are counted first, as JAX (TypeError)
        raise _error(
            "conv_shape_tuple", f"expected {len(lhs_shape) - 2} (low, high) pads, got {len(pads)}"
        )
    batch_group_count = operator.index(batch_group_count)
    if batch_group_count < 1 or len(lhs_shape) < 2 or len(strides) != len(lhs_shape) - 2:
        raise ValueError(
            f"{name}: needs shapes of rank >= 2, one stride per spatial dimension and a positive "
            f"batch_group_count, got {lhs_shape}, {rhs_shape}, {strides}, {batch_group_count}"
            f"{mlir.where_suffix()}"
        )
    if len(lhs_shape) != len(rhs_shape):
        raise _error(
            "conv_shape_tuple",
            f"lhs {tuple(lhs_shape)} and rhs {tuple(rhs_shape)} must have the same rank",
        )
    pads = normalize_padding(pads, lhs_shape[2:], rhs_shape[2:], strides, "conv_shape_tuple")
    if len(pads) != len(lhs_shape) - 2:
        raise _error(
            "conv_shape_tuple", f"expected {len(lhs_shape) - 2} (low, high) pads, got {len(pads)}"
        )
    spatial = []
    for size, window, stride, (lo, hi) in zip(
        lhs_shape[2:], rhs_shape[2:], strides, pads, strict=True
    ):
        padded = size + lo + hi
        spatial.append(0 if padded < window else (padded - window) // stride + 1)
    return (lhs_shape[0] // batch_group_count, rhs_shape[0], *spatial)


def conv_general_shape_tuple(
    lhs_shape: Sequence[int],
    rhs_shape: Sequence[int],
    window_strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]],
    dimension_numbers: ConvGeneralDilatedDimensionNumbers,
) -> tuple[int, ...]:
    """The output shape of `conv_general_dilated` without dilations, in the out layout."""
    dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers, "conv_general_shape_tuple")
    lhs_nchw = [lhs_shape[d] for d in dn.lhs_spec]
    rhs_oihw = [rhs_shape[d] for d in dn.rhs_spec]
    out_nchw = conv_shape_tuple(lhs_nchw, rhs_oihw, window_strides, padding)
    return tuple(out_nchw[list(dn.out_spec).index(d)] for d in range(len(out_nchw)))
