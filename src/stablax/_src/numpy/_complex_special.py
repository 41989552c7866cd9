"""Complex elementary functions at infinities, NaNs and signed zeros, as C99 (Annex G) and the
Array API specify them: XLA's complex kernels drop the sign of zero and return NaN for most
infinite inputs, so the functions here evaluate XLA's kernel on the first quadrant (or the upper
half plane) and map the result back through the function's symmetries, after replacing the
special values with the standard's.

All twelve functions satisfy f(conj(z)) = conj(f(z)); sinh, tanh, asinh and atanh are odd and
cosh is even, so for them the first quadrant |re| + i|im| is enough.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from stablax._src import lax
from stablax._src.numpy._ufuncs_division import sign_bit

Parts = tuple[Any, Any]  # (real part, imaginary part), real arrays of one shape and dtype


def _const(like: Any, value: float) -> Any:
    return lax.full_like(like, value)


def _where(mask: Any, new: Parts, old: Parts) -> Parts:
    return lax.select(mask, new[0], old[0]), lax.select(mask, new[1], old[1])


def _copysign(magnitude: Any, sign_of: Any) -> Any:
    return lax.select(sign_bit(sign_of), lax.neg(lax.abs(magnitude)), lax.abs(magnitude))


def _is_nan(x: Any) -> Any:
    return lax.ne(x, x)


def _is_inf(x: Any) -> Any:
    return lax.eq(lax.abs(x), _const(x, math.inf))


def _is_finite(x: Any) -> Any:
    return lax.is_finite(x)


def _and(*masks: Any) -> Any:
    out = masks[0]
    for m in masks[1:]:
        out = lax.bitwise_and(out, m)
    return out


def _or(*masks: Any) -> Any:
    out = masks[0]
    for m in masks[1:]:
        out = lax.bitwise_or(out, m)
    return out


def _not(mask: Any) -> Any:
    return lax.bitwise_not(mask)


class _Quadrant:
    """Masks of the first-quadrant (or upper-half-plane) argument a + ib, b >= 0."""

    def __init__(self, a: Any, b: Any) -> None:
        self.a, self.b = a, b
        zero = _const(a, 0.0)
        self.a0, self.b0 = lax.eq(a, zero), lax.eq(b, zero)
        self.a_nan, self.b_nan = _is_nan(a), _is_nan(b)
        self.a_inf, self.b_inf = _is_inf(a), _is_inf(b)
        self.a_fin, self.b_fin = _is_finite(a), _is_finite(b)
        self.a_pinf = _and(self.a_inf, lax.gt(a, zero))
        self.a_ninf = _and(self.a_inf, lax.lt(a, zero))
        self.b_bad = _or(self.b_inf, self.b_nan)  # b infinite or NaN

    def c(self, value: float) -> Any:
        return _const(self.a, value)


def _exp(q: _Quadrant, out: Parts, minus_one: bool) -> Parts:
    a, b, c = q.a, q.b, q.c
    nan, inf = c(math.nan), c(math.inf)
    offset = c(1.0 if minus_one else 0.0)
    cos_b, sin_b = lax.cos(b), lax.sin(b)
    zero_cis = (lax.sub(_copysign(c(0.0), cos_b), offset), _copysign(c(0.0), sin_b))
    out = _where(_and(q.a_fin, q.b_bad), (nan, nan), out)
    out = _where(_and(q.a_nan, _not(q.b0)), (nan, nan), out)
    out = _where(_and(q.a_pinf, q.b_bad), (inf, nan), out)
    out = _where(_and(q.a_pinf, q.b_fin), (lax.mul(inf, cos_b), lax.mul(inf, sin_b)), out)
    out = _where(_and(q.a_ninf, q.b_fin), zero_cis, out)
    out = _where(_and(q.a_ninf, q.b_bad), (c(-1.0 if minus_one else 0.0), c(0.0)), out)
    real = lax.expm1(a) if minus_one else lax.exp(a)
    out = _where(q.b0, (real, b), out)
    if minus_one:  # expm1(+-0 + 0j) = +0 + 0j (the Array API; expm1(-0.0) alone is -0)
        out = _where(_and(q.a0, q.b0), (c(0.0), b), out)
    return out


def _log(q: _Quadrant, out: Parts) -> Parts:
    c = q.c
    infinite_nan = _or(_and(q.a_inf, q.b_nan), _and(q.a_nan, q.b_inf))
    return _where(infinite_nan, (c(math.inf), c(math.nan)), out)


def _sqrt(q: _Quadrant, out: Parts) -> Parts:
    a, b, c = q.a, q.b, q.c
    nan, inf, zero = c(math.nan), c(math.inf), c(0.0)
    negative = lax.lt(a, zero)
    on_axis = _and(q.b0, q.a_fin)
    root = lax.sqrt(lax.abs(a))
    out = _where(on_axis, (lax.select(negative, zero, root), lax.select(negative, root, b)), out)
    out = _where(_and(q.a_pinf, q.b_fin), (inf, zero), out)
    out = _where(_and(q.a_pinf, q.b_nan), (inf, nan), out)
    out = _where(_and(q.a_ninf, q.b_fin), (zero, inf), out)
    out = _where(_and(q.a_ninf, q.b_nan), (nan, inf), out)
    return _where(q.b_inf, (inf, inf), out)


def _sinh_or_cosh(q: _Quadrant, out: Parts, cosh: bool) -> Parts:
    a, b, c = q.a, q.b, q.c
    nan, inf, zero = c(math.nan), c(math.inf), c(0.0)
    cos_b, sin_b = lax.cos(b), lax.sin(b)
    finite = _and(q.a_fin, q.b_fin)
    if cosh:  # cosh(a)cos(b) + i sinh(a)sin(b), exact on the axes
        out = _where(_and(finite, q.a0), (cos_b, lax.mul(a, sin_b)), out)
        out = _where(_and(q.a0, q.b_bad), (nan, zero), out)
        out = _where(q.b0, (lax.cosh(a), zero), out)
    else:  # sinh(a)cos(b) + i cosh(a)sin(b)
        out = _where(_and(finite, q.a0), (lax.mul(a, cos_b), sin_b), out)
        out = _where(_and(q.a0, q.b_bad), (zero, nan), out)
        out = _where(q.b0, (lax.sinh(a), zero), out)
    out = _where(_and(q.a_fin, _not(q.a0), q.b_bad), (nan, nan), out)
    out = _where(_and(q.a_inf, q.b_bad), (inf, nan), out)
    out = _where(
        _and(q.a_inf, q.b_fin, _not(q.b0)), (lax.mul(inf, cos_b), lax.mul(inf, sin_b)), out
    )
    return _where(_and(q.a_nan, _not(q.b0)), (nan, nan), out)


def _tanh(q: _Quadrant, out: Parts) -> Parts:
    a, b, c = q.a, q.b, q.c
    nan, zero = c(math.nan), c(0.0)
    out = _where(_and(q.a0, q.b_fin), (zero, lax.tan(b)), out)
    out = _where(_and(q.b0, q.a_fin), (lax.tanh(a), zero), out)
    out = _where(_and(q.a_fin, q.b_bad), (lax.select(q.a0, zero, nan), nan), out)
    out = _where(q.a_nan, (nan, lax.select(q.b0, zero, nan)), out)
    # tanh(inf + ib) = 1 + 0j on the upper half plane (the Array API; C99 has 0 sin(2b))
    return _where(q.a_inf, (c(1.0), zero), out)


def _acos_or_acosh(q: _Quadrant, out: Parts, hyperbolic: bool) -> Parts:
    # acosh(z) = i acos(z) on the upper half plane: compute acos's special values, then rotate.
    c = q.c
    nan, inf, zero, pi = c(math.nan), c(math.inf), c(0.0), c(math.pi)
    special = out if not hyperbolic else (out[1], lax.neg(out[0]))  # acos = -i acosh there
    special = _where(_and(q.a0, q.b0), (c(math.pi / 2), lax.neg(zero)), special)
    special = _where(_and(q.a0, q.b_nan), (c(math.pi / 2), nan), special)
    special = _where(_and(q.a_fin, q.b_inf), (c(math.pi / 2), lax.neg(inf)), special)
    special = _where(_and(q.a_fin, _not(q.a0), q.b_nan), (nan, nan), special)
    special = _where(_and(q.a_ninf, q.b_fin), (pi, lax.neg(inf)), special)
    special = _where(_and(q.a_pinf, q.b_fin), (zero, lax.neg(inf)), special)
    special = _where(_and(q.a_ninf, q.b_inf), (c(3 * math.pi / 4), lax.neg(inf)), special)
    special = _where(_and(q.a_pinf, q.b_inf), (c(math.pi / 4), lax.neg(inf)), special)
    special = _where(_and(q.a_inf, q.b_nan), (nan, lax.neg(inf)), special)
    special = _where(_and(q.a_nan, q.b_fin), (nan, nan), special)
    special = _where(_and(q.a_nan, q.b_inf), (nan, lax.neg(inf)), special)
    special = _where(_and(q.a_nan, q.b_nan), (nan, nan), special)
    if not hyperbolic:
        return special
    # acosh(z) = i acos(z) with the real part kept non-negative: (-im, re), so
    # NaN real parts of acos stay NaN and -inf imaginary parts become +inf real parts.
    real = lax.neg(special[1])
    real = lax.select(_is_nan(real), real, lax.abs(real))
    return real, special[0]


def _asinh(q: _Quadrant, out: Parts) -> Parts:
    c = q.c
    nan, inf, zero = c(math.nan), c(math.inf), c(0.0)
    out = _where(_and(q.a_fin, q.b_inf), (inf, c(math.pi / 2)), out)
    out = _where(_and(q.a_fin, q.b_nan), (nan, nan), out)
    out = _where(_and(q.a_inf, q.b_fin), (inf, zero), out)
    out = _where(_and(q.a_inf, q.b_inf), (inf, c(math.pi / 4)), out)
    out = _where(_and(q.a_inf, q.b_nan), (inf, nan), out)
    out = _where(_and(q.a_nan, q.b0), (nan, zero), out)
    out = _where(_and(q.a_nan, q.b_fin, _not(q.b0)), (nan, nan), out)
    out = _where(_and(q.a_nan, q.b_inf), (inf, nan), out)
    return _where(_and(q.a_nan, q.b_nan), (nan, nan), out)


def _atanh(q: _Quadrant, out: Parts) -> Parts:
    a, c = q.a, q.c
    nan, inf, zero, half_pi = c(math.nan), c(math.inf), c(0.0), c(math.pi / 2)
    out = _where(_and(q.a0, q.b0), (zero, zero), out)
    out = _where(_and(q.a0, q.b_nan), (zero, nan), out)
    out = _where(_and(lax.eq(a, c(1.0)), q.b0), (inf, zero), out)
    out = _where(_and(q.a_fin, q.b_inf), (zero, half_pi), out)
    out = _where(_and(q.a_fin, _not(q.a0), q.b_nan), (nan, nan), out)
    out = _where(_and(q.a_inf, q.b_fin), (zero, half_pi), out)
    out = _where(_and(q.a_inf, q.b_inf), (zero, half_pi), out)
    out = _where(_and(q.a_inf, q.b_nan), (zero, nan), out)
    out = _where(_and(q.a_nan, q.b_fin), (nan, nan), out)
    out = _where(_and(q.a_nan, q.b_inf), (zero, half_pi), out)
    return _where(_and(q.a_nan, q.b_nan), (nan, nan), out)


# name -> (XLA's kernel, symmetry, special values on the reduced argument)
# symmetry: "conj" (upper half plane), "odd" or "even" (first quadrant).
_FUNCTIONS: dict[str, tuple[Callable[[Any], Any], str, Callable[..., Parts]]] = {
    "exp": (lax.exp, "conj", lambda q, out: _exp(q, out, minus_one=False)),
    "expm1": (lax.expm1, "conj", lambda q, out: _exp(q, out, minus_one=True)),
    "log": (lax.log, "conj", _log),
    "log1p": (lax.log1p, "conj", _log),
    "sqrt": (lax.sqrt, "conj", _sqrt),
    "sinh": (lax.sinh, "odd", lambda q, out: _sinh_or_cosh(q, out, cosh=False)),
    "cosh": (lax.cosh, "even", lambda q, out: _sinh_or_cosh(q, out, cosh=True)),
    "tanh": (lax.tanh, "odd", _tanh),
    "acos": (lax.acos, "conj", lambda q, out: _acos_or_acosh(q, out, hyperbolic=False)),
    "acosh": (lax.acosh, "conj", lambda q, out: _acos_or_acosh(q, out, hyperbolic=True)),
    "asinh": (lax.asinh, "odd", _asinh),
    "atanh": (lax.atanh, "odd", _atanh),
}


def complex_function(name: str, z: Any) -> Any:
    """`name` (exp, log, sqrt, sinh, acos, ...) of the complex array `z`, special values
    included."""
    kernel, symmetry, special = _FUNCTIONS[name]
    a, b = lax.real(z), lax.imag(z)
    flip_b = sign_bit(b)
    flip_a = sign_bit(a) if symmetry != "conj" else None
    ra = lax.abs(a) if flip_a is not None else a
    rb = lax.abs(b)
    w = lax.complex(ra, rb)
    base = kernel(w)
    re, im = special(_Quadrant(ra, rb), (lax.real(base), lax.imag(base)))
    if symmetry == "conj":
        return lax.complex(re, lax.select(flip_b, lax.neg(im), im))
    # z = -conj(w) when only a is negative, conj(w) when only b is, -w when both.
    conj = lax.bitwise_xor(flip_a, flip_b)
    im = lax.select(conj, lax.neg(im), im)
    if symmetry == "odd":
        re, im = (lax.select(flip_a, lax.neg(v), v) for v in (re, im))
    return lax.complex(re, im)


def is_complex(x: Any) -> bool:
    return np.dtype(x.aval.dtype).kind == "c"
