"""The checks behind the reproducer tables (`test_fuzz_2001_*.py`): a row's call gives the
expected value (exactly, or within `rtol`; a tuple of values for several results) or raises the
expected exception class; a typed row's
result is a stablax Array of the expected dtype and weak type."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import stablax


def value(x: Any) -> Any:
    """`x` as nested Python lists and scalars, for comparison with a table's expected value."""
    return np.asarray(x).tolist()


def check_finding(call: Callable[[], Any], expected: Any, rtol: float = 0.0) -> None:
    if isinstance(expected, type):
        with pytest.raises(expected):
            call()
        return
    out = call()
    if isinstance(expected, tuple):  # several results, each compared
        assert tuple(value(o) for o in out) == expected
        return
    out = value(out)
    if rtol and out:
        assert np.allclose(out, expected, rtol=rtol, atol=0), (out, expected)
    else:
        assert out == expected


def check_result_type(call: Callable[[], Any], expected: Any, dtype: str, weak: bool) -> None:
    out = call()
    assert isinstance(out, stablax.Array), type(out)
    assert (str(out.dtype), out.weak_type) == (dtype, weak)
    assert value(out) == expected


def under_x64(call: Callable[[], Any]) -> Callable[[], Any]:
    """`call` run with jax_enable_x64 on, for a row whose finding was in the x64 mode."""

    def run():
        with stablax.enable_x64():
            return call()

    return run
