"""Ops JAX does not differentiate or batch raise under jvp and vmap, as JAX's do (JAX 0.10.2:
`lax.composite`, `lax.rng_uniform` and `lax.zeta` have no such rule); derivatives that JAX
gives elsewhere (`scipy.special.zeta` in q) still hold."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sp

import stablax
import stablax.numpy as jnp
from stablax import lax
from stablax.scipy import special


def _scale(x):
    return lax.composite(lambda v, *, k: v * k, "my_project.scale")(x, k=2.0)


def test_composite_has_no_jvp_or_batching_rule():
    x = jnp.arange(3.0)
    with pytest.raises(NotImplementedError, match="rule for 'composite' not implemented"):
        stablax.jvp(_scale, (x,), (x,))
    with pytest.raises(NotImplementedError, match="rule for 'composite' not implemented"):
        stablax.grad(lambda v: _scale(v).sum())(x)
    with pytest.raises(NotImplementedError, match="batching rule for 'composite'"):
        stablax.vmap(_scale)(x)


def test_rng_uniform_has_no_jvp_or_batching_rule():
    with pytest.raises(NotImplementedError, match="Differentiation rule for 'rng_uniform'"):
        stablax.grad(lambda a: lax.rng_uniform(a, 2.0, (3,)).sum())(0.0)
    with pytest.raises(NotImplementedError, match="batching rule for 'rng'"):
        stablax.vmap(lambda a: lax.rng_uniform(a, 2.0, (3,)))(jnp.zeros(2))


@pytest.mark.parametrize("argnum", [0, 1])
def test_lax_zeta_has_no_jvp(argnum):
    # JAX's zeta_p has no jvp rule, in either argument: jax.scipy.special.zeta has one.
    with pytest.raises(NotImplementedError, match="rule for 'zeta' not implemented"):
        stablax.grad(lax.zeta, argnums=argnum)(3.0, 1.5)


def test_scipy_zeta_derivative_in_q(x64):
    # d/dq zeta(s, q) = -s zeta(s + 1, q), against the formula and a central difference.
    s, q, h = 3.0, 1.5, 1e-6
    derivative = float(stablax.grad(special.zeta, argnums=1)(s, q))
    np.testing.assert_allclose(derivative, -s * sp.zeta(s + 1, q), rtol=1e-10)
    difference = (sp.zeta(s, q + h) - sp.zeta(s, q - h)) / (2 * h)
    np.testing.assert_allclose(derivative, difference, rtol=1e-7)
