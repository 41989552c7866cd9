"""stablax.nn against hand-written NumPy forms (float64 references), at extreme inputs too; the
custom derivatives JAX defines; attention against a NumPy attention; block-scaled products
against recorded JAX quantisation."""

from __future__ import annotations

import pathlib

import ml_dtypes
import numpy as np
import pytest
import scipy.special as sp

import stablax
import stablax.numpy as jnp
from stablax import nn
from stablax._src.nn.scaled_matmul import _quantize
from stablax.test_util import check_grads

DATA = pathlib.Path(__file__).resolve().parents[1] / "data" / "nn"

EXTREMES = np.array(
    [-1e4, -100.0, -30.0, -5.0, -1.0, -1e-3, 0.0, 1e-3, 0.5, 1.0, 3.0, 5.9, 6.0, 30.0, 100.0, 1e4]
)
POSITIVE = np.array([1e-30, 1e-7, 1e-3, 0.1, 0.69, 0.7, 1.0, 5.0, 30.0, 100.0, 1e4])
SELU_ALPHA, SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _np_elu(x, alpha=1.0):
    return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0)))


def _np_hard_sigmoid(x):
    return np.clip(x + 3, 0, 6) / 6


# name -> (stablax function, NumPy reference in float64, inputs)
ACTIVATIONS = {
    "relu": (nn.relu, lambda x: np.maximum(x, 0), EXTREMES),
    "relu6": (nn.relu6, lambda x: np.clip(x, 0, 6), EXTREMES),
    "sigmoid": (nn.sigmoid, sp.expit, EXTREMES),
    "softplus": (nn.softplus, lambda x: np.logaddexp(x, 0), EXTREMES),
    "log_sigmoid": (nn.log_sigmoid, lambda x: -np.logaddexp(0, -x), EXTREMES),
    "silu": (nn.silu, lambda x: x * sp.expit(x), EXTREMES),
    "swish": (nn.swish, lambda x: x * sp.expit(x), EXTREMES),
    "mish": (nn.mish, lambda x: x * np.tanh(np.logaddexp(x, 0)), EXTREMES),
    "elu": (nn.elu, _np_elu, EXTREMES),
    "celu": (nn.celu, lambda x: np.maximum(x, 0) + np.expm1(np.minimum(x, 0)), EXTREMES),
    "selu": (nn.selu, lambda x: SELU_SCALE * _np_elu(x, SELU_ALPHA), EXTREMES),
    "leaky_relu": (nn.leaky_relu, lambda x: np.where(x >= 0, x, 0.01 * x), EXTREMES),
    "hard_tanh": (nn.hard_tanh, lambda x: np.clip(x, -1, 1), EXTREMES),
    "hard_sigmoid": (nn.hard_sigmoid, _np_hard_sigmoid, EXTREMES),
    "hard_silu": (nn.hard_silu, lambda x: x * _np_hard_sigmoid(x), EXTREMES),
    "hard_swish": (nn.hard_swish, lambda x: x * _np_hard_sigmoid(x), EXTREMES),
    "soft_sign": (nn.soft_sign, lambda x: x / (np.abs(x) + 1), EXTREMES),
    "sparse_plus": (
        nn.sparse_plus,
        lambda x: np.where(x <= -1, 0, np.where(x >= 1, x, (x + 1) ** 2 / 4)),
        EXTREMES,
    ),
    "sparse_sigmoid": (nn.sparse_sigmoid, lambda x: 0.5 * np.clip(x + 1, 0, 2), EXTREMES),
    "squareplus": (nn.squareplus, lambda x: (x + np.sqrt(x * x + 4)) / 2, EXTREMES),
    "gelu_exact": (lambda x: nn.gelu(x, approximate=False), lambda x: x * sp.ndtr(x), EXTREMES),
    "gelu_tanh": (
        nn.gelu,
        lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3))),
        EXTREMES,
    ),
    "log1mexp": (
        nn.log1mexp,
        lambda x: np.where(x < np.log(2), np.log(-np.expm1(-x)), np.log1p(-np.exp(-x))),
        POSITIVE,
    ),
    "tanh": (nn.tanh, np.tanh, EXTREMES),
    "identity": (nn.identity, lambda x: x, EXTREMES),
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_activation_values(name, dtype, request):
    if dtype == "float64":
        request.getfixturevalue("x64")
    fn, reference, points = ACTIVATIONS[name]
    x = points.astype(dtype)
    got = np.asarray(fn(jnp.asarray(x)))
    assert got.dtype == np.dtype(dtype)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        want = reference(x.astype(np.float64))
    eps = np.finfo(dtype).eps
    # Entries whose JAX formula cancels (x + sqrt(x^2 + b) for x << 0, 1 + tanh(.) for gelu's
    # approximation) are only accurate to a few ulps of the cancelling terms, |x| in size.
    cancelling = 8 * eps * np.abs(x) if name in ("squareplus", "gelu_tanh") else 0.0
    error = np.abs(got.astype(np.float64) - want)
    finite = np.isfinite(want)
    # XLA:CPU flushes subnormal results to zero: allow an absolute error of the smallest normal.
    tiny = np.finfo(dtype).tiny
    bound = 16 * eps * np.abs(want) + cancelling + tiny
    assert (error[finite] <= bound[finite]).all(), (
        got,
        want,
    )
    np.testing.assert_array_equal(got[~finite], want[~finite].astype(dtype))


# name -> points away from the kinks, where finite differences are valid
DIFFERENTIABLE = {
    "relu": [-2.0, 0.5],
    "relu6": [-1.0, 3.0, 7.0],
    "sigmoid": [-3.0, 0.0, 2.0],
    "softplus": [-30.0, 0.3, 30.0],
    "log_sigmoid": [-30.0, 0.3, 20.0],
    "silu": [-2.0, 0.7],
    "mish": [-2.0, 0.7],
    "elu": [-2.0, 0.7],
    "celu": [-2.0, 0.7],
    "selu": [-2.0, 0.7],
    "leaky_relu": [-2.0, 0.7],
    "soft_sign": [-2.0, 0.7],
    "squareplus": [-2.0, 0.7],
    "gelu_exact": [-2.0, 0.7],
    "gelu_tanh": [-2.0, 0.7],
    "log1mexp": [1e-3, 0.5, 3.0],
    "hard_silu": [-2.0, 1.0],
    "sparse_plus": [-0.5, 0.5, 2.0],
}


@pytest.mark.parametrize("name", sorted(DIFFERENTIABLE))
def test_activation_gradients(name, x64):
    fn = ACTIVATIONS[name][0]
    check_grads(fn, (np.array(DIFFERENTIABLE[name]),), order=2, modes=("fwd", "rev"))


def test_relu_family_derivative_at_the_kinks():
    assert float(stablax.grad(nn.relu)(0.0)) == 0.0
    assert float(stablax.grad(nn.relu)(1.0)) == 1.0
    assert float(stablax.grad(nn.relu6)(0.0)) == 0.0
    assert float(stablax.grad(nn.relu6)(6.0)) == 0.0
    assert float(stablax.grad(nn.hard_sigmoid)(-3.0)) == 0.0
    grads = stablax.vmap(stablax.grad(nn.relu))(jnp.array([-1.0, 0.0, 2.0]))
    np.testing.assert_array_equal(np.asarray(grads), [0.0, 0.0, 1.0])


def test_log1mexp_derivative_is_custom():
    # 1 / expm1(x): finite for tiny x where the formula's own derivative would lose digits.
    np.testing.assert_allclose(
        float(stablax.grad(nn.log1mexp)(1e-4)), 1 / np.expm1(1e-4), rtol=1e-4
    )


def test_activation_dtypes_follow_jax():
    i32 = jnp.asarray(np.int32(3))
    assert nn.relu(i32).dtype == np.int32
    assert nn.relu(3).dtype == np.int32
    assert nn.hard_tanh(i32).dtype == np.int32
    assert nn.relu6(i32).dtype == np.float32
    assert nn.softplus(i32).dtype == np.float32
    assert nn.gelu(i32).dtype == np.float32
    assert nn.relu(jnp.asarray(np.float16(3))).dtype == np.float16
    with pytest.raises(TypeError):
        nn.sigmoid(i32)
    with pytest.raises(TypeError, match="ndarray or scalar"):
        nn.silu([1.0, 2.0])


def _np_softmax(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def test_softmax_family_extreme_inputs():
    x = np.array([[1000.0, 0.0, -1000.0], [-np.inf, 0.0, 1.0], [3.0, 3.0, 3.0]], np.float32)
    np.testing.assert_allclose(
        np.asarray(nn.softmax(x)), _np_softmax(x.astype(np.float64)), atol=1e-7
    )
    log_probs = np.asarray(nn.log_softmax(x))
    np.testing.assert_array_equal(log_probs[0], [0.0, -1000.0, -2000.0])
    np.testing.assert_allclose(log_probs[2], np.full(3, -np.log(3)), rtol=1e-6)
    np.testing.assert_allclose(log_probs[1, 1:], np.log(sp.softmax([0.0, 1.0])), rtol=1e-6)
    assert np.isneginf(np.asarray(nn.log_softmax(x))[1, 0])
    assert np.isnan(np.asarray(nn.softmax(np.array([-np.inf, -np.inf])))).all()
    np.testing.assert_allclose(
        np.asarray(nn.softmax(x, axis=0)), _np_softmax(x.astype(np.float64), axis=0), atol=1e-7
    )


def test_softmax_where():
    x = np.array([1.0, 2.0, 3.0], np.float32)
    where = np.array([True, False, True])
    np.testing.assert_allclose(
        np.asarray(nn.softmax(x, where=where)), [sp.expit(-2), 0, sp.expit(2)], rtol=1e-6
    )
    np.testing.assert_allclose(
        np.asarray(nn.log_softmax(x, where=where)),
        [np.log(sp.expit(-2)), -np.inf, np.log(sp.expit(2))],
        rtol=1e-6,
    )
    np.testing.assert_array_equal(np.asarray(nn.softmax(x, where=np.zeros(3, bool))), [0, 0, 0])


@pytest.mark.parametrize("custom", [False, True])
def test_softmax_jvp(custom):
    previous = stablax.config.jax_softmax_custom_jvp
    stablax.config.update("jax_softmax_custom_jvp", custom)
    try:
        x = np.array([[0.3, -1.2, 2.0], [500.0, 0.0, -500.0]], np.float32)
        t = np.array([[1.0, 0.5, -2.0], [0.1, 0.2, 0.3]], np.float32)
        y, ty = stablax.jvp(lambda v: nn.softmax(v), (x,), (t,))
        y64 = _np_softmax(x.astype(np.float64))
        want = y64 * (t - (y64 * t).sum(-1, keepdims=True))
        np.testing.assert_allclose(np.asarray(ty), want, atol=1e-6)
        g = stablax.grad(lambda v: nn.softmax(v)[0])(np.array([1.0, -np.inf], np.float32))
        assert np.isfinite(np.asarray(g)).all()
    finally:
        stablax.config.update("jax_softmax_custom_jvp", previous)


def test_logsumexp_cases():
    a = np.array([[-np.inf, 0.0, 1.0], [-np.inf, -np.inf, -np.inf], [np.inf, 1.0, 2.0]], np.float32)
    got = np.asarray(nn.logsumexp(a, axis=1))
    assert got[1] == -np.inf and got[2] == np.inf
    np.testing.assert_allclose(got[0], np.log(1 + np.e), rtol=1e-6)
    big = np.array([1e4, 1e4 - 1], np.float32)
    np.testing.assert_allclose(float(nn.logsumexp(big)), 1e4 + np.log1p(np.exp(-1)), rtol=1e-7)
    # b: zero weights drop their entries, even infinite ones; negative sums report their sign.
    out, sign = nn.logsumexp(np.array([1.0, 2.0]), b=np.array([1.0, -2.0]), return_sign=True)
    np.testing.assert_allclose(float(out), np.log(2 * np.e**2 - np.e), rtol=1e-6)
    assert float(sign) == -1
    assert np.isnan(float(nn.logsumexp(np.array([1.0, 2.0]), b=np.array([1.0, -2.0]))))
    np.testing.assert_allclose(
        float(nn.logsumexp(np.array([np.inf, 0.0]), b=np.array([0.0, 2.0]))), np.log(2), rtol=1e-6
    )
    where = np.array([True, False, True])
    np.testing.assert_allclose(
        float(nn.logsumexp(np.array([1.0, 100.0, 2.0]), where=where)), np.logaddexp(1, 2), rtol=1e-6
    )
    kept = nn.logsumexp(np.ones((2, 3, 4)), axis=(0, 2), keepdims=True)
    assert kept.shape == (1, 3, 1)
    np.testing.assert_allclose(np.asarray(kept), 1 + np.log(8), rtol=1e-6)


def test_logsumexp_gradient_ignores_minus_inf():
    g = stablax.grad(nn.logsumexp)(np.array([-np.inf, 0.0, 0.0], np.float32))
    np.testing.assert_array_equal(np.asarray(g), [0.0, 0.5, 0.5])


def test_logmeanexp():
    x = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 600.0]])
    want = np.log(np.mean(np.exp(x[0])))
    np.testing.assert_allclose(np.asarray(nn.logmeanexp(x, axis=1))[0], want, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(nn.logmeanexp(x, axis=1))[1], 600 - np.log(3), rtol=1e-6)
    masked = nn.logmeanexp(x[0], where=np.array([True, False, True]))
    np.testing.assert_allclose(float(masked), np.log((np.e + np.e**3) / 2), rtol=1e-6)


def test_vmap_matches_loop():
    x = np.random.default_rng(0).normal(size=(4, 5)).astype(np.float32)
    for fn in (nn.softmax, nn.log_softmax, lambda v: nn.logsumexp(v), nn.standardize):
        batched = np.asarray(stablax.vmap(fn)(x))
        looped = np.stack([np.asarray(fn(row)) for row in x])
        np.testing.assert_allclose(batched, looped, rtol=1e-6, atol=1e-7)


def test_glu_one_hot_standardize():
    x = np.arange(12.0).reshape(3, 4)
    np.testing.assert_allclose(np.asarray(nn.glu(x)), x[:, :2] * sp.expit(x[:, 2:]), rtol=1e-6)
    square = np.arange(16.0).reshape(4, 4) / 8
    np.testing.assert_allclose(
        np.asarray(nn.glu(square, axis=0)), square[:2] * sp.expit(square[2:]), rtol=1e-6
    )
    with pytest.raises(AssertionError, match="divisible by 2"):
        nn.glu(np.ones(3))
    labels = np.array([[0, 2], [3, -1]])
    got = np.asarray(nn.one_hot(labels, 3))
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, (labels[..., None] == np.arange(3)).astype(np.float32))
    np.testing.assert_array_equal(
        np.asarray(nn.one_hot(labels, 3, axis=0, dtype=jnp.int32)),
        np.moveaxis(labels[..., None] == np.arange(3), -1, 0).astype(np.int32),
    )
    with pytest.warns(DeprecationWarning, match="integer-typed"):
        nn.one_hot(np.array([1.0]), 2)
    data = np.random.default_rng(1).normal(3.0, 2.0, size=(4, 6))
    want = (data - data.mean(-1, keepdims=True)) / np.sqrt(data.var(-1, keepdims=True) + 1e-5)
    for algorithm in ("fast", "stable"):
        got = np.asarray(nn.standardize(data.astype(np.float32), algorithm=algorithm))
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(
        np.asarray(nn.standardize(data.astype(np.float32), mean=0.0, variance=1.0)),
        data / np.sqrt(1 + 1e-5),
        rtol=1e-6,
    )
    with pytest.raises(ValueError, match="Unknown algorithm"):
        nn.standardize(data, algorithm="exact")


def _np_attention(
    q, k, v, bias=None, mask=None, causal=False, scale=None, q_len=None, kv_len=None, window=None
):
    b, t, n, h = q.shape
    s, heads_kv = k.shape[1], k.shape[2]
    group = n // heads_kv
    k = np.repeat(k, group, axis=2)
    v = np.repeat(v, group, axis=2)
    scale = 1 / np.sqrt(h) if scale is None else scale
    logits = np.einsum("btnh,bsnh->bnts", q, k) * scale
    if bias is not None:
        logits = logits + bias
    keep = np.ones(logits.shape, bool)
    if mask is not None:
        keep &= mask
    tq, sk = np.arange(t)[:, None], np.arange(s)[None, :]
    if causal:
        keep &= tq >= sk
    if window is not None:
        keep &= (tq <= sk + window[0]) & (tq >= sk - window[1])
    if q_len is not None:
        keep &= np.arange(t)[None, None, :, None] < q_len[:, None, None, None]
    if kv_len is not None:
        keep &= np.arange(s)[None, None, None, :] < kv_len[:, None, None, None]
    logits = np.where(keep, logits, -0.7 * np.finfo(np.float32).max)
    probs = _np_softmax(logits)
    out = np.einsum("bnts,bsnh->btnh", probs, v)
    if q_len is not None:
        out = out * (np.arange(t)[None, :] < q_len[:, None])[:, :, None, None]
    lse = np.log(np.exp(logits - logits.max(-1, keepdims=True)).sum(-1)) + logits.max(-1)
    return out, np.transpose(lse, (0, 2, 1))


ATTENTION_CASES = {
    "plain": {},
    "causal": {"is_causal": True},
    "bias_per_batch": {"bias": (2, 1, 5, 6)},
    "bias_per_head": {"bias": (1, 4, 5, 6)},
    "mask": {"mask": (2, 4, 5, 6)},
    "mask_and_causal_scale": {"mask": (1, 1, 5, 6), "is_causal": True, "scale": 0.3},
    "window": {"local_window_size": 1},
    "window_pair": {"local_window_size": (2, 0)},
    "seq_lengths": {"query_seq_lengths": [3, 5], "key_value_seq_lengths": [4, 6]},
}


@pytest.mark.parametrize("name", sorted(ATTENTION_CASES))
def test_dot_product_attention(name):
    rng = np.random.default_rng(len(name))
    q = rng.normal(size=(2, 5, 4, 8)).astype(np.float32)
    k = rng.normal(size=(2, 6, 2, 8)).astype(np.float32)
    v = rng.normal(size=(2, 6, 2, 8)).astype(np.float32)
    kwargs = dict(ATTENTION_CASES[name])
    ref_kwargs = {}
    if "bias" in kwargs:
        kwargs["bias"] = ref_kwargs["bias"] = rng.normal(size=kwargs["bias"]).astype(np.float32)
    if "mask" in kwargs:
        kwargs["mask"] = ref_kwargs["mask"] = rng.random(kwargs["mask"]) > 0.3
    if kwargs.get("is_causal"):
        ref_kwargs["causal"] = True
    if "scale" in kwargs:
        ref_kwargs["scale"] = kwargs["scale"]
    if "local_window_size" in kwargs:
        w = kwargs["local_window_size"]
        ref_kwargs["window"] = (w, w) if isinstance(w, int) else w
    if "query_seq_lengths" in kwargs:
        ref_kwargs["q_len"] = np.array(kwargs["query_seq_lengths"])
        ref_kwargs["kv_len"] = np.array(kwargs["key_value_seq_lengths"])
        kwargs["query_seq_lengths"] = jnp.asarray(np.array(kwargs["query_seq_lengths"], np.int32))
        kwargs["key_value_seq_lengths"] = jnp.asarray(
            np.array(kwargs["key_value_seq_lengths"], np.int32)
        )
    out, residual = nn.dot_product_attention(q, k, v, return_residual=True, **kwargs)
    want, want_residual = _np_attention(
        q.astype(np.float64), k.astype(np.float64), v.astype(np.float64), **ref_kwargs
    )
    np.testing.assert_allclose(np.asarray(out), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(residual), want_residual, rtol=1e-5, atol=1e-5)
    jitted = stablax.jit(
        lambda a, b, c: nn.dot_product_attention(a, b, c, implementation="xla", **kwargs)
    )
    np.testing.assert_allclose(np.asarray(jitted(q, k, v)), want, rtol=1e-5, atol=1e-5)


def test_dot_product_attention_unbatched_and_gradient():
    # The softmax runs in float32 (as JAX's), so float32 inputs and finite-difference tolerances.
    rng = np.random.default_rng(7)
    q, k, v = (rng.normal(size=(3, 2, 4)).astype(np.float32) for _ in range(3))
    out = nn.dot_product_attention(q, k, v, is_causal=True)
    want, _ = _np_attention(q[None], k[None], v[None], causal=True)
    np.testing.assert_allclose(np.asarray(out), want[0], rtol=1e-5, atol=1e-6)
    check_grads(
        lambda a, b, c: nn.dot_product_attention(a, b, c, is_causal=True),
        (q, k, v),
        order=1,
        modes=("fwd", "rev"),
        atol=5e-2,
        rtol=5e-2,
        eps=1e-2,
    )


def test_dot_product_attention_errors():
    q = np.ones((1, 4, 2, 8), np.float32)
    with pytest.raises(ValueError, match="mask dtype"):
        nn.dot_product_attention(q, q, q, mask=np.ones((1, 1, 4, 4), np.float32))
    with pytest.raises(ValueError, match="multiple of key/value heads"):
        nn.dot_product_attention(np.ones((1, 4, 3, 8), np.float32), q, q)
    with pytest.raises(ValueError, match="value dtype"):
        nn.dot_product_attention(q, q, q.astype(np.float16))
    with pytest.raises(ValueError, match="query_seq_lengths dtype"):
        nn.dot_product_attention(q, q, q, query_seq_lengths=np.array([4.0], np.float32))
    with pytest.raises(RuntimeError, match="cuDNN"):
        nn.dot_product_attention(q, q, q, implementation="cudnn")
    with pytest.raises(ValueError, match="Unsupported implementation"):
        nn.dot_product_attention(q, q, q, implementation="tpu")


def _dequantize(values, scales, value_dtype, scale_dtype):
    values = values.view(value_dtype).astype(np.float32)
    scales = scales.view(scale_dtype).astype(np.float32)
    block = values.shape[-1] // scales.shape[-1]
    return values * np.repeat(scales, block, axis=-1)


def test_scaled_matmul_dequantises_blocks():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(2, 3, 64)).astype(ml_dtypes.float8_e4m3fn)
    b = rng.normal(size=(2, 5, 64)).astype(ml_dtypes.float8_e4m3fn)
    a_scales = (2.0 ** rng.integers(-3, 3, size=(2, 3, 2))).astype(ml_dtypes.float8_e8m0fnu)
    b_scales = (2.0 ** rng.integers(-3, 3, size=(2, 5, 2))).astype(ml_dtypes.float8_e8m0fnu)
    got = np.asarray(nn.scaled_matmul(a, b, a_scales, b_scales))
    deq_a = a.astype(np.float64) * np.repeat(a_scales.astype(np.float64), 32, axis=-1)
    deq_b = b.astype(np.float64) * np.repeat(b_scales.astype(np.float64), 32, axis=-1)
    np.testing.assert_allclose(got, np.einsum("bmk,bnk->bmn", deq_a, deq_b), rtol=1e-6)
    assert nn.scaled_matmul(a, b, a_scales, b_scales, jnp.bfloat16).dtype == jnp.bfloat16
    with pytest.raises(ValueError, match="3-dimensional"):
        nn.scaled_matmul(a[0], b[0], a_scales[0], b_scales[0])
    with pytest.raises(ValueError, match="matching batch"):
        nn.scaled_matmul(a, b[:, :, :32], a_scales, b_scales)


@pytest.mark.parametrize("mode", ["mxfp8", "nvfp4"])
def test_quantisation_matches_jax(mode):
    values = np.load(DATA / "values.npz")
    config = nn.get_scaled_dot_general_config(mode)
    if mode == "nvfp4":
        config.global_scale = jnp.array([0.25], np.float32)
    quantized, scales = _quantize(jnp.asarray(values["quant_input"]), config)
    np.testing.assert_array_equal(
        np.asarray(quantized).view(np.uint8), values[f"quant_{mode}_values"]
    )
    np.testing.assert_array_equal(np.asarray(scales).view(np.uint8), values[f"quant_{mode}_scales"])
    # The full product: the dequantised recorded operands, multiplied in float32.
    x = values["quant_input"]
    out = np.asarray(
        nn.scaled_dot_general(x[0], x[1], (((1,), (1,)), ((), ())), configs=[config] * 3)
    )
    deq = _dequantize(
        values[f"quant_{mode}_values"],
        values[f"quant_{mode}_scales"],
        config.data_type,
        config.scale_type,
    )
    want = deq[0] @ deq[1].T
    if mode == "nvfp4":
        want = want * 0.25 * 0.25
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())


def test_scaled_dot_general_gradient_is_quantised_product():
    rng = np.random.default_rng(3)
    lhs = rng.normal(size=(32, 64)).astype(np.float32)
    rhs = rng.normal(size=(32, 64)).astype(np.float32)
    config = nn.get_scaled_dot_general_config("mxfp8")
    dims = (((1,), (1,)), ((), ()))
    grad = stablax.grad(lambda a: nn.scaled_dot_general(a, rhs, dims, configs=[config] * 3).sum())(
        lhs
    )
    exact = np.broadcast_to(rhs.sum(0), lhs.shape)
    np.testing.assert_allclose(np.asarray(grad), exact, atol=0.1 * np.abs(exact).max())
    plain = nn.scaled_dot_general(lhs, rhs, dims)
    np.testing.assert_allclose(np.asarray(plain), lhs @ rhs.T, rtol=1e-5, atol=1e-4)
    assert nn.get_scaled_dot_general_config("mxfp8").block_size == 32
    assert nn.get_scaled_dot_general_config("nvfp4").data_type == ml_dtypes.float4_e2m1fn
    with pytest.raises(ValueError, match="Unsupported mode"):
        nn.get_scaled_dot_general_config("int4")
    with pytest.raises(TypeError, match="preferred_element_type"):
        nn.scaled_dot_general(lhs, rhs, dims, preferred_element_type=np.int32, configs=[config] * 3)
