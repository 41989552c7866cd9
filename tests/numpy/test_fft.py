"""stablax.numpy.fft against numpy.fft (values, dtypes, n/s/axes/norm), under jit, grad and vmap;
lax.fft's errors and its transposes against a dense-matrix reference."""

from __future__ import annotations

import numpy as np
import pytest

import stablax as jax
import stablax.numpy as jnp
from stablax import lax
from stablax.test_util import check_grads

NORMS = [None, "backward", "ortho", "forward"]


def _complex(rng, shape, dtype=np.complex64):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def _check(actual, expected, dtype, tol=2e-5):
    assert actual.dtype == np.dtype(dtype), (actual.dtype, dtype)
    scale = max(1.0, float(np.max(np.abs(expected), initial=0.0)))
    np.testing.assert_allclose(np.asarray(actual), expected, rtol=tol, atol=tol * scale)


# (name, input kind, keyword arguments); every case runs eagerly and under jit.
ONE_D = [
    ("fft", "complex", {}),
    ("fft", "real", {"n": 5}),
    ("fft", "complex", {"n": 11, "axis": 0}),
    ("ifft", "complex", {"axis": 0}),
    ("ifft", "complex", {"n": 4}),
    ("rfft", "real", {}),
    ("rfft", "real", {"n": 7, "axis": 0}),
    ("rfft", "real", {"n": 12}),
    ("irfft", "complex", {}),
    ("irfft", "complex", {"n": 9}),
    ("irfft", "complex", {"n": 4, "axis": 0}),
    ("hfft", "complex", {}),
    ("hfft", "complex", {"n": 7, "axis": 0}),
    ("ihfft", "real", {}),
    ("ihfft", "real", {"n": 5, "axis": 0}),
]


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name,kind,kwargs", ONE_D, ids=[f"{c[0]}-{c[2]}" for c in ONE_D])
def test_one_dimensional(name, kind, kwargs, norm, rng):
    x = _complex(rng, (6, 8)) if kind == "complex" else rng.standard_normal((6, 8)).astype("f4")
    expected = getattr(np.fft, name)(x, norm=norm, **kwargs)
    fn = getattr(jnp.fft, name)
    dtype = np.float32 if name in ("irfft", "hfft") else np.complex64
    _check(fn(x, norm=norm, **kwargs), expected, dtype)
    _check(jax.jit(lambda a: fn(a, norm=norm, **kwargs))(x), expected, dtype)


N_D = [
    ("fftn", "complex", {}),
    ("fftn", "real", {"axes": (0, 2)}),
    ("fftn", "complex", {"s": (3, 5)}),
    ("fftn", "complex", {"s": (2, 6, 3), "axes": (2, 0, 1)}),
    ("ifftn", "complex", {"axes": (-1, 0)}),
    ("ifftn", "complex", {"s": (4, 4)}),
    ("fft2", "complex", {}),
    ("fft2", "real", {"s": (5, 3), "axes": (0, 2)}),
    ("ifft2", "complex", {"axes": (1, 0)}),
    ("rfftn", "real", {}),
    ("rfftn", "real", {"s": (3, 7)}),
    ("rfftn", "real", {"axes": (2, 0)}),
    ("rfft2", "real", {}),
    ("rfft2", "real", {"s": (6, 5)}),
    ("irfftn", "complex", {}),
    ("irfftn", "complex", {"s": (3, 4, 9)}),
    ("irfftn", "complex", {"axes": (0, 1)}),
    ("irfft2", "complex", {}),
    ("irfft2", "complex", {"s": (4, 7)}),
]


@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
@pytest.mark.parametrize("name,kind,kwargs", N_D, ids=[f"{c[0]}-{c[2]}" for c in N_D])
def test_multi_dimensional(name, kind, kwargs, norm, rng):
    shape = (3, 4, 5)
    x = _complex(rng, shape) if kind == "complex" else rng.standard_normal(shape).astype("f4")
    reference_kwargs = dict(kwargs)
    if "s" in kwargs and "axes" not in kwargs:  # NumPy 2 wants the axes spelled out
        reference_kwargs["axes"] = tuple(range(-len(kwargs["s"]), 0))
    expected = getattr(np.fft, name)(x, norm=norm, **reference_kwargs)
    fn = getattr(jnp.fft, name)
    dtype = np.float32 if name.startswith("irfft") else np.complex64
    _check(fn(x, norm=norm, **kwargs), expected, dtype)
    _check(jax.jit(lambda a: fn(a, norm=norm, **kwargs))(x), expected, dtype)


@pytest.mark.parametrize("name", ["fftn", "rfftn", "irfftn", "ifftn"])
def test_more_than_three_axes(name, rng):
    # stablehlo.fft transforms at most three dimensions: the rest go in a second op.
    shape = (2, 3, 2, 4, 3)
    x = _complex(rng, shape) if name != "rfftn" else rng.standard_normal(shape).astype("f4")
    expected = getattr(np.fft, name)(x)
    dtype = np.float32 if name == "irfftn" else np.complex64
    _check(getattr(jnp.fft, name)(x), expected, dtype, tol=5e-5)
    _check(
        getattr(jnp.fft, name)(x, axes=(4, 0, 2, 1)),
        getattr(np.fft, name)(x, axes=(4, 0, 2, 1)),
        dtype,
        tol=5e-5,
    )


@pytest.mark.parametrize(
    "dtype,fft_dtype,rfft_dtype",
    [
        (np.float32, np.complex64, np.complex64),
        (np.float16, np.complex64, np.complex64),
        (np.int32, np.complex64, np.complex64),
        (np.uint8, np.complex64, np.complex64),
        (np.bool_, np.complex64, np.complex64),
        (np.complex64, np.complex64, None),
    ],
)
def test_result_dtypes(dtype, fft_dtype, rfft_dtype):
    x = np.ones(4, dtype)
    assert jnp.fft.fft(x).dtype == fft_dtype
    assert jnp.fft.ifft(x).dtype == fft_dtype
    assert jnp.fft.irfft(x).dtype == np.float32
    if rfft_dtype is None:
        with pytest.raises(ValueError, match="jnp.fft.rfft: only real valued inputs"):
            jnp.fft.rfft(x)
    else:
        assert jnp.fft.rfft(x).dtype == rfft_dtype


@pytest.mark.parametrize(
    "dtype,fft_dtype,rfft_dtype",
    [
        (np.float64, np.complex128, np.complex128),
        (np.int64, np.complex128, np.complex128),
        (np.int32, np.complex64, np.complex64),
        (np.float32, np.complex64, np.complex64),
        (np.complex128, np.complex128, None),
    ],
)
def test_result_dtypes_x64(dtype, fft_dtype, rfft_dtype, x64, rng):
    x = rng.standard_normal(6).astype(dtype)
    assert jnp.fft.fft(x).dtype == fft_dtype
    if rfft_dtype is not None:
        out = jnp.fft.rfft(x)
        assert out.dtype == rfft_dtype
        tol = 1e-12 if rfft_dtype == np.complex128 else 1e-5
        np.testing.assert_allclose(np.asarray(out), np.fft.rfft(x), rtol=tol, atol=tol)
    assert jnp.fft.fftfreq(5).dtype == np.float64


def test_frequencies():
    for n in (1, 4, 7):
        for d in (1.0, 0.25):
            _check(jnp.fft.fftfreq(n, d), np.fft.fftfreq(n, d), np.float32, 1e-6)
            _check(jnp.fft.rfftfreq(n, d), np.fft.rfftfreq(n, d), np.float32, 1e-6)
    assert jnp.fft.rfftfreq(5, dtype=jnp.float16).dtype == np.float16
    traced = jax.jit(lambda d: jnp.fft.fftfreq(6, d))(jnp.float32(0.5))
    _check(traced, np.fft.fftfreq(6, 0.5), np.float32, 1e-6)


@pytest.mark.parametrize("axes", [None, 0, 1, (0,), (1, 0), (-1,)])
def test_shifts(axes, rng):
    for shape in [(5, 6), (4, 7), (1, 3)]:
        x = rng.standard_normal(shape).astype("f4")
        np.testing.assert_array_equal(jnp.fft.fftshift(x, axes), np.fft.fftshift(x, axes))
        np.testing.assert_array_equal(jnp.fft.ifftshift(x, axes), np.fft.ifftshift(x, axes))
        np.testing.assert_array_equal(
            jax.jit(lambda a: jnp.fft.ifftshift(a, axes))(x), np.fft.ifftshift(x, axes)
        )


def test_round_trips(rng):
    x = rng.standard_normal((4, 6)).astype("f4")
    _check(jnp.fft.irfftn(jnp.fft.rfftn(x), s=x.shape), x, np.float32)
    _check(jnp.fft.ifft2(jnp.fft.fft2(x)).real, x, np.float32)
    _check(jnp.fft.hfft(jnp.fft.ihfft(x), n=6), x, np.float32)


# --- errors -------------------------------------------------------------------------------------


def test_numpy_errors():
    x = np.ones((2, 3), np.float32)
    with pytest.raises(ValueError, match="Invalid norm value bad"):
        jnp.fft.fft(x, norm="bad")
    with pytest.raises(ValueError, match=r"jnp.fft.fft: axis 2 is out of bounds.*test_fft.py"):
        jnp.fft.fft(x, axis=2)
    with pytest.raises(ValueError, match="does not support repeated axes"):
        jnp.fft.fftn(x, axes=(0, 0))
    with pytest.raises(ValueError, match="must be positive"):
        jnp.fft.fft(x, n=0)
    # One frequency means 0 points by default: an empty result, as JAX (not an error).
    assert jnp.fft.irfft(np.ones(1, np.complex64)).shape == (0,)
    with pytest.raises(ValueError, match="must be positive"):
        jnp.fft.irfft(np.ones(1, np.complex64), n=0)
    with pytest.raises(ValueError, match="same length"):
        jnp.fft.fftn(x, s=(2, 3), axes=(0,))


LAX_ERRORS = [
    (lambda: lax.fft(np.ones(4, np.complex64), "fft", (5,)), ValueError, "must end in"),
    (lambda: lax.fft(np.ones((2, 4), np.complex64), "fft", (2, 2, 4)), ValueError, "at least"),
    (lambda: lax.fft(np.ones((2,) * 4, np.complex64), "fft", (2,) * 4), ValueError, "1 to 3"),
    (lambda: lax.fft(np.ones(4, np.complex64), "rfft", (4,)), ValueError, "real input"),
    (lambda: lax.fft(np.ones(4, np.float16), "rfft", (4,)), ValueError, "float32 or float64"),
    (lambda: lax.fft(np.ones(4, np.complex64), "irfft", (5,)), ValueError, "must end in"),
    (lambda: lax.fft(np.ones(4, np.complex64), "bad", (4,)), ValueError, "unknown FFT type"),
    (lambda: lax.fft(np.ones(4, np.complex64), "fft", (4.5,)), ValueError, "equal to fft_lengths"),
    (lambda: lax.fft(np.ones(4, np.complex64), "fft", (4.0,)), TypeError, "integers"),
    (lambda: lax.fft(np.ones(4, np.complex64), "irfft", (4.5,)), TypeError, "integers"),
]


@pytest.mark.parametrize("make,kind,text", LAX_ERRORS)
def test_lax_errors(make, kind, text):
    with pytest.raises(kind, match=rf"lax.fft.*{text}.*test_fft.py"):
        make()


def test_fft_type_spellings():
    x = np.arange(4.0, dtype=np.float32)
    expected = np.fft.rfft(x)
    for spelling in ("rfft", "RFFT", lax.FftType.RFFT):
        _check(lax.fft(x, spelling, (4,)), expected, np.complex64)
    # As JAX: a plain int is not a spelling (TypeError), nor a mixed-case name (ValueError).
    with pytest.raises(TypeError, match="lax.fft: fft_type"):
        lax.fft(x, 2, (4,))
    with pytest.raises(ValueError, match="unknown FFT type"):
        lax.fft(x, "Rfft", (4,))


# --- transforms ---------------------------------------------------------------------------------


def _dense_vjp_reference(f, x, out_shape):
    """The VJP of a real-linear f for each real unit cotangent e_i, from f's matrix:
    ct_x = dRe(f_i)/dRe(x) - i dRe(f_i)/dIm(x), the bilinear-pairing convention."""
    flat = np.asarray(x).ravel()
    rows = []
    for i in range(int(np.prod(out_shape))):
        ct = np.zeros(int(np.prod(out_shape)))
        ct[i] = 1.0
        entry = []
        for k in range(flat.size):
            e = np.zeros(flat.size, flat.dtype)
            e[k] = 1
            d_re = np.real(np.asarray(f(e.reshape(x.shape))).ravel()[i])
            if flat.dtype.kind == "c":
                d_im = np.real(np.asarray(f((1j * e).reshape(x.shape))).ravel()[i])
                entry.append(d_re - 1j * d_im)
            else:
                entry.append(d_re)
        rows.append(entry)
    return np.real_if_close(np.asarray(rows))


@pytest.mark.parametrize(
    "kind,lengths,shape",
    [
        ("fft", (4,), (4,)),
        ("ifft", (2, 3), (2, 3)),
        ("rfft", (5,), (5,)),
        ("rfft", (2, 4), (2, 4)),
        ("irfft", (6,), (4,)),
        ("irfft", (5,), (3,)),
        ("irfft", (2, 4), (2, 3)),
    ],
)
def test_transpose_matches_dense_matrix(kind, lengths, shape, x64, rng):
    dtype = np.float64 if kind == "rfft" else np.complex128
    x = rng.standard_normal(shape).astype(dtype) if kind == "rfft" else _complex(rng, shape, dtype)

    def f(a):
        return lax.fft(a, kind, lengths)

    out, vjp = jax.vjp(f, jnp.asarray(x))
    reference = _dense_vjp_reference(lambda a: np.asarray(f(jnp.asarray(a))), x, out.shape)
    for i in range(reference.shape[0]):
        ct = np.zeros(out.size, out.dtype)
        ct[i] = 1
        (got,) = vjp(jnp.asarray(ct.reshape(out.shape)))
        np.testing.assert_allclose(np.asarray(got).ravel(), reference[i], atol=1e-10)


@pytest.mark.parametrize("name", ["fft", "rfft", "irfft", "hfft", "ihfft", "fft2", "irfftn"])
@pytest.mark.parametrize("norm", [None, "ortho"])
def test_grads(name, norm, x64, rng):
    real_input = name in ("rfft", "ihfft")
    x = rng.standard_normal((3, 4)) if real_input else _complex(rng, (3, 4), np.complex128)
    fn = getattr(jnp.fft, name)
    check_grads(lambda a: fn(a, norm=norm), (jnp.asarray(x),), order=2, modes=("fwd", "rev"))


def test_grad_of_power_spectrum(rng):
    x = rng.standard_normal(8).astype(np.float32)
    grad = jax.grad(lambda a: jnp.sum(jnp.abs(jnp.fft.rfft(a)) ** 2))(x)
    # sum |rfft(x)|^2 counts the paired frequencies once: by hand, 2 * R^T R x.
    matrix = np.fft.rfft(np.eye(8), axis=0)
    expected = 2 * np.real(matrix.conj().T @ matrix) @ x
    np.testing.assert_allclose(np.asarray(grad), expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", ["fft", "rfft", "irfft", "fftn", "rfft2", "fftshift"])
@pytest.mark.parametrize("in_axis", [0, 1])
def test_vmap_matches_loop(name, in_axis, rng):
    real_input = name in ("rfft", "rfft2", "fftshift")
    shape = (3, 4, 5)
    x = rng.standard_normal(shape).astype("f4") if real_input else _complex(rng, shape)
    fn = getattr(jnp.fft, name)
    batched = jax.vmap(fn, in_axes=in_axis)(x)
    expected = np.stack([np.asarray(fn(np.take(x, i, in_axis))) for i in range(shape[in_axis])])
    np.testing.assert_allclose(np.asarray(batched), expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "name, expected",  # JAX 0.10.2's values for d of shape (1, 1): NumPy's broadcasting
    [("fftfreq", [[0.0, 0.125, -0.25, -0.125]]), ("rfftfreq", [[0.0, 0.125, 0.25]])],
)
def test_frequencies_broadcast_an_array_spacing(name, expected):
    fn = getattr(jnp.fft, name)
    _check(fn(4, d=np.array([[2.0]])), np.array(expected), np.float32, 1e-6)
    _check(jax.jit(lambda d: fn(4, d=d))(np.array([[2.0]])), np.array(expected), np.float32, 1e-6)
