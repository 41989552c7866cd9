"""stablax.array_api: the Array API names of stablax.numpy, with 64-bit dtypes only under x64."""

from __future__ import annotations

import numpy as np
import pytest

import stablax
import stablax.array_api as xp
import stablax.numpy as jnp
from stablax._src.config import config

DTYPES_32 = ["bool", "int8", "int16", "int32", "uint8", "uint16", "uint32", "float32", "complex64"]
DTYPES_64 = ["int64", "uint64", "float64", "complex128"]
# One name per group of the standard, and the extensions; the whole list is xp._FUNCTIONS.
NAMES = ["asarray", "acos", "bitwise_left_shift", "concat", "permute_dims", "pow", "unique_all"]
NAMES += ["cumulative_sum", "isdtype", "iinfo", "take_along_axis", "e", "pi", "inf", "newaxis"]
NAMES += ["linalg", "fft", "__array_api_version__", "__array_namespace_info__"]
NOT_STANDARD = ["arccos", "concatenate", "transpose", "float16", "bfloat16", "ndarray", "lax"]


def _visible(name: str) -> bool:
    return hasattr(xp, name) and name in dir(xp) and name in xp.__all__


@pytest.mark.parametrize("name", NAMES + DTYPES_32)
def test_standard_names_are_stablax_numpy_objects(name):
    assert _visible(name)
    ours = getattr(xp, name)  # the very object, not a copy
    assert ours is getattr(jnp, name)


def test_every_name_exists_in_both_modes_and_the_rest_is_absent():
    for name in xp._FUNCTIONS:
        assert getattr(xp, name) is getattr(jnp, name), name
    assert _visible("finfo") and _visible("searchsorted")  # adapted: see the tests below
    for name in NOT_STANDARD:
        assert not hasattr(xp, name) and name not in dir(xp), name
    assert xp.linalg is jnp.linalg and xp.fft is jnp.fft
    assert xp.__array_api_version__ == "2024.12"


def test_64_bit_dtypes_follow_x64_flag():
    assert not config.jax_enable_x64
    for name in DTYPES_64:
        assert not _visible(name), name
        with pytest.raises(AttributeError, match=f"no attribute '{name}'.*x64"):
            getattr(xp, name)
    with stablax.enable_x64():
        for name in DTYPES_64:
            assert _visible(name) and getattr(xp, name) is getattr(jnp, name), name
        assert xp.asarray(1.0).dtype == xp.float64
    assert not any(hasattr(xp, name) for name in DTYPES_64)
    with pytest.raises(AttributeError, match="no attribute 'nonexistent'"):
        xp.nonexistent  # noqa: B018


def test_64_bit_dtypes_follow_config_update(x64):
    assert all(_visible(name) for name in DTYPES_64)
    config.update("jax_enable_x64", False)
    assert not any(hasattr(xp, name) for name in DTYPES_64)
    config.update("jax_enable_x64", True)
    assert xp.float64 is jnp.float64


def test_star_import_gives_this_mode_names():
    namespace: dict = {}
    exec("from stablax.array_api import *", namespace)
    assert "float32" in namespace and "float64" not in namespace and "linalg" in namespace
    with stablax.enable_x64():
        namespace = {}
        exec("from stablax.array_api import *", namespace)
        assert namespace["float64"] is jnp.float64


@pytest.mark.parametrize("module", [jnp, xp], ids=["numpy", "array_api"])
@pytest.mark.parametrize("enabled", [False, True], ids=["x32", "x64"])
def test_info_dtypes_are_this_mode_dtypes(module, enabled):
    with stablax.enable_x64(enabled):
        info = module.__array_namespace_info__()
        names = DTYPES_32 + (DTYPES_64 if enabled else [])
        assert set(info.dtypes()) == set(names)
        assert all(info.dtypes()[n] == np.dtype(n) for n in names)
        assert all(hasattr(xp, n) for n in info.dtypes())  # info and the names agree
        floats = {"float32", "float64"} if enabled else {"float32"}
        assert set(info.dtypes(kind="real floating")) == floats
        bits = 64 if enabled else 32
        assert info.default_dtypes() == {
            "real floating": np.dtype(f"float{bits}"),
            "complex floating": np.dtype(f"complex{2 * bits}"),
            "integral": np.dtype(f"int{bits}"),
            "indexing": np.dtype(f"int{bits}"),
        }
        for kind, dtype in info.default_dtypes().items():  # what arrays actually get
            value = {"real floating": 1.0, "complex floating": 1j}.get(kind, 1)
            assert module.asarray(value).dtype == dtype


FINFO_CASES = [  # (dtype name, NumPy's finfo of the real dtype)
    ("float32", "float32"),
    ("complex64", "float32"),
    ("float64", "float64"),
    ("complex128", "float64"),
]


@pytest.mark.parametrize(("name", "real"), FINFO_CASES)
def test_finfo_gives_python_numbers_equal_to_numpy(name, real):
    with stablax.enable_x64(real == "float64"):  # the 64-bit names exist only then
        dtype = getattr(xp, name)
        expected = np.finfo(real)
        for arg in (dtype, xp.asarray(1, dtype=dtype), xp.asarray(1, dtype=dtype).dtype):
            info = xp.finfo(arg)
            assert type(info.bits) is int and info.bits == expected.bits
            for field, value in [
                ("eps", expected.eps),
                ("max", expected.max),
                ("min", expected.min),
                ("smallest_normal", expected.smallest_normal),
            ]:
                assert type(getattr(info, field)) is float, field
                assert getattr(info, field) == float(value), field
            assert info.dtype == np.dtype(real)


SEARCHSORTED_CASES = [  # (sorted values, queries, side, use a sorter)
    ([1, 2, 2, 5], [0, 2, 6], "left", False),
    ([1, 2, 2, 5], [[2, 5], [1, 3]], "right", False),
    ([0.5, -1.0, 3.0], [-1.0, 0.5, 4.0], "left", True),
    ([7], [7], "right", True),
]


@pytest.mark.parametrize("dtype", ["uint8", "int32", "float32"])
@pytest.mark.parametrize("enabled", [False, True], ids=["x32", "x64"])
@pytest.mark.parametrize(("a", "v", "side", "use_sorter"), SEARCHSORTED_CASES)
def test_searchsorted_gives_default_index_dtype(a, v, side, use_sorter, dtype, enabled):
    if dtype == "uint8":
        a, v = np.abs(a), np.abs(v)
    with stablax.enable_x64(enabled):
        a_np, v_np = np.asarray(a, dtype), np.asarray(v, dtype)
        sorter = np.argsort(a_np) if use_sorter else None
        if sorter is None:
            a_np = np.sort(a_np)
        out = xp.searchsorted(
            xp.asarray(a_np),
            xp.asarray(v_np),
            side=side,
            sorter=None if sorter is None else xp.asarray(sorter),
        )
        expected = np.searchsorted(a_np, v_np, side=side, sorter=sorter)
        np.testing.assert_array_equal(np.asarray(out), expected)
        assert out.dtype == xp.__array_namespace_info__().default_dtypes()["indexing"]
        assert jnp.searchsorted(a_np, v_np, side=side, sorter=sorter).dtype == np.int32  # JAX's
