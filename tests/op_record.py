"""The op-record table: one row per lax operation drives value, jit, (later) grad and vmap tests.

A row names a stablax function, its NumPy reference, the argument shapes and dtypes to try, how
to draw inputs and the tolerance. Family modules under `lax_records/` each export `RECORDS`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import ml_dtypes
import numpy as np

F16, BF16 = np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)
F32, F64 = np.dtype(np.float32), np.dtype(np.float64)
C64, C128 = np.dtype(np.complex64), np.dtype(np.complex128)
I8, I32, I64 = np.dtype(np.int8), np.dtype(np.int32), np.dtype(np.int64)
U8, U32 = np.dtype(np.uint8), np.dtype(np.uint32)
BOOL = np.dtype(np.bool_)

FLOATS = (F32, F16, BF16)
INEXACT = (F32, F16, BF16, C64)
INTS = (I32, I8, U8, U32)
NUMBERS = (F32, F16, BF16, I32, I8, U8, C64)
ALL = (F32, F16, BF16, I32, I8, U8, U32, C64, BOOL)
X64 = (F64, I64, C128)  # tested again with jax_enable_x64 on

# Default tolerances (relative and absolute) per dtype.
TOLERANCE = {F16: 1e-2, BF16: 5e-2, F32: 1e-5, C64: 1e-5, F64: 1e-12, C128: 1e-12}

Generator = Callable[[np.random.Generator, tuple[int, ...], np.dtype], np.ndarray]


def standard(rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """Values a generic op accepts: normals for floats, small integers, random booleans."""
    dtype = np.dtype(dtype)
    if dtype == BOOL:
        return rng.random(shape) < 0.5
    if dtype.kind == "u":
        return rng.integers(0, 10, shape).astype(dtype)
    if dtype.kind == "i":
        return rng.integers(-10, 10, shape).astype(dtype)
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def positive(rng, shape, dtype):
    """Strictly positive values (log, sqrt, ...)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        return standard(rng, shape, dtype)
    if dtype.kind in "iu":
        return rng.integers(1, 10, shape).astype(dtype)
    return rng.uniform(0.1, 3.0, shape).astype(dtype)


def unit_interval(rng, shape, dtype):
    """Values in (-0.9, 0.9) (asin, atanh, erf_inv, ...)."""
    return rng.uniform(-0.9, 0.9, shape).astype(dtype)


def greater_than_one(rng, shape, dtype):
    return rng.uniform(1.1, 4.0, shape).astype(dtype)


def nonzero(rng, shape, dtype):
    """Values away from zero (division, remainder)."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        values = rng.integers(1, 10, shape)
        if dtype.kind == "i":
            values = values * rng.choice([-1, 1], shape)
        return values.astype(dtype)
    if dtype == BOOL:
        return np.ones(shape, bool)
    sign = rng.choice([-1.0, 1.0], shape)
    return (sign * rng.uniform(0.5, 3.0, shape)).astype(dtype)


def small_shift(rng, shape, dtype):
    """Shift amounts valid for every integer width in the tests (0..7)."""
    return rng.integers(0, 8, shape).astype(dtype)


@dataclasses.dataclass(frozen=True)
class OpRecord:
    """One lax operation under test.

    `fun` takes the arrays only (static parameters bound in); `reference` is its NumPy twin.
    `shapes` lists argument-shape tuples, one tuple per case. `inputs` gives one generator per
    argument (or one for all). `exact` compares bitwise (integers, booleans, data movement).
    `differentiable`/`linear` are read by the autodiff tests, `batchable` by the vmap tests.
    """

    name: str
    fun: Callable[..., Any]
    reference: Callable[..., Any]
    shapes: Sequence[tuple[tuple[int, ...], ...]]
    dtypes: Sequence[np.dtype]
    inputs: Generator | Sequence[Generator] = standard
    tol: float | None = None
    exact: bool = False
    differentiable: bool = True
    linear: bool = False
    x64_dtypes: Sequence[np.dtype] = ()
    arg_dtypes: Callable[[np.dtype], Sequence[np.dtype]] | None = None

    def generators(self, nargs: int) -> list[Generator]:
        if callable(self.inputs):
            return [self.inputs] * nargs
        return list(self.inputs)

    def make_args(self, rng: np.random.Generator, shapes, dtype) -> list[np.ndarray]:
        dts = self.arg_dtypes(dtype) if self.arg_dtypes else [dtype] * len(shapes)
        return [
            np.asarray(g(rng, s, d))
            for g, s, d in zip(self.generators(len(shapes)), shapes, dts, strict=True)
        ]

    def tolerance(self, dtype: np.dtype) -> float:
        if self.exact:
            return 0.0
        base = TOLERANCE.get(np.dtype(dtype), 1e-5)
        return base if self.tol is None else max(base, self.tol)


def unary_shapes() -> list[tuple[tuple[int, ...], ...]]:
    return [((),), ((5,),), ((2, 3),), ((2, 0, 3),)]


def binary_shapes() -> list[tuple[tuple[int, ...], ...]]:
    return [((), ()), ((4,), (4,)), ((2, 3), (2, 3)), ((3,), ())]


def all_records() -> list[OpRecord]:
    """The whole table: every family module's RECORDS."""
    import importlib
    import pkgutil

    from tests import lax_records

    records: list[OpRecord] = []
    for info in sorted(pkgutil.iter_modules(lax_records.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"tests.lax_records.{info.name}")
        records.extend(module.RECORDS)
    return records
