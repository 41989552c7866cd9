"""Matrix functions of scipy.linalg: expm (Pade with scaling and squaring), expm_frechet,
sqrtm, funm (Schur-Parlett) and solve_sylvester (Bartels-Stewart).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src import dtypes, lax
from stablax._src.jit import jit
from stablax._src.numpy._promotion import promote_dtypes_inexact
from stablax._src.scipy.linalg._decompositions import rsf2csf, schur
from stablax._src.scipy.linalg._solve import inv, solve, solve_triangular
from stablax._src.transforms.ad_forward import jvp

_HIGHEST = lax.Precision.HIGHEST


def _dot(a: Any, b: Any) -> Any:
    return jnp.dot(a, b, precision=_HIGHEST)


# --- expm ----------------------------------------------------------------------------------------

# Numerator coefficients of the [m/m] Pade approximants of exp (Higham 2005, table 10.4).
_PADE = {
    3: (120.0, 60.0, 12.0, 1.0),
    5: (30240.0, 15120.0, 3360.0, 420.0, 30.0, 1.0),
    7: (17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0, 1.0),
    9: (
        17643225600.0,
        8821612800.0,
        2075673600.0,
        302702400.0,
        30270240.0,
        2162160.0,
        110880.0,
        3960.0,
        90.0,
        1.0,
    ),
    13: (
        64764752532480000.0,
        32382376266240000.0,
        7771770303897600.0,
        1187353796428800.0,
        129060195264000.0,
        10559470521600.0,
        670442572800.0,
        33522128640.0,
        1323241920.0,
        40840800.0,
        960960.0,
        16380.0,
        182.0,
        1.0,
    ),
}
# Largest 1-norms for which each degree is accurate, and the one scaling targets (Higham 2005).
_THETA = {
    np.dtype(np.float64): ((0.01495585217958292, 0.253939833006323, 0.9504178996162932,
                            2.097847961257068), 5.371920351148152, (3, 5, 7, 9, 13)),
    np.dtype(np.float32): ((0.4258730016922831, 1.880152677804762), 3.92572478313866, (3, 5, 7)),
}  # fmt: skip


def _pade(degree: int, a: Any) -> tuple[Any, Any]:
    # The odd (U) and even (V) parts of the numerator: p(a) = V + U, q(a) = V - U.
    b = _PADE[degree]
    ident = jnp.eye(*a.shape, dtype=a.dtype)
    a2 = _dot(a, a)
    if degree == 13:
        a4 = _dot(a2, a2)
        a6 = _dot(a4, a2)
        u = _dot(a, _dot(a6, b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4
                 + b[3] * a2 + b[1] * ident)  # fmt: skip
        v = _dot(a6, b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2
        return u, v + b[0] * ident
    powers = [a2]  # a^2, a^4, a^6, a^8 as needed
    for _ in range(degree // 2 - 1):
        powers.append(_dot(powers[-1], a2) if len(powers) > 1 else _dot(a2, a2))
    odd = b[degree] * powers[-1]
    even = b[degree - 1] * powers[-1]
    for i in range(len(powers) - 2, -1, -1):
        odd = odd + b[2 * i + 3] * powers[i]
        even = even + b[2 * i + 2] * powers[i]
    return _dot(a, odd + b[1] * ident), even + b[0] * ident


@jit
def _pade_p_q(a):
    a_l1 = jnp.linalg.norm(a, 1)
    real = np.dtype(a_l1.dtype)
    if real not in _THETA:
        raise TypeError(f"A.dtype={a.dtype} is not supported.")
    conds, maxnorm, degrees = _THETA[real]
    n_squarings = jnp.maximum(0, jnp.floor(jnp.log2(a_l1 / maxnorm)))
    a = a / 2 ** n_squarings.astype(a.dtype)
    which = jnp.digitize(a_l1, jnp.array(conds, dtype=a_l1.dtype))
    u, v = lax.switch(which, [functools.partial(_pade, d) for d in degrees], a)
    return u + v, -u + v, n_squarings


@jit(static_argnums=(2,))
def _squaring(r, n_squarings, max_squarings):
    def step(c, i):
        return lax.cond(i < n_squarings, lambda x: _dot(x, x), lambda x: x, c), None

    return lax.scan(step, r, jnp.arange(max_squarings, dtype=n_squarings.dtype))[0]


@jit(static_argnames=("upper_triangular", "max_squarings"))
def expm(A: Any, *, upper_triangular: bool = False, max_squarings: int = 16) -> Any:  # noqa: N803 (SciPy's names)
    """The matrix exponential by Pade approximation with scaling and squaring (scipy.linalg.expm).

    Args:
      A: square matrices (..., n, n).
      upper_triangular: A is upper triangular (the Pade quotient is a triangular solve).
      max_squarings: more squarings than this give NaN.

    Returns:
      exp(A), of A's (inexact) dtype.
    """
    (a,) = promote_dtypes_inexact(jnp.asarray(A))
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"Expected A to be a (batched) square matrix, got A.shape={a.shape!r}.")
    if a.ndim > 2:
        fn = functools.partial(expm, upper_triangular=upper_triangular, max_squarings=max_squarings)
        return jnp.vectorize(fn, signature="(n,n)->(n,n)")(a)
    p, q, n_squarings = _pade_p_q(a)

    def compute(args):
        _, p, q = args
        r = solve_triangular(q, p) if upper_triangular else jnp.linalg.solve(q, p)
        return _squaring(r, n_squarings, max_squarings)

    def nan(args):
        return jnp.full_like(args[0], np.nan)

    return lax.cond(n_squarings > max_squarings, nan, compute, (a, p, q))


@jit(static_argnames=("method", "compute_expm"))
def expm_frechet(
    A: Any,  # noqa: N803 (SciPy's names)
    E: Any,  # noqa: N803 (SciPy's names)
    *,
    method: str | None = None,
    compute_expm: bool = True,
) -> Any:
    """The Frechet derivative of expm at A in direction E (scipy.linalg.expm_frechet).

    Returns:
      `(expm(A), L(A, E))`, or only L(A, E) when `compute_expm` is False.
    """
    del method
    a, e = jnp.asarray(A), jnp.asarray(E)
    if a.ndim < 2 or a.shape[-2] != a.shape[-1]:
        raise ValueError(f"expected A to be a (batched) square matrix, got A.shape={a.shape}")
    if e.ndim < 2 or e.shape[-2] != e.shape[-1]:
        raise ValueError(f"expected E to be a (batched) square matrix, got E.shape={e.shape}")
    if a.shape != e.shape:
        raise ValueError(
            f"expected A and E to be the same shape, got A.shape={a.shape} E.shape={e.shape}"
        )
    fn = functools.partial(expm, upper_triangular=False, max_squarings=16)
    value, derivative = jvp(fn, (a,), (e,))
    return (value, derivative) if compute_expm else derivative


# --- sqrtm ---------------------------------------------------------------------------------------


@jit
def _sqrtm_triangular(t):
    # The upper-triangular square root of triangular t, one column at a time (Bjorck-Hammarling).
    diagonal = jnp.sqrt(jnp.diag(t))
    n = diagonal.size
    root = jnp.diag(diagonal)

    def entry(step, data):
        j, root = data
        i = j - 1 - step
        s = lax.fori_loop(
            i + 1, j, lambda k, acc: acc + root[i, k] * root[k, j], jnp.zeros((), root.dtype)
        )
        value = jnp.where(t[i, j] == s, 0.0, (t[i, j] - s) / (diagonal[i] + diagonal[j]))
        return j, root.at[i, j].set(value)

    def column(j, root):
        return lax.fori_loop(0, j, entry, (j, root))[1]

    return lax.fori_loop(0, n, column, root)


@jit
def _sqrtm(a):
    t, z = schur(a, output="complex")
    root = _sqrtm_triangular(t)
    return jnp.matmul(jnp.matmul(z, root, precision=_HIGHEST), jnp.conj(z.T), precision=_HIGHEST)


def sqrtm(A: Any, blocksize: int = 1) -> Any:  # noqa: N803 (SciPy's names)
    """The principal matrix square root of `A`, from the complex Schur form (scipy.linalg.sqrtm).

    Returns a complex array, as JAX does (SciPy returns a real one when it can).
    """
    if blocksize > 1:
        raise NotImplementedError("Blocked version is not implemented yet.")
    return _sqrtm(A)


# --- funm ----------------------------------------------------------------------------------------


@jit
def _parlett(f, t):
    # Golub and Van Loan, Matrix Computations, algorithm 11.1.1: the superdiagonals of f(T).
    n = t.shape[0]
    positions = jnp.arange(n)

    def inner(i, state):
        p, f, minden = state
        j = i + p
        s = t[i - 1, j - 1] * (f[j - 1, j - 1] - f[i - 1, i - 1])
        between = (positions >= i) & (positions < j - 1)
        s = s + (
            jnp.where(between, t[i - 1], 0) @ jnp.where(between, f[:, j - 1], 0)
            - jnp.where(between, f[i - 1], 0) @ jnp.where(between, t[:, j - 1], 0)
        )
        den = t[j - 1, j - 1] - t[i - 1, i - 1]
        s = jnp.where(den != 0, s / den, s)
        return p, f.at[i - 1, j - 1].set(s), jnp.minimum(minden, jnp.abs(den))

    def outer(p, state):
        _, f, minden = lax.fori_loop(1, n - p + 1, inner, (p, *state))
        return f, minden

    return lax.fori_loop(1, n, outer, (f, jnp.abs(t[0, 0])))


def funm(A: Any, func: Callable[[Any], Any], disp: bool = True) -> Any:  # noqa: N803 (SciPy's names)
    """A matrix function f(A) from the scalar f by the Schur-Parlett method (scipy.linalg.funm).

    Args:
      A: a square matrix.
      func: the scalar function, applied to the eigenvalues (elementwise).
      disp: return f(a) only; otherwise `(f(a), error_estimate)`.

    Returns:
      f(A) as a complex matrix (and the error estimate when `disp` is False).
    """
    a = jnp.asarray(A)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError("expected square array_like input")
    t, z = schur(a)
    t, z = rsf2csf(t, z)
    f = jnp.diag(func(jnp.diag(t))).astype(t.dtype)
    f, minden = _parlett(f, t)
    f = z @ f @ z.conj().T
    if disp:
        return f
    # As JAX: float32's epsilon for complex64/float32 results, float64's otherwise.
    tol = float(dtypes.finfo(np.float32 if f.dtype.char.lower() == "f" else np.float64).eps)
    minden = jnp.where(minden == 0.0, tol, minden)
    err = jnp.where(
        jnp.any(jnp.isinf(f)),
        np.inf,
        jnp.minimum(1, jnp.maximum(tol, (tol / minden) * jnp.linalg.norm(jnp.triu(t, 1), 1))),
    )
    return f, err


# --- solve_sylvester -----------------------------------------------------------------------------


def _triangular_sylvester(r, s, f):
    # Solves r y + y s = f for upper-triangular r and lower-triangular s, entry by entry from the
    # bottom-right corner.
    m, n = f.shape
    rows, cols = jnp.arange(m), jnp.arange(n)

    def step(y_flat, index):
        i, j = index // n, index % n
        y = y_flat.reshape((m, n))
        rhs = f[i, j]
        rhs -= jnp.sum(jnp.where(rows > i, r[i, :] * y[:, j], 0.0)) + jnp.sum(
            jnp.where(cols > j, y[i, :] * s[:, j], 0.0)
        )
        return y_flat.at[i * n + j].set(rhs / (r[i, i] + s[j, j])), None

    flat, _ = lax.scan(step, jnp.zeros((m * n,), f.dtype), jnp.arange(m * n - 1, -1, -1))
    return flat.reshape((m, n))


@jit(static_argnames=("method",))
def _solve_sylvester_2d(a, b, c, *, method, tol):
    m, n = c.shape[-2:]
    if method == "schur":
        r, u = schur(a, output="complex")
        s, v = schur(b.conj().T, output="complex")
        f = u.conj().T @ c.astype(r.dtype) @ v
        y = _triangular_sylvester(r, s.conj().T, f)
        x = u @ y @ v.conj().T
    elif method == "eigen":
        ra, ua = jnp.linalg.eig(a)
        rb, ub = jnp.linalg.eig(b)
        f = solve(ua, c.astype(ra.dtype) @ ub)
        y = f / (ra[:, None] + rb[None, :])
        x = ua[:m, :m] @ y[:m, :n] @ inv(ub)[:n, :n]
    else:
        raise ValueError(
            f'Unrecognized method {method}. The two valid methods are either "schur" or "eigen".'
        )
    if not dtypes.issubdtype(c.dtype, np.complexfloating):
        x = x.real
    close = jnp.abs(jnp.linalg.eigvals(a)[:, None] + jnp.linalg.eigvals(b)[None, :]) < tol
    return lax.cond(jnp.any(close), lambda: jnp.zeros_like(x) * np.nan, lambda: x)


@jit(static_argnames=("method",))
def solve_sylvester(
    A: Any,  # noqa: N803 (SciPy's names)
    B: Any,  # noqa: N803 (SciPy's names)
    C: Any,  # noqa: N803 (SciPy's names)
    *,
    method: str = "schur",
    tol: float = 1e-8,
) -> Any:
    """Solves the Sylvester equation A X + X B = C (scipy.linalg.solve_sylvester).

    Args:
      A: (..., m, m); B: (..., n, n); C: (..., m, n).
      method: "schur" (Bartels-Stewart) or "eigen" (eigendecompositions of A and B).
      tol: if some eigenvalues of A and -B are closer than this, the result is NaN.
    """
    a, b, c = promote_dtypes_inexact(jnp.asarray(A), jnp.asarray(B), jnp.asarray(C))
    m, n = c.shape[-2:]
    if a.shape[-2:] != (m, m) or b.shape[-2:] != (n, n):
        raise ValueError(
            f"Incompatible shapes for Sylvester equation:\nA: {a.shape}\nB: {b.shape}\nC: {c.shape}"
        )
    fn = functools.partial(_solve_sylvester_2d, method=method, tol=tol)
    return jnp.vectorize(fn, signature="(m,m),(n,n),(m,n)->(m,n)")(a, b, c)
