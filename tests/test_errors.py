"""The public error classes are the ones tracing raises."""

from __future__ import annotations

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax import errors


def test_concretization_error_is_public_and_a_type_error():
    def f(x):
        return x if x > 0 else -x

    with pytest.raises(errors.ConcretizationTypeError):
        stablax.jit(f)(1.0)
    assert issubclass(errors.ConcretizationTypeError, TypeError)


def test_tracer_array_conversion_error_is_public():
    with pytest.raises(errors.TracerArrayConversionError):
        stablax.jit(lambda x: np.array(x))(jnp.ones(2))
