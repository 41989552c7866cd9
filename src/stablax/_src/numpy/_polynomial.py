"""NumPy's legacy polynomial functions (coefficients highest power first): polyval, polyadd,
polysub, polymul, polydiv, polyder, polyint, poly, roots, polyfit, vander."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from stablax._src import dtypes, lax
from stablax._src import ir as mlir
from stablax._src.jit import jit as _eager
from stablax._src.numpy._asarray import asarray
from stablax._src.numpy._linalg import eigvals, inv, lstsq
from stablax._src.numpy._math_signal import convolve
from stablax._src.numpy._promotion import promote_dtypes, promote_dtypes_inexact
from stablax._src.numpy._sorting import concrete_value


def _vector(p: Any, name: str) -> Any:
    p = asarray(p)
    if p.aval.ndim != 1:
        raise (TypeError if name == "polyint" else ValueError)(  # JAX's classes
            f"jnp.{name}: input must be 1-D, got shape {p.aval.shape}{mlir.where_suffix()}"
        )
    return p


@_eager
def _polyval(p, x):
    p, x = promote_dtypes(asarray(p), x)
    if p.aval.ndim == 0:
        raise ValueError(f"jnp.polyval: p must be at least 1-D, got shape (){mlir.where_suffix()}")
    # As JAX: coefficients run along p's axis 0; the rest broadcasts with x.
    try:
        shape = np.broadcast_shapes(p.aval.shape[1:], x.aval.shape)
    except ValueError:
        raise ValueError(
            f"jnp.polyval: coefficients of shape {p.aval.shape} do not broadcast with x of shape "
            f"{x.aval.shape}{mlir.where_suffix()}"
        ) from None

    def grow(v):
        return lax.broadcast_in_dim(v, shape, tuple(range(len(shape) - v.aval.ndim, len(shape))))

    x = grow(x)
    out = lax.full_like(x, 0)
    for i in range(p.aval.shape[0]):  # Horner's rule, unrolled: the degree is static
        out = lax.add(lax.mul(out, x), grow(p[i]))
    return lax.convert_element_type(out, out.aval.dtype)


def polyval(p: Any, x: Any, *, unroll: int = 16) -> Any:
    """Evaluates the polynomial with coefficients `p` at `x` (Horner's rule).

    `unroll` is accepted for JAX compatibility; the loop is always fully unrolled here.
    """
    if not isinstance(unroll, (bool, int, np.integer)) or unroll < 0:  # JAX's check and class
        raise ValueError(
            f"jnp.polyval: unroll must be a bool or a non-negative int, got {unroll!r}"
            f"{mlir.where_suffix()}"
        )
    return _polyval(p, x)


def _pad_front(p: Any, size: int) -> Any:
    extra = size - p.aval.shape[0]
    config = [(extra, 0, 0)] + [(0, 0, 0)] * (p.aval.ndim - 1)
    return lax.pad(p, lax.full((), 0, p.aval.dtype), config) if extra else p


def _add_or_sub(a1: Any, a2: Any, combine, name: str) -> Any:
    a1, a2 = promote_dtypes(asarray(a1), asarray(a2))
    a1, a2 = (lax.reshape(a, (1,)) if a.aval.ndim == 0 else a for a in (a1, a2))
    if name == "polysub" and a1.aval.dtype == np.bool_:  # JAX negates a2 first: always refused
        raise TypeError(
            f"jnp.polysub: coefficients of dtype bool cannot be negated{mlir.where_suffix()}"
        )
    # As JAX (`longer.at[-k:].add(shorter)`): coefficients run along axis 0, and the shorter
    # polynomial broadcasts into the last k rows of the longer one (all of them when k is 0,
    # as `-0:` selects everything), and an empty longer one comes back unchanged, unchecked.
    longer = a1 if a1.aval.shape[0] >= a2.aval.shape[0] else a2
    shape = longer.aval.shape
    if 0 in shape:
        return longer
    out = []
    for a in (a1, a2):
        target = (a.aval.shape[0] or shape[0], *shape[1:])
        if a.aval.ndim > len(target) or any(
            d not in (1, t) for d, t in zip(a.aval.shape[::-1], target[::-1], strict=False)
        ):
            raise ValueError(
                f"jnp.{name}: coefficients of shape {a.aval.shape} do not broadcast into "
                f"{target}{mlir.where_suffix()}"
            )
        dims = tuple(range(len(target) - a.aval.ndim, len(target)))
        out.append(_pad_front(lax.broadcast_in_dim(a, target, dims), shape[0]))
    if longer.aval.dtype == np.bool_:  # JAX's scatter-add refuses bool, after the broadcast
        raise TypeError(
            f"jnp.{name}: add does not accept dtype bool; polynomial coefficients must be "
            f"numbers{mlir.where_suffix()}"
        )
    return combine(*out)


@_eager
def polyadd(a1, a2):
    """Sum of two polynomials."""
    return _add_or_sub(a1, a2, lax.add, "polyadd")


@_eager
def polysub(a1, a2):
    """Difference of two polynomials."""
    return _add_or_sub(a1, a2, lax.sub, "polysub")


def _trim_leading_zeros(p: Any, name: str) -> Any:
    hint = f"jnp.{name}: trim_leading_zeros=True needs concrete coefficients (not under jit)"
    values = concrete_value(p, f"jnp.{name}", hint)  # concrete under eager grad too, as JAX
    nonzero = np.flatnonzero(values)
    start = int(nonzero[0]) if nonzero.size else values.shape[0] - 1
    return asarray(p)[start:] if start else asarray(p)


def polymul(a1: Any, a2: Any, *, trim_leading_zeros: bool = False) -> Any:
    """Product of two polynomials (their coefficients' full convolution)."""
    a1, a2 = asarray(a1), asarray(a2)
    a1, a2 = (lax.reshape(a, (1,)) if a.aval.ndim == 0 else _vector(a, "polymul") for a in (a1, a2))
    if trim_leading_zeros and (a1.aval.shape[0] > 1 or a2.aval.shape[0] > 1):
        # as JAX: one coefficient each needs no trimming, so traced ones are fine under jit
        a1, a2 = _trim_leading_zeros(a1, "polymul"), _trim_leading_zeros(a2, "polymul")
    a1, a2 = promote_dtypes_inexact(a1, a2)
    # An empty polynomial is the zero polynomial, as JAX (convolve refuses empty inputs)
    a1, a2 = (lax.full((1,), 0, a.aval.dtype) if a.aval.shape[0] == 0 else a for a in (a1, a2))
    return convolve(a1, a2, mode="full")


@_eager
def _polydiv(u, v):
    u, v = _vector(u, "polydiv"), _vector(v, "polydiv")
    if u.aval.dtype == np.bool_ or v.aval.dtype == np.bool_:
        # XLA folds convert(bool) * inf into a select, giving 0 where IEEE (and JAX) give
        # 0 * inf = NaN: the barrier keeps the converted coefficients opaque.
        u, v = lax.optimization_barrier(tuple(promote_dtypes_inexact(u, v)))
    else:
        u, v = promote_dtypes_inexact(u, v)
    n, m = u.aval.shape[0], v.aval.shape[0]
    if n < m:
        return lax.full((1,), 0, u.aval.dtype), u
    scale = lax.div(lax.full((), 1, u.aval.dtype), v[0])
    quotient = []
    remainder = u
    for k in range(n - m + 1):  # long division, one quotient term per step
        term = lax.mul(remainder[k], scale)
        quotient.append(lax.reshape(term, (1,)))
        shifted = _pad_front(
            lax.pad(lax.mul(v, term), lax.full((), 0, u.aval.dtype), [(0, n - m - k, 0)]), n
        )
        remainder = lax.sub(remainder, shifted)
    # The eliminated leading coefficients are zero by construction: exact zeros, not the
    # rounding residue of u[k] - (u[k] / v[0]) * v[0] (which XLA may fuse into one FMA);
    # times zero, so a non-finite residue (a zero divisor: 0 * inf) stays NaN, as NumPy and JAX.
    head = remainder[: n - m + 1]
    eliminated = lax.add(lax.mul(head, lax.full_like(head, 0)), lax.full_like(head, 0))
    remainder = lax.concatenate([eliminated, remainder[n - m + 1 :]], 0)
    return lax.concatenate(quotient, 0), remainder


def polydiv(u: Any, v: Any, *, trim_leading_zeros: bool = False) -> tuple[Any, Any]:
    """(quotient, remainder) of polynomial division u / v."""
    quotient, remainder = _polydiv(u, v)
    if trim_leading_zeros:
        remainder = _trim_leading_zeros(remainder, "polydiv")
    return quotient, remainder


def _polyder_impl(p, m=1):
    if m < 0:
        raise ValueError(f"jnp.polyder: order of derivative must be positive{mlir.where_suffix()}")
    (p,) = promote_dtypes_inexact(_vector(p, "polyder"))
    for _ in range(m):
        n = p.aval.shape[0]
        if n <= 1:  # as JAX (p[:-m]): no coefficients left (NumPy gives [0])
            return lax.full((0,), 0, p.aval.dtype)
        powers = lax.convert_element_type(lax.rev(lax.iota(np.int32, n - 1), (0,)), p.aval.dtype)
        p = lax.mul(p[: n - 1], lax.add(powers, lax.full_like(powers, 1)))
    return p


_polyder = _eager(_polyder_impl, static_argnames="m")


def polyder(p: Any, m: int = 1) -> Any:
    """The m-th derivative of a polynomial."""
    return _polyder(p, operator.index(m))


def _polyint_impl(p, m=1, k=None):
    if m < 0:
        raise ValueError(f"jnp.polyint: order of integral must be positive{mlir.where_suffix()}")
    # p and k promote together, k = 0 as a weak Python int (JAX's rule). With m = 0, JAX
    # returns the promoted p of any rank: its 1-D check is the integration's concatenation.
    p = asarray(p) if m == 0 else _vector(p, "polyint")
    p, ks = promote_dtypes_inexact(p, 0 if k is None else asarray(k))
    if m == 0:
        return p
    if ks.aval.ndim == 0:
        ks = lax.broadcast_in_dim(ks, (m,), ())
    if ks.aval.shape != (m,):
        raise ValueError(f"jnp.polyint: k must be a scalar or a rank-1 array of length {m}")
    for i in range(m):
        n = p.aval.shape[0]
        divisors = lax.convert_element_type(lax.rev(lax.iota(np.int32, n), (0,)), p.aval.dtype)
        scaled = lax.div(p, lax.add(divisors, lax.full_like(divisors, 1)))
        p = lax.concatenate([scaled, lax.reshape(ks[i], (1,))], 0)
    return p


_polyint = _eager(_polyint_impl, static_argnames="m")


def polyint(p: Any, m: int = 1, k: Any = None) -> Any:
    """The m-th antiderivative, with integration constants `k` (zeros by default)."""
    return _polyint(p, operator.index(m), k)


@_eager
def poly(seq_of_zeros):
    """Coefficients of the monic polynomial with the given roots (or a square matrix's
    characteristic polynomial)."""
    zeros = asarray(seq_of_zeros)
    if zeros.aval.ndim == 0:  # one root, as NumPy
        zeros = lax.reshape(zeros, (1,))
    if zeros.aval.ndim == 2 and zeros.aval.shape[0] == zeros.aval.shape[1] and zeros.aval.shape[0]:
        zeros = eigvals(zeros)
    elif zeros.aval.ndim != 1:
        raise ValueError(
            f"jnp.poly: input must be 1-D or a non-empty square 2-D array{mlir.where_suffix()}"
        )
    (zeros,) = promote_dtypes_inexact(zeros)
    if zeros.aval.shape[0] == 0:  # no roots: the constant 1, a scalar (NumPy's 1.0, JAX's)
        return lax.full((), 1, zeros.aval.dtype)
    coefficients = lax.full((1,), 1, zeros.aval.dtype)
    for i in range(zeros.aval.shape[0]):
        factor = lax.concatenate(
            [lax.full((1,), 1, zeros.aval.dtype), lax.reshape(lax.neg(zeros[i]), (1,))], 0
        )
        coefficients = _full_convolution(coefficients, factor)
    return coefficients


def _full_convolution(a: Any, b: Any) -> Any:
    n, m = a.aval.shape[0], b.aval.shape[0]
    out = lax.full((n + m - 1,), 0, a.aval.dtype)
    for j in range(m):
        shifted = lax.pad(lax.mul(a, b[j]), lax.full((), 0, a.aval.dtype), [(j, m - 1 - j, 0)])
        out = lax.add(out, shifted)
    return out


def _companion_roots(p: Any) -> Any:
    n = p.aval.shape[0] - 1
    if n < 1:
        dtype = p.aval.dtype  # no roots: the complex type of p's precision (complex64 below)
        complex_dtype = (
            dtype if dtype.kind == "c" else np.complex128 if dtype == np.float64 else np.complex64
        )
        return lax.full((0,), 0, complex_dtype)
    first_row = lax.reshape(lax.neg(lax.div(p[1:], p[0])), (1, n))
    rows = lax.broadcasted_iota(np.int32, (n - 1, n), 0)
    cols = lax.broadcasted_iota(np.int32, (n - 1, n), 1)
    below = lax.convert_element_type(lax.eq(rows, cols), p.aval.dtype)
    return eigvals(lax.concatenate([first_row, below], 0))


def roots(p: Any, *, strip_zeros: bool = True) -> Any:
    """Roots of the polynomial with coefficients `p`, as eigenvalues of its companion matrix.

    With `strip_zeros` (the default) leading zeros are removed first, which needs concrete
    coefficients (not under `jit`).
    """
    p = asarray(p)
    if p.aval.ndim == 0:  # a constant polynomial (NumPy and JAX take it as 1-D)
        p = lax.reshape(p, (1,))
    (p,) = promote_dtypes_inexact(_vector(p, "roots"))
    if strip_zeros and p.aval.shape[0] > 1:  # one coefficient has no roots, zero or not
        p = _trim_leading_zeros(p, "roots")
    return _roots(p)


_roots = _eager(_companion_roots)


def _vander_impl(x, N=None, increasing=False):  # noqa: N803 (NumPy's parameter name)
    x = _vector(x, "vander")
    count = x.aval.shape[0] if N is None else N
    if count < 0:
        raise ValueError(f"jnp.vander: N must be nonnegative{mlir.where_suffix()}")
    (x,) = promote_dtypes(x)
    if x.aval.dtype == np.bool_:  # JAX's TypeError (NumPy multiplies booleans as logical and)
        raise TypeError(f"jnp.vander does not accept dtype bool{mlir.where_suffix()}")
    if count == 0:
        return lax.full((x.aval.shape[0], 0), 0, x.aval.dtype)
    columns = lax.broadcast_in_dim(x, (x.aval.shape[0], count), (0,))
    ones = lax.full((x.aval.shape[0], 1), 1, x.aval.dtype)
    powers = lax.cumprod(lax.concatenate([ones, columns[:, : count - 1]], 1), 1)
    return powers if increasing else lax.rev(powers, (1,))


_vander = _eager(_vander_impl, static_argnames=("N", "increasing"))


def vander(x: Any, N: int | None = None, increasing: bool = False) -> Any:  # noqa: N803
    """The Vandermonde matrix: columns are powers of x (decreasing unless `increasing`)."""
    return _vander(x, None if N is None else operator.index(N), bool(increasing))


def _polyfit_impl(x, y, deg, rcond=None, full=False, w=None, cov=False):
    x, y = asarray(x), asarray(y)
    if deg < 0:
        raise ValueError(f"jnp.polyfit: expected deg >= 0{mlir.where_suffix()}")
    # The shapes before the dtypes, JAX's checks in JAX's order
    if x.aval.ndim != 1:
        raise TypeError(
            f"jnp.polyfit: expected 1-D x, got shape {x.aval.shape}{mlir.where_suffix()}"
        )
    if x.aval.shape[0] == 0:
        raise TypeError(f"jnp.polyfit: expected non-empty vector for x{mlir.where_suffix()}")
    if y.aval.ndim not in (1, 2) or y.aval.shape[0] != x.aval.shape[0]:
        raise TypeError(
            "jnp.polyfit: expected 1-D or 2-D y of x's length, got "
            f"{x.aval.shape} and {y.aval.shape}{mlir.where_suffix()}"
        )
    x, y = promote_dtypes_inexact(x, y)
    order = deg + 1
    if rcond is None:
        rcond = x.aval.shape[0] * float(dtypes.finfo(x.aval.dtype).eps)
    lhs = _vander_impl(x, order)
    rhs = y
    if w is not None:
        w = asarray(w)
        if w.aval.ndim != 1 or w.aval.shape[0] != y.aval.shape[0]:  # JAX's checks and class
            raise TypeError(
                f"jnp.polyfit: expected 1-D weights of the same length as y ({y.aval.shape[0]}),"
                f" got shape {w.aval.shape}{mlir.where_suffix()}"
            )
        w = lax.convert_element_type(w, x.aval.dtype)
        lhs = lax.mul(lhs, lax.broadcast_in_dim(w, lhs.aval.shape, (0,)))
        rhs = lax.mul(rhs, lax.broadcast_in_dim(w, rhs.aval.shape, (0,)))
    # Scale the columns to unit norm for a better conditioned least-squares problem.
    scale = lax.sqrt(lax.reduce_sum(lax.mul(lhs, lhs), (0,)))
    lhs = lax.div(lhs, lax.broadcast_in_dim(scale, lhs.aval.shape, (1,)))
    c, residuals, rank, singular = lstsq(lhs, rhs, rcond)
    c = lax.div(c, lax.broadcast_in_dim(scale, c.aval.shape, (0,)))
    if full:
        return c, residuals, rank, singular, lax.full((), rcond, x.aval.dtype)
    if not cov:
        return c
    gram = lax.dot_general(lhs, lhs, (((0,), (0,)), ((), ())), precision=lax.Precision.HIGHEST)
    base = lax.div(
        inv(gram),
        lax.mul(
            lax.broadcast_in_dim(scale, gram.aval.shape, (0,)),
            lax.broadcast_in_dim(scale, gram.aval.shape, (1,)),
        ),
    )
    if cov == "unscaled":
        factor = lax.full_like(residuals, 1)
    else:
        if x.aval.shape[0] <= order:  # JAX's check and class
            raise ValueError(
                "jnp.polyfit: the number of data points must exceed order to scale the "
                f"covariance matrix{mlir.where_suffix()}"
            )
        factor = lax.div(residuals, lax.full_like(residuals, x.aval.shape[0] - order))
    if y.aval.ndim == 1:
        return c, lax.mul(base, lax.reshape(factor, ()) if factor.aval.ndim else factor)
    k = y.aval.shape[1]
    shape = (order, order, k)
    return c, lax.mul(
        lax.broadcast_in_dim(base, shape, (0, 1)), lax.broadcast_in_dim(factor, shape, (2,))
    )


_polyfit = _eager(_polyfit_impl, static_argnames=("deg", "rcond", "full", "cov"))


def polyfit(
    x: Any,
    y: Any,
    deg: int,
    rcond: float | None = None,
    full: bool = False,
    w: Any = None,
    cov: Any = False,
) -> Any:
    """Least-squares fit of a degree-`deg` polynomial to (x, y) (NumPy's `polyfit`).

    Returns the coefficients; with `full`, also (residuals, rank, singular values, rcond); with
    `cov`, the coefficients' covariance matrix ("unscaled" skips the residual scaling).
    """
    return _polyfit(x, y, operator.index(deg), rcond, bool(full), w, cov)


__all__ = [
    "polyval",
    "polyadd",
    "polysub",
    "polymul",
    "polydiv",
    "polyder",
    "polyint",
    "poly",
    "roots",
    "polyfit",
    "vander",
]
