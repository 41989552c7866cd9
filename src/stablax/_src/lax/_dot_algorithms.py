"""The types that describe how precisely XLA may compute: dot algorithms (`DotAlgorithm`,
`DotAlgorithmPreset`) and the accuracy of transcendental functions (`Tolerance`,
`AccuracyMode`), plus the `DotDimensionNumbers` and `PrecisionLike` annotations."""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Sequence
from typing import Any, Union

import ml_dtypes
import numpy as np


class Precision(enum.Enum):
    """XLA's matmul precision: DEFAULT (fastest), HIGH, HIGHEST (full float32 on TPU/GPU)."""

    DEFAULT = "DEFAULT"
    HIGH = "HIGH"
    HIGHEST = "HIGHEST"

    def __str__(self) -> str:
        return self.name


# ((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))
DotDimensionNumbers = tuple[
    tuple[Sequence[int], Sequence[int]], tuple[Sequence[int], Sequence[int]]
]


@dataclasses.dataclass(frozen=True)
class DotAlgorithm:
    """An explicit dot algorithm: the precision the operands are rounded to, the accumulation
    type, and how many products of split components are summed."""

    lhs_precision_type: Any
    rhs_precision_type: Any
    accumulation_type: Any
    lhs_component_count: int = 1
    rhs_component_count: int = 1
    num_primitive_operations: int = 1
    allow_imprecise_accumulation: bool = False


_BF16 = np.dtype(ml_dtypes.bfloat16)


class DotAlgorithmPreset(enum.Enum):
    """Named dot algorithms: `<lhs>_<rhs>_<accumulation>[_X<passes>]`. DEFAULT lets the backend
    choose; ANY_F8 presets take float8 operands; TF32 presets are GPU-only."""

    DEFAULT = enum.auto()
    ANY_F8_ANY_F8_F32 = enum.auto()
    ANY_F8_ANY_F8_F32_FAST_ACCUM = enum.auto()
    ANY_F8_ANY_F8_ANY = enum.auto()
    ANY_F8_ANY_F8_ANY_FAST_ACCUM = enum.auto()
    F16_F16_F16 = enum.auto()
    F16_F16_F32 = enum.auto()
    BF16_BF16_BF16 = enum.auto()
    BF16_BF16_F32 = enum.auto()
    BF16_BF16_F32_X3 = enum.auto()
    BF16_BF16_F32_X6 = enum.auto()
    BF16_BF16_F32_X9 = enum.auto()
    TF32_TF32_F32 = enum.auto()
    TF32_TF32_F32_X3 = enum.auto()
    F32_F32_F32 = enum.auto()
    F64_F64_F64 = enum.auto()

    def __repr__(self) -> str:
        return f"DotAlgorithmPreset.{self.name}"

    __str__ = lambda self: self.name  # noqa: E731

    @property
    def supported_lhs_types(self) -> tuple[type, ...] | None:
        """The operand types this preset accepts (None: any)."""
        return _TABLE[self][0]

    supported_rhs_types = supported_lhs_types

    @property
    def accumulation_type(self) -> type | None:
        """The type products are summed in (None: the backend's choice)."""
        return _TABLE[self][1]

    def supported_output_types(self, lhs_dtype: Any, rhs_dtype: Any) -> tuple[type, ...] | None:
        """The output types this preset can produce for these operand dtypes (None: any)."""
        outputs = _TABLE[self][2]
        if self is DotAlgorithmPreset.BF16_BF16_F32 and np.dtype(lhs_dtype) == _BF16:
            return (*outputs, _BF16.type)
        return outputs


_F8_OUTPUTS = (np.float32, np.float16, ml_dtypes.bfloat16, *(
    getattr(ml_dtypes, n) for n in (
        "float8_e4m3fn", "float8_e5m2", "float8_e5m2fnuz", "float8_e4m3fnuz", "float8_e4m3b11fnuz"
    )
))  # fmt: skip
_P = DotAlgorithmPreset
_BF = ml_dtypes.bfloat16
# preset -> (operand types, accumulation type, output types), as JAX 0.10.2 reports them.
_TABLE: dict[DotAlgorithmPreset, tuple] = {
    _P.DEFAULT: (None, None, None),
    _P.ANY_F8_ANY_F8_F32: (None, np.float32, _F8_OUTPUTS),
    _P.ANY_F8_ANY_F8_F32_FAST_ACCUM: (None, np.float32, _F8_OUTPUTS),
    _P.ANY_F8_ANY_F8_ANY: (None, None, None),
    _P.ANY_F8_ANY_F8_ANY_FAST_ACCUM: (None, None, None),
    _P.F16_F16_F16: ((np.float16,), np.float16, (np.float16,)),
    _P.F16_F16_F32: ((np.float16,), np.float32, (np.float32,)),
    _P.BF16_BF16_BF16: ((_BF, np.float32), _BF, (_BF,)),
    _P.BF16_BF16_F32: ((_BF, np.float32), np.float32, (np.float32,)),
    _P.BF16_BF16_F32_X3: ((np.float32,), np.float32, (np.float32,)),
    _P.BF16_BF16_F32_X6: ((np.float32,), np.float32, (np.float32,)),
    _P.BF16_BF16_F32_X9: ((np.float32,), np.float32, (np.float32,)),
    _P.TF32_TF32_F32: ((np.float32,), np.float32, (np.float32,)),
    _P.TF32_TF32_F32_X3: ((np.float32,), np.float32, (np.float32,)),
    _P.F32_F32_F32: ((np.float32,), np.float32, (np.float32,)),
    _P.F64_F64_F64: ((np.float64,), np.float64, (np.float64,)),
}

# What `precision=` accepts in dot_general, conv and friends.
PrecisionLike = Union[  # noqa: UP007
    None, str, Precision, tuple[str, str], tuple[Precision, Precision], DotAlgorithm,
    DotAlgorithmPreset,
]  # fmt: skip


class AccuracyMode(enum.Enum):
    """Accuracy requested of a transcendental function: the most accurate implementation, or
    the backend's default."""

    HIGHEST = 1
    DEFAULT = 2


@dataclasses.dataclass(frozen=True)
class Tolerance:
    """An error bound for a transcendental function: |result - exact| <= atol + rtol * |exact|,
    or within `ulps` units in the last place."""

    atol: float = 0.0
    rtol: float = 0.0
    ulps: int = 0

    def __post_init__(self) -> None:
        if self.atol < 0 or self.rtol < 0 or self.ulps < 0:
            raise ValueError("Tolerances must be non-negative.")
        if self.atol == 0 and self.rtol == 0 and self.ulps == 0:
            raise ValueError("At least one of atol, rtol, or ulps must be set.")


__all__ = [
    "AccuracyMode",
    "DotAlgorithm",
    "DotAlgorithmPreset",
    "DotDimensionNumbers",
    "PrecisionLike",
    "Tolerance",
]
