"""Hessians by composing transformations: `jit(jacfwd(jacrev(f)))` against finite differences.

    python examples/hessian.py          # n = 50
    python examples/hessian.py --quick  # n = 8

Forward-over-reverse differentiation of the Rosenbrock function and of a log-sum-exp, in
float64, checked against central differences of the gradient and against `stablax.hessian`.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import stablax as jax
import stablax.numpy as jnp
from stablax import grad, jacfwd, jacrev, jit

jax.config.update("jax_enable_x64", True)  # finite differences need double precision


def hessian(fun):
    return jit(jacfwd(jacrev(fun)))


def rosenbrock(x):
    return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def log_sum_exp_quadratic(x):
    return jnp.log(jnp.sum(jnp.exp(jnp.sin(x) * x))) + 0.5 * jnp.dot(x, x)


def finite_difference_hessian(fun, x, eps=1e-5):
    """Column j is (grad f(x + eps e_j) - grad f(x - eps e_j)) / (2 eps)."""
    g = jit(grad(fun))
    columns = []
    for j in range(x.shape[0]):
        step = np.zeros_like(x)
        step[j] = eps
        columns.append((np.asarray(g(x + step)) - np.asarray(g(x - step))) / (2 * eps))
    return np.stack(columns, axis=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 8")
    args = parser.parse_args()
    n = 8 if args.quick else 50
    x = np.random.default_rng(0).uniform(-1.0, 1.0, n)
    for fun in (rosenbrock, log_sum_exp_quadratic):
        hess = hessian(fun)
        start = time.perf_counter()
        h = np.asarray(hess(x))
        first = time.perf_counter() - start
        start = time.perf_counter()
        jax.block_until_ready(hess(x))
        again = time.perf_counter() - start
        fd = finite_difference_hessian(fun, x)
        error = np.max(np.abs(h - fd)) / max(1.0, np.max(np.abs(fd)))
        builtin = np.max(np.abs(h - np.asarray(jax.hessian(fun)(x))))
        print(f"{fun.__name__}: {n}x{n} Hessian in {first * 1e3:.0f} ms (trace + compile), "
              f"{again * 1e3:.3f} ms compiled")  # fmt: skip
        print(f"  symmetric to {np.max(np.abs(h - h.T)):.1e}; relative difference from central "
              f"differences {error:.1e}; from stablax.hessian {builtin:.1e}")  # fmt: skip
        assert error < 1e-6 and builtin < 1e-9, "the Hessian disagrees"


if __name__ == "__main__":
    main()
