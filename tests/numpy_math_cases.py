"""Cases shared by the dtype test and the script that records JAX's dtypes for them.

Each case is (name, function of a numpy-like module and its arguments, arity, input shape); the
module is `stablax.numpy` in tests and `jax.numpy` in scripts/record_numpy_math_dtypes.py.
"""

from __future__ import annotations

import numpy as np

INPUT_KINDS = (
    "bool",
    "int8",
    "uint8",
    "int32",
    "float16",
    "bfloat16",
    "float32",
    "complex64",
    "pyint",
    "pyfloat",
)
# With jax_enable_x64 on, the 64-bit types exist too (tests/data/numpy_math_dtypes_x64.json).
INPUT_KINDS_X64 = (*INPUT_KINDS, "int64", "uint32", "uint64", "float64", "complex128")


def make_input(m, kind: str, seed: int, shape: tuple[int, ...] = (5,)):
    """A small valid input of `kind` (positive values, so every function is defined)."""
    values = np.random.default_rng(seed).integers(1, 5, shape)
    if kind == "pyint":
        return int(values.flat[0])
    if kind == "pyfloat":
        return float(values.flat[0]) + 0.5
    if kind == "bool":
        return m.asarray(values > 2)
    dtype = m.bfloat16 if kind == "bfloat16" else np.dtype(kind)
    return m.asarray(
        values.astype(np.float32).astype(dtype) if kind == "bfloat16" else values.astype(dtype)
    )


_UNARY = [
    "fabs",
    "signbit",
    "sinc",
    "i0",
    "spacing",
    "deg2rad",
    "rad2deg",
    "rint",
    "angle",
    "isneginf",
    "isposinf",
    "isreal",
    "iscomplex",
    "nan_to_num",
    "bitwise_count",
    "frexp",
    "modf",
    "cbrt",
    "exp2",
    "log2",
    "log10",
    "square",
    "reciprocal",
    "positive",
    "trunc",
    "floor",
    "ceil",
    "sign",
    "expm1",
    "log1p",
]
_BINARY = [
    "copysign",
    "heaviside",
    "hypot",
    "gcd",
    "lcm",
    "float_power",
    "fmax",
    "fmin",
    "logaddexp",
    "logaddexp2",
    "isclose",
    "nextafter",
    "fmod",
    "arctan2",
    "allclose",
    "array_equal",
]
_REDUCTIONS = [
    "sum",
    "prod",
    "max",
    "min",
    "mean",
    "var",
    "std",
    "argmax",
    "argmin",
    "ptp",
    "count_nonzero",
    "cumsum",
    "cumprod",
    "nansum",
    "nanprod",
    "nanmean",
    "nanvar",
    "nanmax",
    "nancumsum",
    "median",
    "average",
    "cov",
    "corrcoef",
    "ediff1d",
    "trapezoid",
    "any",
    "all",
    "nanargmax",
    "gradient",
    "unwrap",
]


def _unary(name):
    return lambda m, x: getattr(m, name)(x)


def _binary(name):
    return lambda m, x, y: getattr(m, name)(x, y)


DTYPE_CASES = (
    [(name, _unary(name), 1, (5,)) for name in _UNARY]
    + [(name, _binary(name), 2, (5,)) for name in _BINARY]
    + [(name, _unary(name), 1, (3, 4)) for name in _REDUCTIONS]
    + [
        ("ldexp", lambda m, x: m.ldexp(x, 3), 1, (5,)),
        ("percentile", lambda m, x: m.percentile(x, 30), 1, (3, 4)),
        ("quantile-axis", lambda m, x: m.quantile(x, 0.3, axis=-1), 1, (3, 4)),
        ("diff", lambda m, x: m.diff(x), 1, (3, 4)),
        ("sum-int8", lambda m, x: m.sum(x, promote_integers=False), 1, (3, 4)),
        ("cumulative_sum", lambda m, x: m.cumulative_sum(x, axis=0), 1, (3, 4)),
        ("polyval", lambda m, x: m.polyval(x, x), 1, (5,)),
        ("polyder", lambda m, x: m.polyder(x), 1, (5,)),
        ("polyint", lambda m, x: m.polyint(x), 1, (5,)),
        ("polymul", lambda m, x: m.polymul(x, x), 1, (5,)),
        ("vander", lambda m, x: m.vander(x), 1, (5,)),
        ("convolve", lambda m, x: m.convolve(x, x), 1, (5,)),
        ("interp", lambda m, x: m.interp(x, m.arange(5.0), m.arange(5.0)), 1, (5,)),
        ("select", lambda m, x: m.select([m.arange(5) > 2], [x], 0), 1, (5,)),
        ("searchsorted", lambda m, x: m.searchsorted(m.sort(x), x), 1, (5,)),
        ("digitize", lambda m, x: m.digitize(x, m.sort(x)), 1, (5,)),
        ("argsort", lambda m, x: m.argsort(x), 1, (5,)),
        ("nonzero-size", lambda m, x: m.nonzero(x, size=3), 1, (5,)),
        ("argwhere-size", lambda m, x: m.argwhere(x, size=3), 1, (5,)),
        ("bincount", lambda m, x: m.bincount(m.arange(5), x, length=5), 1, (5,)),
        ("histogram", lambda m, x: m.histogram(x, 3), 1, (5,)),
        ("matrix_rank", lambda m, x: m.linalg.matrix_rank(x), 1, (3, 3)),
        ("det", lambda m, x: m.linalg.det(x), 1, (3, 3)),
        ("inv", lambda m, x: m.linalg.inv(x), 1, (3, 3)),
        ("norm", lambda m, x: m.linalg.norm(x), 1, (3, 3)),
        ("slogdet", lambda m, x: m.linalg.slogdet(x), 1, (3, 3)),
        ("fft", lambda m, x: m.fft.fft(x), 1, (5,)),
        ("rfft", lambda m, x: m.fft.rfft(x), 1, (5,)),
        ("trace", lambda m, x: m.trace(x), 1, (3, 3)),
        ("linspace", lambda m, x: m.linspace(x, x, 3), 1, ()),
        ("true_divide", _binary("true_divide"), 2, (5,)),
        ("power", _binary("power"), 2, (5,)),
        ("floor_divide", _binary("floor_divide"), 2, (5,)),
        ("remainder", _binary("remainder"), 2, (5,)),
        ("exp", _unary("exp"), 1, (5,)),
        ("sin", _unary("sin"), 1, (5,)),
        ("sqrt", _unary("sqrt"), 1, (5,)),
        ("arctan2-self", lambda m, x: m.arctan2(x, x), 1, (5,)),
        ("abs", _unary("abs"), 1, (5,)),
        ("round", _unary("round"), 1, (5,)),
        ("mean-keepdims", lambda m, x: m.mean(x, axis=0, keepdims=True), 1, (3, 4)),
    ]
)
