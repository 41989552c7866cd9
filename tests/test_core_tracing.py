"""Tracers as users meet them: inside jit, escaping it, and handed to NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax import lax
from stablax._src.core import (
    ConcretizationTypeError,
    TracerArrayConversionError,
    UnexpectedTracerError,
)


def _leak():
    """Returns a tracer smuggled out of a jitted function through a global list."""
    stash = []

    @stablax.jit
    def f(x):
        stash.append(x * 2)
        return x

    f(jnp.arange(3.0))
    assert len(stash) == 1
    return stash[0]


# --- escaped tracers ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "use",
    [
        lambda t: t + 1,
        lambda t: 1.0 * t,
        lambda t: -t,
        lambda t: jnp.sin(t),
        lambda t: jnp.sum(t),
        lambda t: t.sum(),
        lambda t: t[0],
        lambda t: jnp.reshape(t, (3, 1)),
        lambda t: lax.exp(t),
        lambda t: stablax.jit(lambda y: y + 1)(t),
        lambda t: stablax.jit(lambda y: y + t)(jnp.ones(3)),
    ],
    ids=[
        "add",
        "radd",
        "neg",
        "sin",
        "sum",
        "method",
        "index",
        "reshape",
        "lax",
        "jit-arg",
        "jit-closure",
    ],
)
def test_escaped_tracer_raises_unexpected_tracer_error(use):
    leaked = _leak()
    with pytest.raises(UnexpectedTracerError):
        use(leaked)


def test_unexpected_tracer_error_is_a_type_error_with_a_useful_message():
    leaked = _leak()
    with pytest.raises(TypeError) as info:
        stablax.jit(lambda y: y + leaked)(jnp.ones(3))
    assert isinstance(info.value, UnexpectedTracerError)
    message = str(info.value)
    assert "float32[3]" in message
    assert "escape" in message
    assert "test_core_tracing.py" in message


def test_escaped_tracer_keeps_its_abstract_value():
    leaked = _leak()
    assert leaked.shape == (3,)
    assert leaked.dtype == np.float32
    assert leaked.ndim == 1
    assert "float32[3]" in repr(leaked)


# --- tracers handed to NumPy -------------------------------------------------------------------


def test_np_asarray_of_tracer_explains_to_use_stablax_numpy():
    @stablax.jit
    def f(x):
        return np.asarray(x)

    with pytest.raises(TypeError) as info:
        f(jnp.ones(2))
    assert isinstance(info.value, TracerArrayConversionError)
    message = str(info.value)
    assert "stablax.numpy" in message
    assert "__array__" in message
    assert "float32[2]" in message


def test_numpy_conversion_of_tracer_raises_but_method_dispatch_works():
    # np.sum(x) calls x.sum(...), which traces fine (as in JAX); np.array(x) needs a value.
    assert float(stablax.jit(lambda x: np.sum(x))(jnp.ones(2))) == 2.0
    with pytest.raises(TypeError):
        stablax.jit(lambda x: np.array(x) + 1)(jnp.ones(2))


# --- tracers inside jit ------------------------------------------------------------------------


def test_tracer_attributes_and_shape_driven_python_control_flow():
    seen = {}

    @stablax.jit
    def f(x):
        seen.update(shape=x.shape, dtype=x.dtype, ndim=x.ndim, size=x.size, length=len(x))
        if x.shape[0] > 2:  # shapes are static: Python control flow on them is fine
            return x[:2]
        return x

    assert f(jnp.ones((4, 3))).shape == (2, 3)
    assert seen == {"shape": (4, 3), "dtype": np.float32, "ndim": 2, "size": 12, "length": 4}
    assert f(jnp.ones((2, 3))).shape == (2, 3)


def test_iterating_over_a_tracer_unrolls_the_leading_axis():
    @stablax.jit
    def f(x):
        total = jnp.zeros(x.shape[1:])
        for row in x:
            total = total + row
        return total

    x = np.arange(12.0, dtype=np.float32).reshape(4, 3)
    np.testing.assert_array_equal(np.asarray(f(jnp.asarray(x))), x.sum(0))


def test_tracer_is_unhashable_and_immutable():
    def hash_it(x):
        hash(x)
        return x

    with pytest.raises(TypeError):
        stablax.jit(hash_it)(jnp.ones(2))

    def assign(x):
        x[0] = 1.0
        return x

    with pytest.raises(TypeError, match=r"\.at"):
        stablax.jit(assign)(jnp.ones(2))


@pytest.mark.parametrize(
    "convert",
    [bool, int, float, complex, lambda x: x.item(), lambda x: x.tolist()],
    ids=["bool", "int", "float", "complex", "item", "tolist"],
)
def test_host_conversions_of_tracers_are_concretization_errors(convert):
    with pytest.raises(ConcretizationTypeError) as info:
        stablax.jit(lambda x: convert(x))(jnp.asarray(1.0))
    assert isinstance(info.value, TypeError)
    assert "float32[]" in str(info.value)


def test_traced_scalar_integer_index_works_and_float_index_does_not():
    x = jnp.arange(5.0) * 10
    np.testing.assert_array_equal(np.asarray(stablax.jit(lambda a, i: a[i])(x, 3)), 30.0)
    with pytest.raises(TypeError):
        stablax.jit(lambda a, i: a[i])(x, 1.0)


def test_tracer_repr_names_its_abstract_value():
    reprs = []

    @stablax.jit
    def f(x):
        reprs.append(repr(x))
        return x

    f(jnp.ones((2, 3), jnp.int32))
    assert "int32[2,3]" in reprs[0]


def test_tracer_isinstance_array():
    checks = []

    @stablax.jit
    def f(x):
        checks.append(isinstance(x, stablax.Array))
        return x

    f(jnp.ones(2))
    assert checks == [True]
