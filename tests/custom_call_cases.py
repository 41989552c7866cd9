"""Which user functions a custom_jvp / custom_vjp function runs, and in what order, under each
transformation: scenarios shared by tests/interpreters/test_custom_call_sequences.py (stablax) and
scripts/record_custom_call_sequences.py (JAX 0.10.2, recorded once into tests/data).

Each scenario takes the library (`jax` or `stablax`) and returns (the calls made, the values
computed as Python floats). The user functions branch on values with Python `if`, as JAX's
custom derivative tutorial does, so a scenario also checks that they run on concrete values.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _relu_like(lib: Any, calls: list[str]):
    """f(x) = x if x > 0 else 0.5 x, with a jvp rule of 3 (x > 0) or 0.25 (x <= 0)."""

    @lib.custom_jvp
    def f(x):
        calls.append("primal")
        return x if x > 0 else 0.5 * x

    @f.defjvp
    def f_jvp(primals, tangents):
        calls.append("jvp")
        (x,), (t,) = primals, tangents
        return f(x), (3.0 if x > 0 else 0.25) * t

    return f


def _logged_vjp(lib: Any, calls: list[str]):
    """f(x) = sin(x), fwd saving cos(x) (or 2 cos(x) for x <= 0), bwd scaling by the residual."""
    jnp = lib.numpy
    return _sin_vjp(lib, calls, residual=lambda x: jnp.cos(x) if x > 0 else 2.0 * jnp.cos(x))


def _jvp_scenario(make: Callable, run: Callable) -> Callable:
    def scenario(lib: Any) -> tuple[list[str], list[float]]:
        calls: list[str] = []
        f = make(lib, calls)
        values = run(lib, f)
        return calls, [float(v) for v in values]

    return scenario


SCENARIOS: dict[str, Callable[[Any], tuple[list[str], list[float]]]] = {
    "jvp_eager_call": _jvp_scenario(_relu_like, lambda lib, f: [f(2.0)]),
    "jvp_grad_pos": _jvp_scenario(_relu_like, lambda lib, f: [lib.grad(f)(2.0)]),
    "jvp_grad_neg": _jvp_scenario(_relu_like, lambda lib, f: [lib.grad(f)(-2.0)]),
    "jvp_jvp": _jvp_scenario(_relu_like, lambda lib, f: list(lib.jvp(f, (2.0,), (1.0,)))),
    "jvp_vjp": _jvp_scenario(
        _relu_like, lambda lib, f: [lib.vjp(f, -2.0)[0], lib.vjp(f, -2.0)[1](1.0)[0]]
    ),
    "jvp_value_and_grad_composed": _jvp_scenario(
        _relu_like, lambda lib, f: list(lib.value_and_grad(lambda x: f(x) * f(x))(2.0))
    ),
    "vjp_eager_call": _jvp_scenario(_logged_vjp, lambda lib, f: [f(1.0)]),
    "vjp_grad_pos": _jvp_scenario(_logged_vjp, lambda lib, f: [lib.grad(f)(1.0)]),
    "vjp_grad_neg": _jvp_scenario(_logged_vjp, lambda lib, f: [lib.grad(f)(-1.0)]),
    "vjp_vjp_then_pullback": _jvp_scenario(
        _logged_vjp, lambda lib, f: [lib.vjp(f, 1.0)[1](1.0)[0]]
    ),
    "vjp_value_and_grad": _jvp_scenario(
        _logged_vjp, lambda lib, f: list(lib.value_and_grad(f)(1.0))
    ),
}


def jit_scenarios() -> dict[str, Callable[[Any], tuple[list[str], list[float]]]]:
    """Under jit the functions are traced (no Python `if` on values): a branch-free family."""

    def smooth_jvp(lib: Any, calls: list[str]):
        return _sin_jvp(lib, calls, slope=lambda x: 3.0)

    def smooth_vjp(lib: Any, calls: list[str]):
        return _sin_vjp(lib, calls, scale=3.0)

    return {
        "jit_jvp_grad": _jvp_scenario(smooth_jvp, lambda lib, f: [lib.jit(lib.grad(f))(1.0)]),
        "jit_jvp_twice": _jvp_scenario(
            smooth_jvp,
            lambda lib, f: [lib.jit(lib.grad(f))(1.0), lib.jit(lib.grad(f))(1.0)],
        ),
        "grad_of_jit_jvp": _jvp_scenario(smooth_jvp, lambda lib, f: [lib.grad(lib.jit(f))(1.0)]),
        "jit_vjp_grad": _jvp_scenario(smooth_vjp, lambda lib, f: [lib.jit(lib.grad(f))(1.0)]),
        "grad_of_jit_vjp": _jvp_scenario(smooth_vjp, lambda lib, f: [lib.grad(lib.jit(f))(1.0)]),
        "vmap_jvp": _jvp_scenario(
            smooth_jvp, lambda lib, f: list(lib.vmap(f)(lib.numpy.arange(2.0)))
        ),
    }


def _sin_jvp(lib: Any, calls: list[str], slope: Callable | None = None):
    """sin with a custom_jvp whose rule calls the function itself (JAX's tutorial function); the
    tangent is `slope(x) * t`, cos(x) * t by default."""
    jnp = lib.numpy

    @lib.custom_jvp
    def f(x):
        calls.append("primal")
        return jnp.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        calls.append("jvp")
        (x,), (t,) = primals, tangents
        return f(x), (jnp.cos(x) if slope is None else slope(x)) * t

    return f


def _sin_vjp(lib: Any, calls: list[str], scale: float = 1.0, residual: Callable | None = None):
    """sin with a custom_vjp: fwd saves `residual(x)` (cos(x) by default), bwd scales the
    cotangent by it (times `scale`)."""
    jnp = lib.numpy

    @lib.custom_vjp
    def f(x):
        calls.append("primal")
        return jnp.sin(x)

    def fwd(x):
        calls.append("fwd")
        return jnp.sin(x), (jnp.cos(x) if residual is None else residual(x))

    def bwd(res, g):
        calls.append("bwd")
        return (scale * res * g,)

    f.defvjp(fwd, bwd)
    return f


def nested_scenarios() -> dict[str, Callable[[Any], tuple[list[str], list[float]]]]:
    """Derivatives of derivatives: where an outer derivative is pending, the rule's own call of
    the function runs the rule again (JAX's JVP trace one level out), then the primal once."""

    def flat(value: Any) -> list[Any]:
        return list(value.ravel()) if hasattr(value, "ravel") else [value]

    runs: dict[str, Callable[[Any, Any], list[Any]]] = {
        "grad_grad": lambda lib, f: [lib.grad(lib.grad(f))(3.0)],
        "grad_grad_grad": lambda lib, f: [lib.grad(lib.grad(lib.grad(f)))(3.0)],
        "jacfwd_grad": lambda lib, f: [lib.jacfwd(lib.grad(f))(3.0)],
        "jacrev_grad": lambda lib, f: [lib.jacrev(lib.grad(f))(3.0)],
        "hessian": lambda lib, f: [lib.hessian(f)(3.0)],
        "jvp_grad": lambda lib, f: [lib.jvp(lib.grad(f), (3.0,), (1.0,))[1]],
        "grad_jvp": lambda lib, f: [lib.grad(lambda x: lib.jvp(f, (x,), (1.0,))[1])(3.0)],
        "value_and_grad_grad": lambda lib, f: list(lib.value_and_grad(lib.grad(f))(3.0)),
        "grad_grad_composed": lambda lib, f: [lib.grad(lib.grad(lambda x: f(x) * f(x)))(3.0)],
        "vmap_grad": lambda lib, f: flat(lib.vmap(lib.grad(f))(lib.numpy.arange(2.0))),
        "vmap_grad_grad": lambda lib, f: flat(
            lib.vmap(lib.grad(lib.grad(f)))(lib.numpy.arange(2.0))
        ),
        "jit_grad_grad": lambda lib, f: [lib.jit(lib.grad(lib.grad(f)))(3.0)],
        # A jit between the two derivatives stages the inner one: the rule runs at each level.
        "grad_jit_grad": lambda lib, f: [lib.grad(lib.jit(lib.grad(f)))(3.0)],
    }
    out = {f"nested_jvp_{k}": _jvp_scenario(_sin_jvp, run) for k, run in runs.items()}
    for k in ("grad_grad", "jacfwd_grad", "vmap_grad", "grad_grad_composed"):
        out[f"nested_vjp_{k}"] = _jvp_scenario(_sin_vjp, runs[k])
    return out


ALL_SCENARIOS = {**SCENARIOS, **jit_scenarios(), **nested_scenarios()}
