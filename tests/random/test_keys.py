"""stablax.random keys and transforms: typed keys, raw-key errors, jit, vmap over batched keys,
grad of reparameterised samplers."""

from __future__ import annotations

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax import random
from stablax.test_util import check_grads


def test_typed_key_array_behaves_like_jax():
    key = random.key(0)
    assert key.shape == () and key.ndim == 0 and str(key.dtype) == "key<fry>"
    keys = random.split(key, (2, 3))
    assert keys.shape == (2, 3) and random.key_data(keys).shape == (2, 3, 2)
    assert keys[1].shape == (3,) and keys[1, 2].shape == () and keys.reshape(-1).shape == (6,)
    k1, k2 = random.split(key)
    np.testing.assert_array_equal(random.key_data(k1), random.key_data(random.split(key)[0]))
    assert bool(random.wrap_key_data(random.key_data(key)) == key)
    assert bool(k1 != k2) and random.key_impl(key) == "threefry2x32"
    assert random.key_dtype() == key.dtype
    assert "key<fry>" in repr(key)
    with pytest.raises(TypeError, match="key_data"):
        np.asarray(key)


def test_raw_and_typed_keys_draw_the_same_numbers():
    raw, typed = random.PRNGKey(7), random.key(7)
    np.testing.assert_array_equal(random.key_data(typed), raw)
    np.testing.assert_array_equal(random.uniform(raw, (4,)), random.uniform(typed, (4,)))
    np.testing.assert_array_equal(random.split(raw), random.key_data(random.split(typed)))
    assert random.clone(typed) is typed


@pytest.mark.parametrize(
    "bad, error, match",
    [
        (np.zeros(3, np.uint32), TypeError, r"random.normal: .*shape to end with \(2,\)"),
        (np.zeros(2, np.int32), TypeError, r"random.normal: .*dtype = uint32; got dtype=int32"),
        (np.zeros((2, 2), np.uint32), ValueError, r"accepts a single key.*\(2,\)"),
        ("key", TypeError, "unexpected PRNG key type"),
    ],
)
def test_malformed_raw_key_errors(bad, error, match):
    with pytest.raises(error, match=match):
        random.normal(bad)


def test_seed_and_fold_in_errors():
    with pytest.raises(TypeError, match="scalar seed"):
        random.PRNGKey(np.zeros(2, np.int32))
    with pytest.raises(TypeError, match="must be an integer"):
        random.key(1.5)
    with pytest.raises(OverflowError, match="out of bounds for uint32"):
        random.fold_in(random.PRNGKey(0), -1)
    with pytest.raises(ValueError, match="must be a float dtype"):
        random.uniform(random.PRNGKey(0), dtype=jnp.int32)
    with pytest.raises(ValueError, match="broadcast-compatible"):
        random.uniform(random.PRNGKey(0), (3,), minval=np.zeros(4))


def test_keys_pass_through_jit_and_tree_util():
    @stablax.jit
    def step(key):
        key, sub = random.split(key)
        return key, random.normal(sub, (3,))

    key = random.key(3)
    new_key, x = step(key)
    assert isinstance(new_key, random.PRNGKeyArray)
    _, sub = random.split(key)
    np.testing.assert_array_equal(x, random.normal(sub, (3,)))
    leaves, tree = stablax.tree_util.tree_flatten({"k": key})
    assert isinstance(stablax.tree_util.tree_unflatten(tree, leaves)["k"], random.PRNGKeyArray)


@pytest.mark.parametrize("typed", [False, True])
@pytest.mark.parametrize("partitionable", [True, False])
def test_vmap_over_batched_keys_equals_the_loop(typed, partitionable):
    stablax.config.update("jax_threefry_partitionable", partitionable)
    try:
        keys = random.split(random.key(1) if typed else random.PRNGKey(1), 4)

        def draw_bits(k):
            sub = random.split(random.fold_in(k, 5), 3)[2]
            return random.bits(k, (3,)), random.randint(sub, (2,), 0, 100)

        for batched, looped in zip(
            stablax.vmap(draw_bits)(keys), zip(*[draw_bits(k) for k in keys]), strict=True
        ):
            np.testing.assert_array_equal(batched, np.stack(looped))

        def draw(k):
            return random.normal(k, (3,)) + random.uniform(random.fold_in(k, 5), (3,))

        # Floats: the batched program fuses differently from the per-key ones and XLA may
        # contract a multiply-add differently: one ulp of each summand (values are O(1)).
        np.testing.assert_allclose(
            stablax.vmap(draw)(keys), np.stack([draw(k) for k in keys]), rtol=0, atol=4e-7
        )
        np.testing.assert_allclose(
            stablax.vmap(lambda k: random.gamma(k, 2.0, (2,)))(keys),
            np.stack([random.gamma(k, 2.0, (2,)) for k in keys]),
            rtol=1e-6,
        )
    finally:
        stablax.config.update("jax_threefry_partitionable", True)


@pytest.fixture
def x64():
    stablax.config.update("jax_enable_x64", True)
    yield
    stablax.config.update("jax_enable_x64", False)


def test_grad_of_reparameterised_samplers(x64):
    key = random.PRNGKey(2)
    f64 = np.float64
    check_grads(
        lambda lo, hi: random.uniform(key, (4,), f64, minval=lo, maxval=hi), (f64(-1), f64(2)), 2
    )
    check_grads(lambda mu, s: mu + s * random.normal(key, (4,), f64), (f64(0.5), f64(2)), 2)
    check_grads(lambda lo: random.truncated_normal(key, lo, 2.0, (4,), f64), (f64(-1),), 1)
    check_grads(lambda s: random.lognormal(key, s, (3,), f64), (f64(0.7),), 1)
    check_grads(lambda b: random.pareto(key, b, (3,), f64), (f64(3),), 1)
    g = stablax.grad(lambda k, s: jnp.sum(random.normal(k, (3,), f64) * s), argnums=1)(key, 1.0)
    np.testing.assert_allclose(g, np.sum(random.normal(key, (3,), f64)), rtol=1e-12)


def test_gamma_family_derivatives_are_jax_implicit_ones(x64):
    # d sample / d a holds the CDF value P(a, sample) fixed: a finite difference of scipy's
    # inverse CDF at that value (not of the rejection sampler, whose pathwise slope differs).
    import scipy.special as sp

    key, f64 = random.PRNGKey(0), np.float64
    a = np.array([0.5, 2.0, 30.0])
    x = np.asarray(random.gamma(key, a, dtype=f64))
    tangent = stablax.jvp(lambda a: random.gamma(key, a, dtype=f64), (a,), (np.ones(3),))[1]
    u, h = sp.gammainc(a, x), 1e-6 * a
    dx_da = (sp.gammaincinv(a + h, u) - sp.gammaincinv(a - h, u)) / (2 * h)
    np.testing.assert_allclose(tangent, dx_da, rtol=1e-6)
    # Reverse mode agrees with forward mode.
    check_grads(lambda a, b: random.beta(key, a, b, dtype=f64), (f64(1.5), f64(2.5)), 1, ["rev"])


def test_gamma_family_derivatives_match_jax(x64):
    key, f64 = random.PRNGKey(0), np.float64
    # jax.grad values recorded with jax 0.10.2 (x64, PRNGKey(0)).
    jax_values = [
        (lambda a: random.gamma(key, a, dtype=f64).sum(), np.array([0.5, 2.0, 30.0]),
         [0.5031238126584764, 0.8015318512643894, 1.109700428138921]),
        (lambda a: random.loggamma(key, a, dtype=f64).sum(), np.array([0.01, 0.5, 2.0, 30.0]),
         [11139.33300935423, 9.893013585384427, 0.39127451399479085, 0.0404948354045569]),
        (lambda a: random.dirichlet(key, a, dtype=f64)[0], np.array([1.5, 2.5, 0.7]),
         [0.18398518343718995, -0.06440224942507722, -0.11398324264216872]),
        (lambda d: random.chisquare(key, d, dtype=f64), f64(3.0), 0.8558606913528853),
    ]  # fmt: skip
    for fun, arg, want in jax_values:
        np.testing.assert_allclose(stablax.grad(fun)(arg), want, rtol=1e-10)
    grads = stablax.grad(lambda a, b: random.beta(key, a, b, dtype=f64), (0, 1))(1.5, 2.5)
    np.testing.assert_allclose(grads, [0.14445130857567418, -0.06896599111111555], rtol=1e-10)
