"""Bad shapes and dtypes in elementwise ops and dot_general raise our own errors, naming the op,
the shapes or dtypes, and the user's line, eagerly and under jit, before MLIR sees anything."""

from __future__ import annotations

import numpy as np
import pytest

import stablax as jax
import stablax.numpy as jnp
from stablax import lax

F32 = jnp.ones((2, 3), jnp.float32)
F16 = jnp.ones((2, 3), jnp.float16)
I32 = jnp.ones((2, 3), jnp.int32)
V4 = jnp.ones((4,), jnp.float32)

CASES = [
    ("add", lambda: lax.add(F32, F16), TypeError, "lax.add requires arguments to have the same"),
    ("mul_ranks", lambda: lax.mul(F32, V4), TypeError, "mul: arrays must have the same number"),
    (
        "mul_shapes",
        lambda: lax.mul(jnp.ones(3), jnp.ones(4)),
        TypeError,
        "mul got incompatible shapes",
    ),
    ("sin_int", lambda: lax.sin(I32), TypeError, "lax.sin does not accept dtype int32"),
    ("and_float", lambda: lax.bitwise_and(F32, F32), TypeError, "lax.bitwise_and does not accept"),
    ("select_pred", lambda: lax.select(F32, F32, F32), TypeError, "predicate must be boolean"),
    (
        "clamp_dtype",
        lambda: lax.clamp(np.int32(0), F32, np.int32(1)),
        TypeError,
        "lax.clamp requires min and operand to have the same dtype",
    ),
    (
        "dot_contract",
        lambda: lax.dot_general(F32, F32, (((1,), (0,)), ((), ()))),
        TypeError,
        "lax.dot_general requires contracting dimensions",
    ),
    (
        "dot_dtype",  # operands of different dtypes are converted, as JAX; a narrower result not
        lambda: lax.dot(
            jnp.ones((2, 3), jnp.int32),
            jnp.ones((3, 2), jnp.int32),
            preferred_element_type=jnp.int8,
        ),
        TypeError,
        "lax.dot_general: preferred_element_type int8 is narrower",
    ),
    (
        "dot_range",
        lambda: lax.dot_general(F32, F32, (((5,), (0,)), ((), ()))),
        TypeError,
        "out of range",
    ),
    ("complex_dtype", lambda: lax.complex(I32, I32), TypeError, "lax.complex does not accept"),
]


@pytest.mark.parametrize("name,fn,error,message", CASES, ids=[c[0] for c in CASES])
def test_error_names_op_and_user_line(name, fn, error, message):
    with pytest.raises(error) as info:
        fn()
    assert message in str(info.value)
    assert __file__ in str(info.value)


@pytest.mark.parametrize("name,fn,error,message", CASES, ids=[c[0] for c in CASES])
def test_error_under_jit(name, fn, error, message):
    with pytest.raises(error) as info:
        jax.jit(lambda: fn())()
    assert message in str(info.value)
    assert __file__ in str(info.value)
