"""stablax.image against JAX 0.10.2's outputs and gradients (recorded by
scripts/record_image_reference.py), every method with and without antialiasing."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax import image

DATA = pathlib.Path(__file__).resolve().parent / "data" / "image"
CASES = json.loads((DATA / "cases.json").read_text())
VALUES = np.load(DATA / "values.npz")


def _call(case, x, scale=None, translation=None):
    if case["fn"] == "resize":
        return image.resize(x, case["dst"], case["method"], case["antialias"])
    scale = jnp.asarray(case["scale"], jnp.float32) if scale is None else scale
    translation = (
        jnp.asarray(case["translation"], jnp.float32) if translation is None else translation
    )
    return image.scale_and_translate(
        x, case["dst"], case["dims"], scale, translation, case["method"], case["antialias"]
    )


def _weights(shape):
    return np.cos(np.arange(int(np.prod(shape)), dtype=np.float32)).reshape(shape)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_matches_jax(case):
    x = VALUES[case["id"] + "_input"]
    got = _call(case, jnp.asarray(x))
    want = VALUES[case["id"]]
    assert got.dtype == want.dtype and got.shape == want.shape
    if case["method"] == "nearest":
        np.testing.assert_array_equal(np.asarray(got), want)
    else:
        np.testing.assert_allclose(np.asarray(got), want, rtol=2e-5, atol=2e-5)


GRAD_CASES = [c for c in CASES if c["id"] + "_grad" in VALUES.files]


@pytest.mark.parametrize("case", GRAD_CASES[::3], ids=[c["id"] for c in GRAD_CASES[::3]])
def test_gradients_match_jax(case):
    x = jnp.asarray(VALUES[case["id"] + "_input"])
    w = _weights(case["dst"])
    if case["fn"] == "resize":
        got = stablax.grad(lambda x: (_call(case, x) * w).sum())(x)
        np.testing.assert_allclose(np.asarray(got), VALUES[case["id"] + "_grad"], atol=1e-4)
        return
    s = jnp.asarray(case["scale"], jnp.float32)
    t = jnp.asarray(case["translation"], jnp.float32)
    grads = stablax.grad(lambda x, s, t: (_call(case, x, s, t) * w).sum(), argnums=(0, 1, 2))
    for got, suffix in zip(grads(x, s, t), ("_grad", "_dscale", "_dtranslation"), strict=True):
        np.testing.assert_allclose(
            np.asarray(got), VALUES[case["id"] + suffix], rtol=1e-4, atol=1e-3
        )


def test_identity_resize_and_float64(x64):
    x = np.random.default_rng(0).standard_normal((4, 5))
    for method in ("linear", "cubic", "lanczos3", "area", "nearest"):
        out = image.resize(x, (4, 5), method)
        assert out.dtype == np.float64
        np.testing.assert_allclose(np.asarray(out), x, rtol=1e-12)


def test_jit_and_vmap_of_resize():
    x = jnp.asarray(np.random.default_rng(1).standard_normal((3, 6, 6)).astype(np.float32))
    eager = image.resize(x, (3, 4, 9), "cubic")
    jitted = stablax.jit(lambda x: image.resize(x, (3, 4, 9), "cubic"))(x)
    np.testing.assert_allclose(np.asarray(jitted), np.asarray(eager), atol=1e-5)
    mapped = stablax.vmap(lambda im: image.resize(im, (4, 9), "cubic"))(x)
    np.testing.assert_allclose(np.asarray(mapped), np.asarray(eager), atol=1e-5)


def test_method_names_and_errors():
    assert image.ResizeMethod.from_string("bilinear") is image.ResizeMethod.LINEAR
    assert image.ResizeMethod.from_string("tricubic") is image.ResizeMethod.CUBIC
    with pytest.raises(ValueError, match="Unknown resize method"):
        image.resize(jnp.ones((2, 2)), (3, 3), "bogus")
    with pytest.raises(ValueError, match="shape must have length"):
        image.resize(jnp.ones((2, 2)), (3,), "linear")
    with pytest.raises(ValueError, match="Nearest neighbor"):
        image.scale_and_translate(
            jnp.ones((2, 2)), (3, 3), (0, 1), [1.0, 1.0], [0.0, 0.0], "nearest"
        )
