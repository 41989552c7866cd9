"""`fwd_and_bwd` (JAX 0.10.2's forward/backward split of vjp) and `stablax.ad`: the markers of
`VJP.with_refs` (GradValue, DontWant, GradRef, DidntWant)."""

from __future__ import annotations

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from tests.helpers import close

RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 4)).astype(np.float32)
B = RNG.standard_normal((4, 2)).astype(np.float32)
V = RNG.standard_normal(3).astype(np.float32)

# (name, fun, args, argnums, cotangent, the cotangents NumPy gives)
CASES = [
    (
        "matmul both",
        lambda a, b: a @ b,
        (A, B),
        (0, 1),
        np.ones((3, 2), np.float32),
        lambda ct: (ct @ B.T, A.T @ ct),
    ),
    (
        "matmul second",
        lambda a, b: a @ b,
        (A, B),
        1,
        np.ones((3, 2), np.float32),
        lambda ct: A.T @ ct,
    ),
    (
        "negative argnum",
        lambda a, b: a @ b,
        (A, B),
        (-2,),
        np.ones((3, 2), np.float32),
        lambda ct: (ct @ B.T,),
    ),
    ("sin scaled", lambda v, s: jnp.sin(v) * s, (V, 2.0), 0, V, lambda ct: ct * np.cos(V) * 2.0),
    (
        "pytree output",
        lambda v: {"s": jnp.sum(v**2), "v": (v * 3,)},
        (V,),
        0,
        {"s": np.float32(1.0), "v": (np.ones(3, np.float32),)},
        lambda ct: 2 * V + 3,
    ),
]


@pytest.mark.parametrize("jitted", [True, False])
@pytest.mark.parametrize("name,fun,args,argnums,ct,want", CASES, ids=[c[0] for c in CASES])
def test_fwd_and_bwd_is_vjp(name, fun, args, argnums, ct, want, jitted):
    fwd, bwd = stablax.fwd_and_bwd(fun, argnums=argnums, jitted=jitted)
    out, residuals = fwd(*args)
    for got, expected in zip(
        stablax.tree.leaves(out), stablax.tree.leaves(fun(*args)), strict=True
    ):
        close(got, expected, atol=1e-6)
    got = bwd(residuals, ct)
    expected = want(ct)
    assert isinstance(got, tuple) == isinstance(expected, tuple)
    for g, w in zip(stablax.tree.leaves(got), stablax.tree.leaves(expected), strict=True):
        close(g, w, atol=1e-5)


def test_bwd_compiles_once_across_steps():
    traces = []

    def f(x, w):
        traces.append(1)
        return jnp.tanh(x @ w)

    fwd, bwd = stablax.fwd_and_bwd(f, argnums=(0, 1))
    x, w = A, B
    for _ in range(3):
        out, res = fwd(x, w)
        cx, cw = bwd(res, np.ones((3, 2), np.float32))
        want = stablax.vjp(f, x, w)[1](np.ones((3, 2), np.float32))
        close(cx, want[0], atol=1e-5)
        close(cw, want[1], atol=1e-5)
        w = w - 0.1 * cw
    assert len(traces) == 1 + 3  # fwd traced once; the three reference vjps trace f each
    assert bwd._cache_size() == 1 and fwd._cache_size() == 1


def test_fwd_and_bwd_has_aux_and_errors():
    fwd, bwd = stablax.fwd_and_bwd(lambda x: (jnp.sin(x), {"c": jnp.cos(x)}), 0, has_aux=True)
    y, res, aux = fwd(1.0)
    close(aux["c"], np.cos(1.0))
    close(y, np.sin(1.0))
    close(bwd(res, 1.0), np.cos(1.0))
    fwd, _ = stablax.fwd_and_bwd(lambda x: (x, "text"), 0, has_aux=True, jitted=False)
    assert fwd(1.0)[2] == "text"  # any aux, unjitted
    with pytest.raises(TypeError, match="out of range"):
        stablax.fwd_and_bwd(lambda x: x, 3, jitted=False)[0](1.0)
    with pytest.raises(TypeError, match="callable"):
        stablax.fwd_and_bwd(3, 0)


# --- stablax.ad: VJP.with_refs ------------------------------------------------------------------


def _vjp():
    return stablax.vjp(lambda x, y: jnp.sum(jnp.sin(x) * y), V, 2.0)[1]


def test_with_refs_returns_drops_and_accumulates():
    ad = stablax.ad
    f_vjp = _vjp()
    got = f_vjp.with_refs(ad.GradValue(), ad.DontWant())(1.0)
    assert isinstance(got[1], ad.DidntWant)
    close(got[0], np.cos(V) * 2.0, atol=1e-6)
    ref = stablax.new_ref(jnp.ones(3))
    got = f_vjp.with_refs(ref, ad.GradValue())(1.0)
    assert isinstance(got[0], ad.GradRef)
    close(got[1], np.sum(np.sin(V)), atol=1e-5)
    close(ref[...], 1 + np.cos(V) * 2.0, atol=1e-6)
    f_vjp.with_refs(ref, ad.DontWant())(1.0)  # accumulates again
    close(ref[...], 1 + 2 * np.cos(V) * 2.0, atol=1e-6)
    plain = f_vjp(1.0)
    close(plain[0], np.cos(V) * 2.0, atol=1e-6)


def test_ad_markers_are_pytrees_like_jax():
    ad = stablax.ad
    assert stablax.tree.leaves(ad.GradRef()) == [] and stablax.tree.leaves(ad.DidntWant()) == []
    assert stablax.tree.leaves(ad.GradValue()) == [ad.GradValue()]
    assert stablax.tree.leaves(ad.DontWant()) == [ad.DontWant()]
    f_vjp = _vjp()
    got = stablax.jit(lambda ct: f_vjp.with_refs(ad.GradValue(), ad.DontWant())(ct))(1.0)
    assert isinstance(got[1], ad.DidntWant)
    close(got[0], np.cos(V) * 2.0, atol=1e-6)
    # The vjp function stays a pytree through jit.
    _, back = stablax.jit(lambda x: stablax.vjp(jnp.sin, x))(V)
    close(back(np.ones(3, np.float32))[0], np.cos(V), atol=1e-6)
    assert hasattr(back, "with_refs")


def test_with_refs_errors():
    ad = stablax.ad
    f_vjp = _vjp()
    with pytest.raises(ValueError, match="structure"):
        f_vjp.with_refs(ad.GradValue())
    with pytest.raises(ValueError, match="shape"):
        f_vjp.with_refs(stablax.new_ref(jnp.ones(4)), ad.GradValue())
    with pytest.raises(TypeError, match="GradValue"):
        f_vjp.with_refs(3.0, ad.GradValue())
