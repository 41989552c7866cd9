"""vmap over a batch of size 0: every batching rule accepts it, as JAX's do.

The shapes and dtypes are JAX 0.10.2's for the same calls (the op-record table's size-0 batches
are in tests/interpreters/test_batching_ops.py); these cover what the table does not: indexing,
control flow, linear algebra, random keys, derivatives, collectives and custom rules.
"""

from __future__ import annotations

import numpy as np
import pytest

import stablax as jax
import stablax.numpy as jnp
import stablax.scipy as jsp
from stablax import lax

Z = jnp.zeros((0, 3))
I = jnp.zeros((0,), jnp.int32)  # the index batch
M = jnp.zeros((0, 3, 3))


def _keys():
    return jax.random.split(jax.random.key(0), 0)


# name: (the call, JAX 0.10.2's output shape, its dtype)
CASES = {
    # the reproducer (optax's Hungarian algorithm indexes so)
    "index": (lambda: jax.vmap(lambda m, i: m[i])(jnp.zeros((0, 2, 2)), I), (0, 2), "float32"),
    "index_jit": (
        lambda: jax.jit(jax.vmap(lambda m, i: m[i]))(jnp.zeros((0, 2, 2)), I),
        (0, 2),
        "float32",
    ),
    "index_nested": (
        lambda: jax.vmap(jax.vmap(lambda m, i: m[i]))(
            jnp.zeros((0, 2, 3)), jnp.zeros((0, 2), jnp.int32)
        ),
        (0, 2),
        "float32",
    ),
    "dynamic_slice": (
        lambda: jax.vmap(lambda x, i: lax.dynamic_slice(x, (i,), (2,)))(Z, I),
        (0, 2),
        "float32",
    ),
    "dynamic_update_slice": (
        lambda: jax.vmap(lambda x, i: lax.dynamic_update_slice(x, jnp.ones(2), (i,)))(Z, I),
        (0, 3),
        "float32",
    ),
    "at_set": (lambda: jax.vmap(lambda x, i: x.at[i].set(1.0))(Z, I), (0, 3), "float32"),
    "at_mul": (lambda: jax.vmap(lambda x, i: x.at[i].mul(2.0))(Z, I), (0, 3), "float32"),
    "take_along_axis": (
        lambda: jax.vmap(lambda x, i: jnp.take_along_axis(x, i, 0))(
            Z, jnp.zeros((0, 3), jnp.int32)
        ),
        (0, 3),
        "float32",
    ),
    "argmin_rows": (lambda: jax.vmap(lambda c: jnp.argmin(c, axis=1))(M), (0, 3), "int32"),
    "cond": (
        lambda: jax.vmap(lambda x: lax.cond(x.sum() > 0, jnp.sin, jnp.cos, x))(Z),
        (0, 3),
        "float32",
    ),
    "switch": (
        lambda: jax.vmap(lambda i, x: lax.switch(i, [jnp.sin, jnp.cos], x))(I, Z),
        (0, 3),
        "float32",
    ),
    "while_batched_predicate": (
        lambda: jax.vmap(lambda x: lax.while_loop(lambda c: c.sum() < 3, lambda c: c + 1.0, x))(Z),
        (0, 3),
        "float32",
    ),
    "scan": (
        lambda: jax.vmap(lambda x: lax.scan(lambda c, a: (c + a, c * a), 0.0, x)[1])(Z),
        (0, 3),
        "float32",
    ),
    "sort_pair": (
        lambda: jax.vmap(lambda a, b: lax.sort((a, b), num_keys=1)[1])(Z, Z),
        (0, 3),
        "float32",
    ),
    "top_k": (lambda: jax.vmap(lambda x: lax.top_k(x, 2)[0])(Z), (0, 2), "float32"),
    "unique_size": (lambda: jax.vmap(lambda x: jnp.unique(x, size=3))(Z), (0, 3), "float32"),
    "solve": (lambda: jax.vmap(jnp.linalg.solve)(M, Z), (0, 3), "float32"),
    "cholesky": (lambda: jax.vmap(jnp.linalg.cholesky)(M), (0, 3, 3), "float32"),
    "eigh": (lambda: jax.vmap(lambda a: jnp.linalg.eigh(a)[0])(M), (0, 3), "float32"),
    "svd": (lambda: jax.vmap(lambda a: jnp.linalg.svd(a)[1])(M), (0, 3), "float32"),
    "det": (lambda: jax.vmap(jnp.linalg.det)(M), (0,), "float32"),
    "lu_factor": (lambda: jax.vmap(lambda a: jsp.linalg.lu_factor(a)[0])(M), (0, 3, 3), "float32"),
    "cg": (
        lambda: jax.vmap(lambda a, b: jsp.sparse.linalg.cg(lambda v: a @ v, b)[0])(M, Z),
        (0, 3),
        "float32",
    ),
    "random_split": (lambda: jax.vmap(jax.random.split)(_keys()), (0, 2), "key<fry>"),
    "random_permutation": (
        lambda: jax.vmap(lambda k: jax.random.permutation(k, 4))(_keys()),
        (0, 4),
        "int32",
    ),
    "grad": (
        lambda: jax.vmap(jax.grad(lambda x: jnp.sum(jnp.sin(x) * x[0])))(Z),
        (0, 3),
        "float32",
    ),
    "jacfwd": (lambda: jax.vmap(jax.jacfwd(lambda x: jnp.sin(x) * x[0]))(Z), (0, 3, 3), "float32"),
    "checkpoint_grad": (
        lambda: jax.vmap(jax.grad(jax.checkpoint(lambda x: jnp.sum(jnp.sin(x)))))(Z),
        (0, 3),
        "float32",
    ),
    "custom_vjp_grad": (lambda: jax.vmap(jax.grad(jax.nn.logsumexp))(Z), (0, 3), "float32"),
    "psum": (lambda: jax.vmap(lambda x: lax.psum(x, "i"), axis_name="i")(Z), (0, 3), "float32"),
    "all_gather": (
        lambda: jax.vmap(lambda x: lax.all_gather(x, "i"), axis_name="i")(Z),
        (0, 0, 3),
        "float32",
    ),
    "axis_size_0": (lambda: jax.vmap(lambda: jnp.ones(2), axis_size=0)(), (0, 2), "float32"),
    "out_axes_1": (lambda: jax.vmap(jnp.sin, out_axes=1)(Z), (3, 0), "float32"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_empty_batch_matches_jax(name):
    call, shape, dtype = CASES[name]
    out = call()
    assert out.shape == shape and str(out.dtype) == dtype
    if dtype != "key<fry>":
        assert np.asarray(out).shape == shape
