"""stablax.scipy.sparse.linalg: cg, bicgstab and gmres against dense solves; matrices, functions
and pytrees as operators, preconditioners, and reverse-mode derivatives (implicit, as JAX's
custom_linear_solve)."""

from __future__ import annotations

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax.scipy.sparse.linalg import bicgstab, cg, gmres


def _normal(shape, dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def _spd(n, dtype=np.float64, seed=0):
    a = _normal((n, n), dtype, seed)
    return (a @ np.conj(a.T) + n * np.eye(n)).astype(dtype)


def _general(n, dtype=np.float64, seed=0):
    return (_normal((n, n), dtype, seed) + 2 * n * np.eye(n)).astype(dtype)


SOLVERS = [
    ("cg", cg, _spd),
    ("bicgstab", bicgstab, _general),
    ("gmres_batched", gmres, _general),
    ("gmres_incremental", lambda *a, **k: gmres(*a, solve_method="incremental", **k), _general),
]


@pytest.mark.parametrize("dtype", [np.float32, np.complex64, np.float64])
@pytest.mark.parametrize("solver", SOLVERS, ids=[s[0] for s in SOLVERS])
def test_solves_match_dense(solver, dtype, request):
    _, solve, matrix = solver
    if dtype == np.float64:
        request.getfixturevalue("x64")
    a, b = matrix(6, dtype), _normal(6, dtype, 1)
    x, _ = solve(a, b, tol=1e-6 if dtype != np.float64 else 1e-10)
    tol = 1e-8 if dtype == np.float64 else 1e-4
    np.testing.assert_allclose(x, np.linalg.solve(a, b), rtol=tol, atol=tol)
    assert x.dtype == dtype


@pytest.mark.parametrize("solver", SOLVERS, ids=[s[0] for s in SOLVERS])
def test_function_operator_pytree_and_preconditioner(solver, x64):
    _, solve, matrix = solver
    a, b = matrix(5), _normal(5, seed=1)
    tree_b = {"head": b[:2], "tail": b[2:]}

    def operator(t):
        y = a @ jnp.concatenate([t["head"], t["tail"]])
        return {"head": y[:2], "tail": y[2:]}

    def preconditioner(t):
        return {"head": t["head"] / np.diag(a)[:2], "tail": t["tail"] / np.diag(a)[2:]}

    x, _ = solve(operator, tree_b, M=preconditioner, tol=1e-10)
    expected = np.linalg.solve(a, b)
    np.testing.assert_allclose(jnp.concatenate([x["head"], x["tail"]]), expected, atol=1e-8)
    x0 = {"head": np.ones(2), "tail": np.ones(3)}
    x, _ = solve(operator, tree_b, x0=x0, tol=1e-10)
    np.testing.assert_allclose(jnp.concatenate([x["head"], x["tail"]]), expected, atol=1e-8)


def _check_vjp_by_differences(f, args, eps=1e-6, tol=1e-6):
    # <u, J t> from central differences against <J^T u, t> from stablax.vjp (the solvers are
    # custom_vjp functions, so there is no JVP to compare with, as in JAX).
    rng = np.random.default_rng(3)
    tangents = [rng.standard_normal(np.shape(a)) for a in args]
    out, pullback = stablax.vjp(f, *args)
    u = rng.standard_normal(np.shape(out))
    plus = f(*[a + eps * t for a, t in zip(args, tangents, strict=True)])
    minus = f(*[a - eps * t for a, t in zip(args, tangents, strict=True)])
    numeric = np.sum(u * (np.asarray(plus) - np.asarray(minus))) / (2 * eps)
    analytic = sum(np.sum(np.asarray(g) * t) for g, t in zip(pullback(u), tangents, strict=True))
    np.testing.assert_allclose(analytic, numeric, rtol=tol, atol=tol)


@pytest.mark.parametrize("solver", SOLVERS, ids=[s[0] for s in SOLVERS])
def test_reverse_mode_derivatives(solver, x64):
    _, solve, matrix = solver
    a, b = matrix(4), _normal(4, seed=1)
    # A as a matrix argument, and as a function closing over it.
    _check_vjp_by_differences(stablax.jit(lambda m, v: solve(m, v, tol=1e-12)[0]), (a, b))
    if solver[0] == "cg":
        closure = stablax.jit(lambda m, v: solve(lambda x: m @ x, v, tol=1e-12)[0])
        _check_vjp_by_differences(closure, (a, b))
    with pytest.raises(TypeError, match="forward-mode"):  # reverse mode only (see module doc)
        stablax.jvp(lambda v: solve(a, v)[0], (b,), (b,))


def test_gradient_with_respect_to_the_operator_is_implicit(x64):
    a, b = _spd(4), _normal(4, seed=1)
    grad = stablax.grad(lambda m: jnp.sum(cg(m, b, tol=1e-12)[0] ** 2))(a)
    x = np.linalg.solve(a, b)
    b_bar = np.linalg.solve(a.T, 2 * x)
    np.testing.assert_allclose(grad, -np.outer(b_bar, x), atol=1e-8)


def test_jit_and_vmap(x64):
    a, bs = _spd(4), _normal((3, 4), seed=1)
    solve = stablax.jit(lambda v: cg(a, v)[0])
    np.testing.assert_allclose(solve(bs[0]), np.linalg.solve(a, bs[0]), atol=1e-6)
    batched = stablax.vmap(lambda v: gmres(a, v)[0])(bs)
    np.testing.assert_allclose(batched, np.linalg.solve(a, bs.T).T, atol=1e-6)


def test_gmres_info_and_errors(x64):
    _, info = gmres(_general(3), _normal(3))
    assert int(info) == 0
    with pytest.raises(ValueError, match="solve_method"):
        gmres(_general(3), _normal(3), solve_method="direct")
    with pytest.raises(ValueError, match="matching tree structure"):
        cg(_spd(3), _normal(3), x0=[np.zeros(3)])
    with pytest.raises(ValueError, match="square matrix"):
        cg(np.ones((2, 3)), np.ones(2))
