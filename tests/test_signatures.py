"""JAX's parameter names and options: each function called by JAX's keywords, its result checked
against NumPy/SciPy or a known value; and the signature comparison against JAX itself."""

from __future__ import annotations

import functools
import importlib
import inspect
import os
import warnings

import numpy as np
import pytest
import scipy.linalg as sla

import stablax
import stablax.numpy as jnp
import stablax.scipy.linalg as jsl
from stablax import lax, ops
from stablax import random as jr
from stablax.example_libraries.optimizers import unzip2

KEY = jr.key(0)


def _one_device_sharding():
    return jnp.zeros(()).sharding


# --- renamed parameters ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, params, positional",
    [
        ("beta", dict(a=2.0, b=3.0), (2.0, 3.0)),
        ("chisquare", dict(df=3.0), (3.0,)),
        ("f", dict(dfnum=2.0, dfden=5.0), (2.0, 5.0)),
        ("pareto", dict(b=3.0), (3.0,)),
        ("rayleigh", dict(scale=2.0), (2.0,)),
        ("t", dict(df=4.0), (4.0,)),
        ("triangular", dict(left=0.0, mode=0.3, right=1.0), (0.0, 0.3, 1.0)),
        ("wald", dict(mean=1.5), (1.5,)),
    ],
)
def test_random_keyword_parameters(name, params, positional):
    sampler = getattr(jr, name)
    by_keyword = sampler(KEY, **params, shape=(64,), dtype=jnp.float32)
    by_position = sampler(KEY, *positional, (64,), jnp.float32)
    np.testing.assert_array_equal(np.asarray(by_keyword), np.asarray(by_position))
    assert by_keyword.shape == (64,) and np.all(np.isfinite(by_keyword))


def test_random_parameter_ranges():
    assert np.all(np.asarray(jr.beta(KEY, a=2.0, b=3.0, shape=(100,))) > 0)
    assert np.all(np.asarray(jr.pareto(KEY, b=3.0, shape=(100,))) >= 1)
    tri = np.asarray(jr.triangular(KEY, left=-1.0, mode=0.0, right=2.0, shape=(100,)))
    assert np.all((tri >= -1) & (tri <= 2))
    # shape defaults to the parameters' broadcast shape
    assert jr.chisquare(KEY, df=np.ones(3)).shape == (3,)
    assert jr.key_dtype(impl_spec=None) == jr.key(0).dtype


def test_round_around_keywords():
    x = np.array([1.25, 2.5, -0.55])
    np.testing.assert_allclose(jnp.round(a=x, decimals=1), np.round(x, 1))
    np.testing.assert_allclose(jnp.around(a=x, decimals=0, out=None), np.around(x))
    with pytest.raises(NotImplementedError, match="'out' argument to jnp.round"):
        jnp.round(x, out=np.zeros(3))


def test_broadcast_to_issubdtype_keywords():
    np.testing.assert_array_equal(
        jnp.broadcast_to(array=np.arange(3), shape=(2, 3)), np.broadcast_to(np.arange(3), (2, 3))
    )
    assert jnp.issubdtype(arg1=jnp.bfloat16, arg2=jnp.floating)
    assert not jnp.issubdtype(arg1=np.int32, arg2=np.floating)


A = np.array([[1.0, 2.0], [0.5, 3.0]])
E = np.array([[0.0, 1.0], [1.0, 0.0]])


def test_scipy_linalg_keywords():
    np.testing.assert_allclose(jsl.expm(A=A), sla.expm(A), rtol=1e-5)
    value, frechet = jsl.expm_frechet(A=A, E=E)
    np.testing.assert_allclose(frechet, sla.expm_frechet(A, E)[1], rtol=1e-4)
    np.testing.assert_allclose(jsl.sqrtm(A=A), sla.sqrtm(A), rtol=1e-4)
    np.testing.assert_allclose(jsl.funm(A=A, func=jnp.exp), sla.expm(A), rtol=1e-4)
    np.testing.assert_allclose(
        jsl.solve_sylvester(A=A, B=A.T, C=E), sla.solve_sylvester(A, A.T, E), rtol=1e-4, atol=1e-5
    )
    t, z = sla.schur(A)
    t2, z2 = jsl.rsf2csf(T=t, Z=z)
    np.testing.assert_allclose(z2 @ t2 @ z2.conj().T, A, atol=1e-5)


def test_transform_and_tree_keywords():
    batched = stablax.custom_batching.sequential_vmap(f=lambda x: x * 2)
    np.testing.assert_allclose(stablax.vmap(batched)(jnp.arange(3.0)), [0, 2, 4])
    assert float(stablax.custom_derivatives.zero_from_primal(val=3.0)) == 0.0
    outer = stablax.tree_util.tree_structure([0, 0])
    inner = stablax.tree_util.tree_structure((0, 0))
    expected = ([1, 3], [2, 4])
    assert (
        stablax.tree_util.tree_transpose(outer, inner, pytree_to_transpose=[(1, 2), (3, 4)])
        == expected
    )
    assert stablax.tree.transpose(outer, inner, pytree_to_transpose=[(1, 2), (3, 4)]) == expected
    assert unzip2(xys=[(1, "a"), (2, "b")]) == ((1, 2), ("a", "b"))


# --- options with semantics -----------------------------------------------------------------


def test_cond_switch_operand_keyword():
    assert float(lax.cond(True, lambda x: x + 1, lambda x: x - 1, operand=1.0)) == 2.0
    assert float(lax.cond(False, lambda x: x + 1, lambda x: x - 1, operand=1.0)) == 0.0
    assert float(lax.switch(1, [lambda x: x, lambda x: -x], operand=2.0)) == -2.0
    assert lax.cond(True, lambda x: x, lambda x: x, operand=None) is None
    with pytest.raises(TypeError, match="if 'operand' keyword is passed"):
        lax.cond(True, lambda x: x, lambda x: x, 1.0, operand=2.0)
    with pytest.raises(TypeError, match="if 'operand' keyword is passed"):
        lax.switch(0, [lambda x: x], 1.0, operand=2.0)


def test_inner_precision_and_preferred_element_type():
    a, b = np.arange(6.0).reshape(2, 3), np.ones((4, 3))
    out = jnp.inner(a, b, precision=lax.Precision.HIGHEST, preferred_element_type=jnp.float32)
    np.testing.assert_allclose(out, np.inner(a, b))
    ints = jnp.inner(np.arange(3), np.arange(3), preferred_element_type=jnp.float32)
    assert ints.dtype == np.float32 and float(ints) == 5.0
    scalar = jnp.inner(2, np.arange(3, dtype=np.int32), preferred_element_type=jnp.float32)
    assert scalar.dtype == np.float32
    np.testing.assert_allclose(scalar, [0, 2, 4])


def test_mul_out_dtype_and_exp2_accuracy():
    out = lax.mul(np.int8(3), np.float32(2.5), out_dtype=np.float32)
    assert out.dtype == np.float32 and float(out) == 7.5
    halves = lax.mul(np.full(2, 3, np.float16), np.full(2, 2, np.float16), out_dtype=np.float32)
    assert halves.dtype == np.float32
    np.testing.assert_allclose(halves, [6.0, 6.0])
    np.testing.assert_allclose(lax.exp2(np.float32(3.0), accuracy=None), 8.0, rtol=1e-6)
    np.testing.assert_allclose(
        lax.exp2(np.float32(3.0), accuracy=lax.AccuracyMode.HIGHEST), 8.0, rtol=1e-6
    )


def test_numpy_out_none_options():
    x = np.array([-np.inf, 1.5, np.inf])
    np.testing.assert_array_equal(jnp.isneginf(x, out=None), np.isneginf(x))
    np.testing.assert_array_equal(jnp.isposinf(x, out=None), np.isposinf(x))
    frac, whole = jnp.modf(np.array([1.5, -2.25]), out=None)
    np.testing.assert_allclose(frac, [0.5, -0.25])
    np.testing.assert_allclose(whole, [1.0, -2.0])
    np.testing.assert_array_equal(
        jnp.outer(np.arange(2), np.arange(3), out=None), np.outer(np.arange(2), np.arange(3))
    )
    np.testing.assert_array_equal(
        jnp.stack([np.arange(2), np.arange(2)], axis=1, out=None),
        np.stack([np.arange(2), np.arange(2)], axis=1),
    )
    for fn, message in [
        (lambda: jnp.isneginf(x, out=x), "isneginf/isposinf"),
        (lambda: jnp.modf(x, out=x), "jnp.modf"),
        (lambda: jnp.outer(x, x, out=x), "jnp.outer"),
        (lambda: jnp.stack([x], out=x), "jnp.stack"),
    ]:
        with pytest.raises(NotImplementedError, match=message):
            fn()


def test_copy_order_and_take_along_axis_wrap():
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(jnp.copy(x, order="K"), x)
    with pytest.raises(NotImplementedError):
        jnp.copy(x, order="F")
    values = np.arange(4.0)
    idx = np.array([-1, 1])
    np.testing.assert_array_equal(
        jnp.take_along_axis(values, idx, wrap_negative_indices=True), [3.0, 1.0]
    )
    wrapped_off = jnp.take_along_axis(values, idx, wrap_negative_indices=False)
    assert np.isnan(wrapped_off[0]) and wrapped_off[1] == 1.0


def test_checkpoint_static_argnames_and_concrete():
    def f(x, *, power, scale):
        return jnp.sin(x) ** power * scale

    remat_f = stablax.checkpoint(f, static_argnames="power")
    grad = stablax.grad(lambda x: remat_f(x, power=2, scale=3.0))(1.0)
    np.testing.assert_allclose(grad, 6 * np.sin(1.0) * np.cos(1.0), rtol=1e-6)
    for make in (stablax.checkpoint, stablax.remat):
        with pytest.raises(NotImplementedError, match="concrete"):
            make(f, concrete=True)


def test_vmap_sum_match_and_vjp_reduce_axes():
    out = stablax.vmap(lambda x: x * 2, out_axes=None, sum_match=True)(jnp.arange(4.0))
    assert float(out) == 12.0
    with pytest.raises(ValueError):
        stablax.vmap(lambda x: x * 2, out_axes=None)(jnp.arange(4.0))
    primal, pullback = stablax.vjp(jnp.sin, 1.0, reduce_axes=())
    np.testing.assert_allclose(pullback(1.0)[0], np.cos(1.0), rtol=1e-6)
    with pytest.raises(NotImplementedError, match="reduce_axes"):
        stablax.vjp(jnp.sin, 1.0, reduce_axes=("i",))


def test_device_put_options():
    x = jnp.arange(3.0)
    device = stablax.devices()[0]
    copied = stablax.device_put(x, device, src=device, may_alias=False)
    assert copied is not x
    np.testing.assert_array_equal(copied, x)
    assert stablax.device_put(x, may_alias=True) is x
    tree = stablax.device_put({"a": x, "b": 1.0}, donate={"a": True, "b": False})
    np.testing.assert_array_equal(tree["a"], [0, 1, 2])
    with pytest.raises(ValueError, match="may_alias and donate"):
        stablax.device_put(x, donate=True, may_alias=True)


def test_devices_processes_dtypes_profiler_args():
    with pytest.warns(UserWarning, match="host_id"):
        assert stablax.local_devices(host_id=0) == stablax.local_devices()
    backend = stablax.default_backend()
    assert stablax.process_count(backend=backend) == 1
    assert stablax.process_index(backend=backend) == 0
    key_dtype = jr.key(0).dtype
    assert stablax.dtypes.canonicalize_dtype(key_dtype, allow_extended_dtype=True) is key_dtype
    with pytest.raises(ValueError, match="extended dtype"):
        stablax.dtypes.canonicalize_dtype(key_dtype)
    assert stablax.dtypes.canonicalize_dtype(np.int16, allow_extended_dtype=True) == np.int16
    assert "requires_backend" in inspect.signature(stablax.profiler.start_server).parameters


def test_check_jvp_check_vjp_jax_arguments():
    from stablax import test_util

    args = (np.float32(0.7),)
    test_util.check_jvp(jnp.sin, functools.partial(stablax.jvp, jnp.sin), args, eps=1e-3)
    test_util.check_vjp(jnp.sin, functools.partial(stablax.vjp, jnp.sin), args, eps=1e-3)

    def wrong_jvp(primals, tangents):
        out, tangent = stablax.jvp(jnp.sin, primals, tangents)
        return out, tangent * 2

    with pytest.raises(AssertionError, match="mine JVP does not match finite differences"):
        test_util.check_jvp(jnp.sin, wrong_jvp, args, err_msg="mine")

    def wrong_vjp(x):
        out, pullback = stablax.vjp(jnp.sin, x)
        return out, lambda ct: tuple(2 * g for g in pullback(ct))

    with pytest.raises(AssertionError, match="mine VJP does not match finite differences"):
        test_util.check_vjp(jnp.sin, wrong_vjp, args, eps=1e-3, err_msg="mine")


# --- out_sharding / sharding ----------------------------------------------------------------


def _sharded_calls(sharding):
    ones = np.ones((2, 3), np.float32)
    kernel = np.ones((1, 1, 1, 1), np.float32)
    return {
        "jnp.zeros": (lambda: jnp.zeros(3, out_sharding=sharding), np.zeros(3)),
        "jnp.ones": (lambda: jnp.ones(3, out_sharding=sharding), np.ones(3)),
        "jnp.empty": (lambda: jnp.empty(3, out_sharding=sharding).shape, (3,)),
        "jnp.full": (lambda: jnp.full(2, 7.0, out_sharding=sharding), [7.0, 7.0]),
        "jnp.zeros_like": (lambda: jnp.zeros_like(ones, out_sharding=sharding), np.zeros((2, 3))),
        "jnp.ones_like": (lambda: jnp.ones_like(ones, out_sharding=sharding), ones),
        "jnp.full_like": (lambda: jnp.full_like(ones, 2.0, out_sharding=sharding), 2 * ones),
        "jnp.arange": (lambda: jnp.arange(3, out_sharding=sharding), [0, 1, 2]),
        "jnp.array": (lambda: jnp.array([1, 2], out_sharding=sharding), [1, 2]),
        "jnp.asarray": (lambda: jnp.asarray([1, 2], out_sharding=sharding), [1, 2]),
        "jnp.reshape": (lambda: jnp.reshape(ones, (3, 2), out_sharding=sharding), np.ones((3, 2))),
        "jnp.ravel": (lambda: jnp.ravel(ones, out_sharding=sharding), np.ones(6)),
        "jnp.repeat": (lambda: jnp.repeat(np.arange(2), 2, out_sharding=sharding), [0, 0, 1, 1]),
        "jnp.broadcast_to": (
            lambda: jnp.broadcast_to(np.arange(2), (2, 2), out_sharding=sharding),
            [[0, 1], [0, 1]],
        ),
        "jnp.dot": (lambda: jnp.dot(ones, ones.T, out_sharding=sharding), 3 * np.ones((2, 2))),
        "jnp.matmul": (
            lambda: jnp.matmul(ones, ones.T, out_sharding=sharding),
            3 * np.ones((2, 2)),
        ),
        "jnp.einsum": (lambda: jnp.einsum("ij->", ones, out_sharding=sharding), 6.0),
        "jnp.percentile": (
            lambda: jnp.percentile(np.arange(5.0), 50, out_sharding=sharding),
            2.0,
        ),
        "lax.broadcast": (
            lambda: lax.broadcast(np.float32(1), (2,), out_sharding=sharding),
            [1, 1],
        ),
        "lax.broadcast_in_dim": (
            lambda: lax.broadcast_in_dim(np.arange(2), (3, 2), (1,), out_sharding=sharding),
            [[0, 1]] * 3,
        ),
        "lax.broadcasted_iota": (
            lambda: lax.broadcasted_iota(np.int32, (3,), 0, out_sharding=sharding),
            [0, 1, 2],
        ),
        "lax.full": (lambda: lax.full((2,), 5, sharding=sharding), [5, 5]),
        "lax.full_like": (lambda: lax.full_like(ones, 4, sharding=sharding), 4 * ones),
        "lax.reshape": (lambda: lax.reshape(ones, (6,), out_sharding=sharding), np.ones(6)),
        "lax.reduce_sum": (lambda: lax.reduce_sum(ones, (0, 1), out_sharding=sharding), 6.0),
        "lax.reduce": (
            lambda: lax.reduce(ones, 0.0, lax.add, (0, 1), out_sharding=sharding),
            6.0,
        ),
        "lax.conv_general_dilated": (
            lambda: lax.conv_general_dilated(
                np.ones((1, 1, 2, 2), np.float32), kernel, (1, 1), "VALID", out_sharding=sharding
            ),
            np.ones((1, 1, 2, 2)),
        ),
        "ops.segment_sum": (
            lambda: ops.segment_sum(np.ones(4), np.array([0, 0, 1, 1]), 2, out_sharding=sharding),
            [2, 2],
        ),
        "ops.segment_prod": (
            lambda: ops.segment_prod(
                np.full(4, 2.0), np.array([0, 0, 1, 1]), 2, out_sharding=sharding
            ),
            [4, 4],
        ),
        "ops.segment_max": (
            lambda: ops.segment_max(
                np.arange(4.0), np.array([0, 0, 1, 1]), 2, out_sharding=sharding
            ),
            [1, 3],
        ),
        "ops.segment_min": (
            lambda: ops.segment_min(
                np.arange(4.0), np.array([0, 0, 1, 1]), 2, out_sharding=sharding
            ),
            [0, 2],
        ),
    }


_RANDOM_CALLS = {
    "ball": lambda s: jr.ball(KEY, 2, out_sharding=s),
    "bernoulli": lambda s: jr.bernoulli(KEY, 0.5, (3,), out_sharding=s),
    "beta": lambda s: jr.beta(KEY, 2.0, 3.0, out_sharding=s),
    "bits": lambda s: jr.bits(KEY, (3,), out_sharding=s),
    "categorical": lambda s: jr.categorical(KEY, np.zeros(3), out_sharding=s),
    "cauchy": lambda s: jr.cauchy(KEY, out_sharding=s),
    "chisquare": lambda s: jr.chisquare(KEY, 2.0, out_sharding=s),
    "dirichlet": lambda s: jr.dirichlet(KEY, np.ones(3), out_sharding=s),
    "exponential": lambda s: jr.exponential(KEY, out_sharding=s),
    "f": lambda s: jr.f(KEY, 2.0, 3.0, out_sharding=s),
    "gamma": lambda s: jr.gamma(KEY, 2.0, out_sharding=s),
    "generalized_normal": lambda s: jr.generalized_normal(KEY, 2.0, out_sharding=s),
    "geometric": lambda s: jr.geometric(KEY, 0.5, out_sharding=s),
    "gumbel": lambda s: jr.gumbel(KEY, out_sharding=s),
    "laplace": lambda s: jr.laplace(KEY, out_sharding=s),
    "loggamma": lambda s: jr.loggamma(KEY, 2.0, out_sharding=s),
    "logistic": lambda s: jr.logistic(KEY, out_sharding=s),
    "lognormal": lambda s: jr.lognormal(KEY, out_sharding=s),
    "maxwell": lambda s: jr.maxwell(KEY, out_sharding=s),
    "multivariate_normal": lambda s: jr.multivariate_normal(
        KEY, np.zeros(2), np.eye(2), out_sharding=s
    ),
    "normal": lambda s: jr.normal(KEY, (3,), out_sharding=s),
    "orthogonal": lambda s: jr.orthogonal(KEY, 2, out_sharding=s),
    "pareto": lambda s: jr.pareto(KEY, 2.0, out_sharding=s),
    "permutation": lambda s: jr.permutation(KEY, 4, out_sharding=s),
    "poisson": lambda s: jr.poisson(KEY, 2.0, out_sharding=s),
    "rademacher": lambda s: jr.rademacher(KEY, (3,), out_sharding=s),
    "randint": lambda s: jr.randint(KEY, (3,), 0, 5, out_sharding=s),
    "rayleigh": lambda s: jr.rayleigh(KEY, 2.0, out_sharding=s),
    "t": lambda s: jr.t(KEY, 3.0, out_sharding=s),
    "triangular": lambda s: jr.triangular(KEY, 0.0, 0.5, 1.0, out_sharding=s),
    "truncated_normal": lambda s: jr.truncated_normal(KEY, -1.0, 1.0, out_sharding=s),
    "uniform": lambda s: jr.uniform(KEY, (3,), out_sharding=s),
    "wald": lambda s: jr.wald(KEY, 1.0, out_sharding=s),
}


@pytest.mark.parametrize("name", sorted(_sharded_calls(None)))
def test_out_sharding_on_the_one_device(name):
    sharding = _one_device_sharding()
    call, expected = _sharded_calls(sharding)[name]
    result = call()
    if isinstance(result, tuple):
        assert result == expected
    else:
        np.testing.assert_allclose(np.asarray(result), expected)
    unplain, _ = _sharded_calls(None)[name]
    if not isinstance(result, tuple):
        np.testing.assert_allclose(np.asarray(unplain()), expected)
    call, _ = _sharded_calls("not a sharding")[name]
    with pytest.raises(TypeError, match="sharding` must be None, a NamedSharding or a Partition"):
        call()  # JAX's class for what is no sharding at all
    call, _ = _sharded_calls(_OtherDevices())[name]
    with pytest.raises(NotImplementedError, match="sharding=<other devices> is not supported"):
        call()


class _OtherDevices:
    """A sharding over devices stablax does not run on."""

    device_set = frozenset({"another device"})

    def __repr__(self) -> str:
        return "<other devices>"


@pytest.mark.parametrize("name", sorted(_RANDOM_CALLS))
def test_random_out_sharding(name):
    call = _RANDOM_CALLS[name]
    np.testing.assert_array_equal(np.asarray(call(_one_device_sharding())), np.asarray(call(None)))
    with pytest.raises(TypeError, match=f"random.{name}: `out_sharding` must be"):
        call(stablax.devices()[0])  # a Device is no sharding


# --- the comparison with JAX's signatures (/work/sigs.py's logic) ---------------------------

# What is deliberately left different from JAX 0.10.2.
ALLOWED_GAPS = {
    # JAX's internal lu.WrappedFun helper (fun, *gen_static_args); stablax's takes plain callables
    "jax.experimental.ode.ravel_first_arg_": ["fun"],
    # parallelism only: the varying/invariant type of the gathered value across devices
    "jax.lax.all_gather": ["to"],
    # a private hook for swapping in another dot_general implementation
    "jax.numpy.einsum": ["_dot_general"],
}

API_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "api")  # JAX's name lists


def _signature_gaps() -> dict[str, list[str]]:
    gaps = {}
    for filename in sorted(os.listdir(API_DIR)):
        if not (filename.startswith("jax") and filename.endswith(".txt")):
            continue
        module = filename[:-4]
        try:
            jax_module = importlib.import_module(module)
            our_module = importlib.import_module("stablax" + module[3:])
        except Exception:
            continue
        with open(os.path.join(API_DIR, filename)) as names:
            for name in names.read().split():
                try:
                    theirs, ours = getattr(jax_module, name), getattr(our_module, name)
                except Exception:
                    continue
                if isinstance(theirs, type) or not callable(theirs):
                    continue
                try:
                    their_params = inspect.signature(theirs).parameters
                    our_params = inspect.signature(ours).parameters
                except Exception:
                    continue
                if any(p.kind == p.VAR_KEYWORD for p in our_params.values()):
                    continue
                missing = [
                    k
                    for k, p in their_params.items()
                    if k not in our_params and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
                ]
                if missing:
                    gaps[f"{module}.{name}"] = missing
    return gaps


def test_signature_gaps_against_jax():
    pytest.importorskip("jax")
    if not os.path.isdir(API_DIR):
        pytest.skip(f"no API name lists at {API_DIR}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _signature_gaps() == ALLOWED_GAPS
