"""stablax.scipy's small submodules against SciPy: ndimage.map_coordinates, fft (DCTs),
integrate.trapezoid, interpolate.RegularGridInterpolator and cluster.vq.vq."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.cluster.vq as scv
import scipy.fft as sf
import scipy.integrate as si
import scipy.interpolate as sip
import scipy.ndimage as nd

import stablax
import stablax.numpy as jnp
from stablax.scipy.cluster.vq import vq
from stablax.scipy.fft import dct, dctn, idct, idctn
from stablax.scipy.integrate import trapezoid
from stablax.scipy.interpolate import RegularGridInterpolator
from stablax.scipy.ndimage import map_coordinates
from stablax.test_util import check_grads


def _normal(shape, dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def _close(actual, expected, tol):
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    np.testing.assert_allclose(actual, expected, rtol=tol, atol=tol, equal_nan=True)


# --- ndimage ----------------------------------------------------------------------------------

SCIPY_MODE = {"constant": "grid-constant", "wrap": "grid-wrap"}


@pytest.mark.parametrize("mode", ["constant", "nearest", "wrap", "mirror", "reflect"])
@pytest.mark.parametrize("order", [0, 1])
@pytest.mark.parametrize("shape", [(7,), (4, 5), (3, 4, 2)])
def test_map_coordinates_matches_scipy(shape, order, mode):
    rng = np.random.default_rng(len(shape))
    image = _normal(shape)
    coords = [rng.uniform(-2, s + 1, (3, 2)).astype(np.float32) for s in shape]
    expected = nd.map_coordinates(
        image, coords, order=order, mode=SCIPY_MODE.get(mode, mode), cval=-1.5, prefilter=False
    )
    _close(map_coordinates(image, coords, order, mode, cval=-1.5), expected, 1e-5)


def test_map_coordinates_integers_round_half_away_from_zero():
    image = np.array([0, 10, 20, 31], np.int32)
    out = map_coordinates(image, [np.array([0.5, 1.25, 2.5], np.float32)], 1)
    assert out.dtype == np.int32 and list(np.asarray(out)) == [5, 13, 26]


def test_map_coordinates_gradient(x64):
    image = _normal((4, 5), np.float64)
    coords = [np.array([0.3, 2.6]), np.array([1.2, 3.7])]
    check_grads(lambda img: map_coordinates(img, coords, 1, "nearest"), (image,), order=1)


# --- fft -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("norm", [None, "ortho"])
@pytest.mark.parametrize("dtype", [np.float32, np.complex64, np.float64])
def test_dcts_match_scipy(dtype, norm, request):
    if dtype == np.float64:
        request.getfixturevalue("x64")
    x = _normal((3, 4, 6), dtype)
    tol = 1e-10 if dtype == np.float64 else 2e-5
    scale = lambda y: np.asarray(y) / max(1.0, np.max(np.abs(y)))  # noqa: E731
    for ours, theirs in [
        (dct(x, norm=norm), sf.dct(x, norm=norm)),
        (dct(x, n=5, axis=0, norm=norm), sf.dct(x, n=5, axis=0, norm=norm)),
        (idct(x, axis=1, norm=norm), sf.idct(x, axis=1, norm=norm)),
        (dctn(x, norm=norm), sf.dctn(x, norm=norm)),
        (dctn(x, axes=(0, 2), s=[4, 7], norm=norm), sf.dctn(x, axes=(0, 2), s=[4, 7], norm=norm)),
        (idctn(x, axes=[1, 2], norm=norm), sf.idctn(x, axes=[1, 2], norm=norm)),
    ]:
        _close(scale(ours), np.asarray(theirs) / max(1.0, np.max(np.abs(theirs))), tol)


def test_dct_errors_and_gradient(x64):
    with pytest.raises(NotImplementedError, match="Only DCT type 2"):
        dct(np.ones(4), type=3)
    with pytest.raises(ValueError, match="norm='forward' is not implemented"):
        dct(np.ones(4), norm="forward")
    check_grads(lambda v: dctn(v, norm="ortho"), (_normal((3, 4), np.float64),), order=1)


# --- integrate, interpolate, cluster ---------------------------------------------------------


def test_trapezoid_matches_scipy():
    y, x = _normal((3, 5)), np.sort(_normal(5, seed=1))
    _close(trapezoid(y, x), si.trapezoid(y, x), 1e-5)
    _close(trapezoid(y, dx=0.25, axis=0), si.trapezoid(y, dx=0.25, axis=0), 1e-5)


@pytest.mark.parametrize("method", ["linear", "nearest"])
@pytest.mark.parametrize("fill_value", [np.nan, None, 0.5])
def test_regular_grid_interpolator_matches_scipy(method, fill_value, x64):
    grid = (np.linspace(0, 1, 4), np.array([0.0, 0.5, 1.5, 2.0, 4.0]))
    values = _normal((4, 5, 2), np.float64)
    points = np.random.default_rng(1).uniform(-0.3, 4.2, (7, 2))
    points[:, 0] /= 4
    ours = RegularGridInterpolator(grid, values, method=method, fill_value=fill_value)
    theirs = sip.RegularGridInterpolator(
        grid, values, method=method, bounds_error=False, fill_value=fill_value
    )
    _close(ours(points), theirs(points), 1e-12)
    _close(ours((points[:, 0], points[:, 1])), theirs((points[:, 0], points[:, 1])), 1e-12)
    jitted = stablax.jit(lambda interp, p: interp(p))  # a pytree through jit
    _close(jitted(ours, points), theirs(points), 1e-12)


def test_regular_grid_interpolator_errors():
    with pytest.raises(ValueError, match="method 'cubic' is not defined"):
        RegularGridInterpolator((np.arange(3.0),), np.arange(3.0), method="cubic")
    with pytest.raises(NotImplementedError, match="bounds_error"):
        RegularGridInterpolator((np.arange(3.0),), np.arange(3.0), bounds_error=True)


@pytest.mark.parametrize("shapes", [((8, 3), (4, 3)), ((6,), (3,))])
def test_vq_matches_scipy(shapes):
    obs, book = _normal(shapes[0]), _normal(shapes[1], seed=1)
    code, dist = vq(obs, book)
    expected_code, expected_dist = scv.vq(obs, book)
    np.testing.assert_array_equal(code, expected_code)
    _close(dist, expected_dist, 1e-5)
    with pytest.raises(ValueError, match="same rank"):
        vq(obs, book[None])


def test_vq_is_differentiable_in_the_distances(x64):
    obs, book = _normal((5, 2), np.float64), _normal((3, 2), np.float64, 1)
    check_grads(lambda o: vq(o, book)[1], (obs,), order=1)
    assert jnp.asarray(vq(obs, book)[0]).dtype == np.int64
