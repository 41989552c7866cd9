"""Every lax op from the op-record table under vmap: vmap(f)(xs) == stack([f(x) for x in xs]).

Each argument is batched in turn (and all together), at the front and at the back, eagerly and
under jit; the batched module must not contain a loop (no stablehlo.while).
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import stablax as jax
import stablax.numpy as jnp
from tests.op_record import all_records

RECORDS = all_records()
BATCH = 3


def _cases():
    for record in RECORDS:
        if not record.dtypes:
            continue
        dtype = np.dtype(record.dtypes[0])
        shapes = record.shapes[0]
        if any(0 in s for s in shapes):
            shapes = record.shapes[-1]
        nargs = len(shapes)
        choices = [tuple(0 if i == j else None for i in range(nargs)) for j in range(nargs)]
        choices.append(tuple([0] * nargs))
        choices.append(tuple([-1] * nargs))
        for axes in dict.fromkeys(choices):
            yield pytest.param(
                record,
                shapes,
                dtype,
                axes,
                id=f"{record.name}-{dtype.name}-{axes}".replace(" ", ""),
            )


def _batched_args(record, shapes, dtype, axes, batch=BATCH):
    """`batch` examples (at least one is made, for the unbatched arguments and the shapes) and
    the arguments that stack them along `axes`."""
    rng = np.random.default_rng(zlib.crc32(repr((record.name, shapes, axes)).encode()))
    examples = [record.make_args(rng, shapes, dtype) for _ in range(max(batch, 1))]
    args = []
    for i, axis in enumerate(axes):
        if axis is None:
            for example in examples[1:]:  # an unbatched argument is the same in every example
                example[i] = examples[0][i]
            args.append(examples[0][i])
        else:
            stacked = np.stack([e[i] for e in examples])[:batch]  # (batch, *shape)
            args.append(np.moveaxis(stacked, 0, axis))
    return examples[:batch] or examples, args


def _assert_matches(actual, expected, record):
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape and actual.dtype == expected.dtype
    if record.exact or actual.dtype.kind in "biu":
        np.testing.assert_array_equal(actual, expected)
    else:
        tol = record.tolerance(actual.dtype) * 10
        np.testing.assert_allclose(
            actual.astype(np.complex128), expected.astype(np.complex128), rtol=tol, atol=tol
        )


@pytest.mark.parametrize("record,shapes,dtype,axes", list(_cases()))
def test_vmap_matches_loop(record, shapes, dtype, axes):
    examples, args = _batched_args(record, shapes, dtype, axes)
    expected = np.stack([np.asarray(record.fun(*[jnp.asarray(a) for a in e])) for e in examples])
    batched = jax.vmap(record.fun, in_axes=axes)
    _assert_matches(batched(*[jnp.asarray(a) for a in args]), expected, record)
    _assert_matches(jax.jit(batched)(*[jnp.asarray(a) for a in args]), expected, record)
    # vmap adds no loop over the batch: as many while loops as the unbatched program has.
    text = str(jax.make_jaxpr(batched)(*[jnp.asarray(a) for a in args]))
    single = str(jax.make_jaxpr(record.fun)(*[jnp.asarray(a) for a in examples[0]]))
    assert text.count("stablehlo.while") == single.count("stablehlo.while")


@pytest.mark.parametrize("record,shapes,dtype,axes", list(_cases()))
def test_vmap_of_an_empty_batch(record, shapes, dtype, axes):
    # A batch of size 0 (JAX accepts it for every op): the result is f's output with a leading
    # dimension of 0, eagerly and under jit.
    (example,), args = _batched_args(record, shapes, dtype, axes, batch=0)
    single = jax.eval_shape(record.fun, *[jnp.asarray(a) for a in example])
    batched = jax.vmap(record.fun, in_axes=axes)
    for run in (batched, jax.jit(batched)):
        out = run(*[jnp.asarray(a) for a in args])
        assert out.shape == (0, *single.shape) and out.dtype == single.dtype
