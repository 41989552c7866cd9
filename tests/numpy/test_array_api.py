"""The Array API namespace: version, namespace info, isdtype, astype, spelled-differently names."""

from __future__ import annotations

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp


def test_namespace():
    x = jnp.ones(3)
    assert jnp.__array_api_version__ == "2024.12"
    assert x.__array_namespace__() is jnp and x.__array_namespace__(api_version="2024.12") is jnp
    with pytest.raises(ValueError, match="not available"):
        x.__array_namespace__(api_version="2021.12")
    np.testing.assert_array_equal(x.to_device(x.device), np.ones(3))
    np.testing.assert_array_equal(jnp.ones((2, 3)).mT, np.ones((3, 2)))


def test_namespace_info():
    info = jnp.__array_namespace_info__()
    assert info.capabilities()["boolean indexing"] is False
    assert info.default_device() is None and info.devices()[1:] == stablax.devices()
    assert info.default_dtypes()["real floating"] == np.float32
    assert info.default_dtypes()["indexing"] == np.int32
    assert set(info.dtypes(kind="integral")) == {
        "int8",
        "int16",
        "int32",
        "uint8",
        "uint16",
        "uint32",
    }
    assert set(info.dtypes(kind=("bool", "real floating"))) == {"bool", "float32"}
    assert "float64" not in info.dtypes()


def test_isdtype():
    assert jnp.isdtype(jnp.float32, "real floating") and jnp.isdtype(jnp.bfloat16, "real floating")
    assert jnp.isdtype(np.int8, ("bool", np.int8)) and jnp.isdtype(np.uint8, "integral")
    assert not jnp.isdtype(np.complex64, "real floating") and jnp.isdtype(np.complex64, "numeric")
    assert not jnp.isdtype(np.bool_, "numeric") and jnp.isdtype(np.int16, "signed integer")
    with pytest.raises(ValueError, match="unrecognized kind"):
        jnp.isdtype(np.int8, "whole")


def test_astype():
    x = jnp.arange(3)
    assert jnp.astype(x, jnp.float16).dtype == np.float16
    y = jnp.astype(x, x.dtype, copy=True)
    assert y is not x
    np.testing.assert_array_equal(y, [0, 1, 2])
    assert x.astype(jnp.float32, copy=True).dtype == np.float32


@pytest.mark.parametrize(
    "new,old",
    [
        ("acos", "arccos"),
        ("asinh", "arcsinh"),
        ("atan2", "arctan2"),
        ("bitwise_left_shift", "left_shift"),
        ("bitwise_right_shift", "right_shift"),
        ("concat", "concatenate"),
        ("permute_dims", "transpose"),
    ],
)
def test_aliases(new, old):
    assert hasattr(jnp, new) and hasattr(jnp, old)
    args = {
        "atan2": (np.float32(0.5), np.float32(2.0)),
        "bitwise_left_shift": (np.int32(3), np.int32(2)),
        "bitwise_right_shift": (np.int32(12), np.int32(2)),
        "concat": ([np.ones(2), np.zeros(1)],),
        "permute_dims": (np.ones((2, 3)), (1, 0)),
    }.get(new, (np.float32(0.5),))
    np.testing.assert_allclose(getattr(jnp, new)(*args), getattr(jnp, old)(*args))
