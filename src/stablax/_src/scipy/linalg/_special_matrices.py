"""Special matrices of scipy.linalg: block_diag, toeplitz, hankel, circulant, leslie, companion,
fiedler, fiedler_companion, convolution_matrix, hilbert, invhilbert, pascal, invpascal, helmert,
hadamard and dft.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src import dtypes, lax
from stablax._src.jit import jit
from stablax._src.numpy._promotion import promote_args_inexact, promote_dtypes


def _check_arraylike(name: str, *args: Any) -> None:
    for i, a in enumerate(args):
        if not (hasattr(a, "aval") or isinstance(a, (np.ndarray, np.generic, int, float, complex))):
            raise TypeError(
                f"{name} requires ndarray or scalar arguments, got {type(a)} at position {i}."
            )


@jit
def block_diag(*arrs: Any) -> Any:
    """The block-diagonal matrix of the given (at most 2-D) arrays (scipy.linalg.block_diag)."""
    if not arrs:
        arrs = (jnp.zeros((1, 0)),)
    arrs = tuple(promote_dtypes(*arrs))
    bad = [i for i, a in enumerate(arrs) if np.ndim(a) > 2]
    if bad:
        raise ValueError(
            "Arguments to jax.scipy.linalg.block_diag must have at most 2 dimensions, got "
            f"{arrs[bad[0]]} at argument {bad[0]}."
        )
    blocks = [jnp.atleast_2d(a) for a in arrs]
    total = sum(b.shape[1] for b in blocks)
    rows, start = [], 0
    for b in blocks:
        width = b.shape[1]
        rows.append(jnp.pad(b, ((0, 0), (start, total - width - start))))
        start += width
    return jnp.concatenate(rows, axis=0)


def _sliding_windows(v: Any, width: int) -> Any:
    # Row i holds v[i:i + width] (the patches of a 1-D convolution).
    return lax.conv_general_dilated_patches(
        v.reshape((1, v.shape[0], 1)),
        (width,),
        (1,),
        "VALID",
        dimension_numbers=("NTC", "IOT", "NTC"),
        precision=lax.Precision.HIGHEST,
    )[0]


def _toeplitz_1d(c, r):
    rows, cols = c.shape[0], r.shape[0]
    if rows == 0 or cols == 0:
        return jnp.empty((rows, cols), dtype=jnp.promote_types(c.dtype, r.dtype))
    values = jnp.concatenate((c[::-1], r[1:]))
    return jnp.flip(_sliding_windows(values, cols), axis=0)


def toeplitz(c: Any, r: Any = None) -> Any:
    """The Toeplitz matrix with first column c and first row r (scipy.linalg.toeplitz).

    r defaults to conj(c); r[0] is ignored. Leading dimensions of c and r batch.
    """
    if r is None:
        _check_arraylike("toeplitz", c)
        r = jnp.conjugate(jnp.asarray(c))
    else:
        _check_arraylike("toeplitz", c, r)
    c, r = jnp.atleast_1d(jnp.asarray(c)), jnp.atleast_1d(jnp.asarray(r))
    return jnp.vectorize(_toeplitz_1d, signature="(m),(n)->(m,n)")(c, r)


def _hankel_1d(c, r):
    rows, cols = c.shape[0], r.shape[0]
    if rows == 0 or cols == 0:
        return jnp.empty((rows, cols), dtype=jnp.result_type(c, r))
    return _sliding_windows(jnp.concatenate((c, r[1:])), cols)


def hankel(c: Any, r: Any = None) -> Any:
    """The Hankel matrix with first column c and last row r (scipy.linalg.hankel).

    r defaults to zeros; r[0] is ignored. Leading dimensions of c and r batch.
    """
    if r is None:
        _check_arraylike("hankel", c)
        c = jnp.asarray(c)
        r = jnp.zeros_like(c)
    else:
        _check_arraylike("hankel", c, r)
        c, r = jnp.asarray(c), jnp.asarray(r)
    if c.ndim == 0:
        raise ValueError("hankel: c must be at least 1-dimensional, got a scalar.")
    if r.ndim == 0:
        raise ValueError("hankel: r must be at least 1-dimensional, got a scalar.")
    if c.ndim < r.ndim:
        c = lax.expand_dims(c, tuple(range(r.ndim - c.ndim)))
    elif r.ndim < c.ndim:
        r = lax.expand_dims(r, tuple(range(c.ndim - r.ndim)))
    return jnp.vectorize(_hankel_1d, signature="(m),(n)->(m,n)")(c, r)


def _circulant_1d(c):
    n = c.shape[0]
    return c[(jnp.arange(n)[:, None] - jnp.arange(n)[None, :]) % n]


def circulant(c: Any) -> Any:
    """The circulant matrix with first column c (scipy.linalg.circulant); leading axes batch."""
    _check_arraylike("circulant", c)
    return jnp.vectorize(_circulant_1d, signature="(n)->(n,n)")(jnp.atleast_1d(jnp.asarray(c)))


def _leslie_1d(f, s):
    f, s = promote_dtypes(f, s)
    return jnp.diag(s, k=-1).at[0].set(f)


def leslie(f: Any, s: Any) -> Any:
    """The Leslie matrix of fecundities f (n,) and survival rates s (n-1,) (scipy.linalg.leslie)."""
    _check_arraylike("leslie", f, s)
    f, s = jnp.atleast_1d(f), jnp.atleast_1d(s)
    if f.shape[-1] < 2:
        raise ValueError(
            f"The length of f along the last axis must be at least 2; got shape {f.shape}."
        )
    if s.shape[-1] != f.shape[-1] - 1:
        raise ValueError(
            "Incorrect lengths for f and s. The length of s along the last axis must be one less "
            f"than the length of f; got f shape {f.shape} and s shape {s.shape}."
        )
    return jnp.vectorize(_leslie_1d, signature="(n),(m)->(n,n)")(f, s)


def _companion_1d(a):
    first_row = -a[1:] / a[0]
    m = a.shape[0] - 1
    return jnp.eye(m, m, k=-1, dtype=first_row.dtype).at[0].set(first_row)


def companion(a: Any) -> Any:
    """The companion matrix of the polynomial with coefficients a (scipy.linalg.companion)."""
    (a,) = promote_args_inexact("companion", a)
    a = jnp.atleast_1d(a)
    if a.shape[-1] < 2:
        raise ValueError(
            f"The length of `a` along the last axis must be at least 2; got shape {a.shape}."
        )
    return jnp.vectorize(_companion_1d, signature="(n)->(m,m)")(a)


def fiedler(a: Any) -> Any:
    """The symmetric Fiedler matrix |a[i] - a[j]| (scipy.linalg.fiedler)."""
    _check_arraylike("fiedler", a)
    a = jnp.atleast_1d(a)
    return jnp.abs(a[..., None] - a[..., None, :])


def _fiedler_companion_1d(a):
    n = a.shape[0] - 1
    if n == 0:
        return jnp.empty((0, 0), dtype=a.dtype)
    a = a / a[0]
    if n == 1:
        return -a[1:].reshape(1, 1)
    i, j = jnp.arange(n)[:, None], jnp.arange(n)[None, :]
    even, odd = i % 2 == 0, i % 2 == 1
    one, zero = jnp.array(1, dtype=a.dtype), jnp.array(0, dtype=a.dtype)
    conditions = [
        (i == 0) & (j == 0),
        (i == 1) & (j == 0),
        (j == i + 1) & even,
        (j == i + 2) & even,
        (j == i - 1) & even & (i >= 2),
        (j == i - 2) & odd & (i >= 3),
    ]
    choices = [-a[1], one, -a[jnp.minimum(i + 2, n)], one, -a[jnp.minimum(i + 1, n)], one]
    return jnp.select(conditions, choices, default=zero)


def fiedler_companion(a: Any) -> Any:
    """The Fiedler companion matrix of the polynomial a (scipy.linalg.fiedler_companion)."""
    (a,) = promote_args_inexact("fiedler_companion", a)
    a = jnp.atleast_1d(a)
    if a.shape[-1] == 0:
        raise ValueError(
            "fiedler_companion requires the last axis of 'a' to have nonzero length, but got an "
            f"array of shape {a.shape}."
        )
    return jnp.vectorize(_fiedler_companion_1d, signature="(n)->(m,m)")(a)


@jit(static_argnames=("n", "mode"))
def convolution_matrix(a: Any, n: int, mode: str = "full") -> Any:
    """The matrix A with A @ v == convolve(a, v, mode) for v of length n
    (scipy.linalg.convolution_matrix)."""
    n = operator.index(n)
    if n <= 0:
        raise ValueError(f"n must be a positive integer; got {n}.")
    _check_arraylike("convolution_matrix", a)
    a = jnp.asarray(a)
    if a.ndim == 0:
        raise ValueError("convolution_matrix: a must be at least 1-dimensional, got a scalar.")
    m = a.shape[-1]
    if m < 1:
        raise ValueError(f"len(a) must be at least 1; got shape {a.shape}.")
    if mode not in ("full", "valid", "same"):
        raise ValueError(f"mode must be one of 'full', 'valid', 'same'; got {mode!r}.")
    pads = [(0, 0)] * (a.ndim - 1) + [(0, n - 1)]
    padded, reversed_padded = jnp.pad(a, pads), jnp.pad(jnp.flip(a, axis=-1), pads)
    length = m + n - 1
    if mode == "same":
        trim = min(n, m) - 1
        begin, end = trim // 2, trim - trim // 2
    elif mode == "valid":
        begin = end = min(n, m) - 1
    else:
        begin = end = 0
    first_column = lax.slice_in_dim(padded, begin, length - end, axis=-1)
    first_row = lax.slice_in_dim(reversed_padded, length - n - begin, length - begin, axis=-1)
    return toeplitz(first_column, first_row)


@jit(static_argnames=("n",))
def hilbert(n: int) -> Any:
    """The Hilbert matrix 1 / (i + j + 1) (scipy.linalg.hilbert), of the default float dtype."""
    a = lax.broadcasted_iota(dtypes.default_float_dtype(), (n, 1), 0)
    return 1 / (a + a.T + 1)


def _comb(n, k):
    # "n choose k" through the log-gamma function, zero outside 0 <= k <= n.
    valid = (k <= n) & (n >= 0) & (k >= 0)
    n, k = jnp.where(valid, n, 0.0), jnp.where(valid, k, 0.0)
    value = lax.exp(lax.lgamma(n + 1) - lax.lgamma(k + 1) - lax.lgamma(n + 1 - k))
    return jnp.where(valid, value, 0.0)


@jit(static_argnames=("n",))
def invhilbert(n: int) -> Any:
    """The inverse of the n x n Hilbert matrix (scipy.linalg.invhilbert), in floating point."""
    a = jnp.arange(n, dtype=dtypes.default_float_dtype())
    i, j = a[:, None], a[None, :]
    s = i + j
    return (
        (-1.0) ** s
        * (s + 1.0)
        * _comb(n + i, n - j - 1)
        * _comb(n + j, n - i - 1)
        * _comb(s, i) ** 2
    )


def _binomial(n, k):
    return lax.exp(lax.lgamma(n + 1.0) - lax.lgamma(n - k + 1.0) - lax.lgamma(k + 1.0))


def _check_kind(kind: str | None) -> str:
    kind = "symmetric" if kind is None else kind
    valid = ["symmetric", "lower", "upper"]
    if kind not in valid:
        raise ValueError(f"Expected kind to be on of: {valid}; got {kind}")
    return kind


@jit(static_argnames=("n", "kind"))
def pascal(n: int, kind: str | None = None) -> Any:
    """The Pascal matrix of binomial coefficients (scipy.linalg.pascal), as float32.

    Args:
      kind: "symmetric" (default), "lower" or "upper".
    """
    kind = _check_kind(kind)
    a = jnp.arange(n, dtype=np.float32)
    lower = _binomial(a[:, None], a[None, :])
    if kind == "lower":
        return lower
    if kind == "upper":
        return lower.T
    return jnp.dot(lower, lower.T)


@jit(static_argnames=("n", "kind"))
def invpascal(n: int, kind: str | None = None) -> Any:
    """The inverse of the Pascal matrix (scipy.linalg.invpascal), of the default float dtype."""
    kind = _check_kind(kind)
    a = jnp.arange(n, dtype=dtypes.default_float_dtype())
    i, j = a[:, None], a[None, :]
    lower_inverse = (-1.0) ** (i - j) * _binomial(i, j)
    if kind == "lower":
        return lower_inverse
    if kind == "upper":
        return lower_inverse.T
    return jnp.dot(lower_inverse.T, lower_inverse)


@jit(static_argnames=("n", "full"))
def helmert(n: int, full: bool = False) -> Any:
    """The Helmert matrix (scipy.linalg.helmert): (n-1, n), or (n, n) with `full`."""
    if n < 1:
        raise ValueError(f"n must be a positive integer; got {n}.")
    i, j = jnp.arange(n - 1)[:, None], jnp.arange(n)[None, :]
    k = (i + 1).astype(dtypes.default_float_dtype())
    denominator = jnp.sqrt(k * (k + 1))
    h = jnp.where(
        j <= i, 1.0 / denominator, jnp.where(j == i + 1, -k / denominator, jnp.zeros_like(k))
    )
    if full:
        h = jnp.concatenate([jnp.full((1, n), 1.0 / jnp.sqrt(n), dtype=h.dtype), h], axis=0)
    return h


@jit(static_argnames=("n", "dtype"))
def hadamard(n: int, dtype: Any = int) -> Any:
    """The n x n Hadamard matrix (Sylvester's construction; n a power of 2)."""
    if n < 1 or not math.log2(n).is_integer():
        raise ValueError(f"n must be a positive power of 2; got {n}.")
    h = jnp.ones((1, 1), dtype=dtype)
    for _ in range(int(math.log2(n))):
        h = jnp.block([[h, h], [h, -h]])
    return h


@jit(static_argnames=("n", "scale", "dtype"))
def dft(n: int, scale: str | None = None, *, dtype: Any = None) -> Any:
    """The discrete Fourier transform matrix exp(-2 pi i j k / n) (scipy.linalg.dft).

    Args:
      scale: None, "sqrtn" (divide by sqrt(n)) or "n" (divide by n).
      dtype: a complex dtype (default: the default complex dtype).
    """
    if scale is not None and scale not in ("sqrtn", "n"):
        raise ValueError(f"scale must be None, 'sqrtn', or 'n'; got {scale!r}.")
    if dtype is None:
        dtype = dtypes.default_complex_dtype()
    else:
        dtype = dtypes.canonicalize_dtype(dtype)
        if not dtypes.issubdtype(dtype, np.complexfloating):
            raise ValueError(f"dtype must be a complex floating-point type; got {dtype}.")
    a = jnp.arange(n, dtype=dtype)
    omegas = jnp.exp(-2j * np.pi * a[:, None] * a[None, :] / n)
    if scale == "sqrtn":
        return omegas / jnp.sqrt(n)
    if scale == "n":
        return omegas / n
    return omegas
