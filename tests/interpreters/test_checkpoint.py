"""stablax.ad_checkpoint: checkpoint_name, every checkpoint_policies entry, print_saved_residuals.

Each policy is checked by the residuals reverse mode keeps (what `print_saved_residuals` lists,
compared with what JAX 0.10.2 lists for the same function) and by the gradient, which no policy
may change.
"""

from __future__ import annotations

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax.ad_checkpoint import (
    Offloadable,
    Recompute,
    Saveable,
    checkpoint_name,
    checkpoint_policies,
    print_saved_residuals,
)
from tests.helpers import close, live_op_count

cp = checkpoint_policies
W = (np.random.default_rng(0).standard_normal((3, 3)) * 0.5).astype(np.float32)
X = np.array([0.5, -1.0, 2.0], np.float32)


def _two_layers(w, x):
    h1 = checkpoint_name(jnp.tanh(jnp.dot(w, x)), "h1")
    h2 = checkpoint_name(jnp.tanh(jnp.dot(w, h1)), "h2")
    return jnp.sum(jnp.sin(h2))


def _batched(w, x):  # a dot_general with batch dimensions
    return jnp.sum(jnp.tanh(jnp.einsum("bij,bj->bi", w, x)))


def _lines(capsys, f, *args):
    print_saved_residuals(f, *args)
    return capsys.readouterr().out.splitlines()


def _at(fun, line, column):
    """JAX's ` from file:line:column (function)` for a call `line` lines below `fun`'s def."""
    code = fun.__code__
    return f"from {code.co_filename}:{code.co_firstlineno + line}:{column} ({code.co_qualname})"


# Recorded from JAX 0.10.2 for _two_layers (lines and columns relative to its def).
ARGS = ["f32[3,3] from the argument w", "f32[3] from the argument x"]
DOTS = [
    f"f32[3] output of dot_general {_at(_two_layers, 1, 34)}",
    f"f32[3] output of dot_general {_at(_two_layers, 2, 34)}",
]
H1 = f"f32[3] named 'h1' {_at(_two_layers, 1, 9)}"
H2 = f"f32[3] named 'h2' {_at(_two_layers, 2, 9)}"
EVERYTHING = [
    *ARGS,
    f"f32[3] output of tanh {_at(_two_layers, 1, 25)}",
    f"f32[3] output of sub {_at(_two_layers, 1, 25)}",
    H1,
    f"f32[3] output of tanh {_at(_two_layers, 2, 25)}",
    f"f32[3] output of sub {_at(_two_layers, 2, 25)}",
    f"f32[3] output of cos {_at(_two_layers, 3, 19)}",
]
OFFLOAD = dict(offload_src="device", offload_dst="pinned_host")

# (policy, residuals after the arguments), each as JAX 0.10.2 prints it for _two_layers, except
# for offloading: JAX lists an offloaded value as `f32<host>[3] output of device_put from ` (a
# copy in host memory); stablax keeps it in device memory, so it lists the value it saves.
POLICY_CASES = [
    ("None", None, []),
    ("nothing_saveable", cp.nothing_saveable, []),
    ("dots_saveable", cp.dots_saveable, DOTS),
    ("checkpoint_dots", cp.checkpoint_dots, DOTS),
    ("dots_with_no_batch_dims_saveable", cp.dots_with_no_batch_dims_saveable, DOTS),
    ("checkpoint_dots_with_no_batch_dims", cp.checkpoint_dots_with_no_batch_dims, DOTS),
    ("offload_dot_with_no_batch_dims", cp.offload_dot_with_no_batch_dims(**OFFLOAD), DOTS),
    ("save_only_these_names", cp.save_only_these_names("h1"), [H1]),
    ("save_any_names_but_these", cp.save_any_names_but_these("h1"), [H2]),
    (
        "save_and_offload_only_these_names",
        cp.save_and_offload_only_these_names(
            names_which_can_be_saved=["h1"], names_which_can_be_offloaded=["h2"], **OFFLOAD
        ),
        [H1, H2],
    ),
    (
        "save_from_both_policies",
        cp.save_from_both_policies(cp.save_only_these_names("h2"), cp.dots_saveable),
        [*DOTS, H2],
    ),
    (
        "a JAX-style policy",
        lambda prim, *_, **__: prim is stablax.lax.dot_general_p,
        DOTS,
    ),
]


@pytest.mark.parametrize(
    "policy,extra", [c[1:] for c in POLICY_CASES], ids=[c[0] for c in POLICY_CASES]
)
def test_policy_saves_what_it_names(capsys, policy, extra):
    f = stablax.checkpoint(_two_layers, policy=policy)
    assert _lines(capsys, f, W, X) == ARGS + extra
    want = stablax.grad(_two_layers, argnums=(0, 1))(W, X)
    for got, expected in zip(stablax.grad(f, argnums=(0, 1))(W, X), want, strict=True):
        close(got, expected, atol=1e-6)
    got = stablax.jit(stablax.grad(f))(W, X)
    close(got, want[0], atol=1e-6)


@pytest.mark.parametrize(
    "policy", [cp.everything_saveable, cp.save_anything_except_these_names("h1", "h2")]
)
def test_everything_saveable_saves_as_without_checkpoint(capsys, policy):
    # JAX 0.10.2's save_anything_except_these_names ignores its names and saves everything.
    assert _lines(capsys, _two_layers, W, X) == EVERYTHING
    assert _lines(capsys, stablax.checkpoint(_two_layers, policy=policy), W, X) == EVERYTHING


def test_batch_dims_decide_dots_with_no_batch_dims(capsys):
    w = np.ones((2, 3, 3), np.float32)
    x = np.ones((2, 3), np.float32)
    with_batch = _lines(capsys, stablax.checkpoint(_batched, policy=cp.dots_saveable), w, x)
    without = _lines(
        capsys, stablax.checkpoint(_batched, policy=cp.dots_with_no_batch_dims_saveable), w, x
    )
    assert sum("dot_general" in line for line in with_batch) == 1
    assert sum("dot_general" in line for line in without) == 0


def _sin_squared(x):
    s = checkpoint_name(jnp.sin(x), "s")  # sin's derivative reads x, the product's reads s
    return jnp.sum(s * s)


@pytest.mark.parametrize(
    "policy,sin_count",
    [
        (None, 2),
        (cp.nothing_saveable, 2),
        (cp.save_only_these_names("s"), 1),
        (cp.save_any_names_but_these("t"), 1),
        (cp.save_any_names_but_these("s"), 2),
        (cp.everything_saveable, 1),
    ],
)
def test_saved_names_are_not_recomputed(policy, sin_count):
    # sin runs forward; unless the policy saves s, it runs again for the backward pass.
    f = stablax.checkpoint(_sin_squared, policy=policy)
    text = str(stablax.make_jaxpr(stablax.value_and_grad(f))(X))
    assert live_op_count(text, "stablehlo.sine") == sin_count
    close(stablax.grad(f)(X), 2 * np.sin(X) * np.cos(X), atol=1e-6)


def test_checkpoint_name_is_the_identity_everywhere():
    x = jnp.arange(4.0)
    assert checkpoint_name(x, "a") is x
    close(stablax.jit(lambda v: checkpoint_name(v * 2, "a"))(x), np.arange(4.0) * 2)
    close(stablax.grad(lambda v: jnp.sum(checkpoint_name(v, "a") ** 2))(x), 2 * np.arange(4.0))
    close(stablax.vmap(lambda v: checkpoint_name(jnp.sin(v), "a"))(x), np.sin(np.arange(4.0)))
    tree = checkpoint_name({"a": x, "b": (x, x)}, "t")
    assert stablax.tree.structure(tree) == stablax.tree.structure({"a": 0, "b": (0, 0)})
    assert "stablax.name" in str(stablax.make_jaxpr(lambda v: checkpoint_name(v, "a"))(x))
    with pytest.raises(TypeError, match="checkpoint_name"):
        checkpoint_name(x, 3)


def test_names_survive_vmap_of_a_checkpoint():
    f = stablax.checkpoint(_two_layers, policy=cp.save_only_these_names("h1", "h2"))
    xs = np.stack([X, 2 * X])
    got = stablax.vmap(stablax.grad(f), in_axes=(None, 0))(W, xs)
    want = np.stack([np.asarray(stablax.grad(_two_layers)(W, x)) for x in xs])
    close(got, want, atol=1e-6)


def test_policy_answers():
    assert repr(Saveable) == "Saveable" and repr(Recompute) == "Recompute"
    assert Offloadable("device", "pinned_host") == Offloadable(src="device", dst="pinned_host")
    f = stablax.checkpoint(_two_layers, policy=lambda *_, **__: "yes")
    with pytest.raises(TypeError, match="returned 'yes'"):
        stablax.grad(f)(W, X)
    both = cp.save_from_both_policies(
        cp.offload_dot_with_no_batch_dims(**OFFLOAD), cp.dots_saveable
    )
    with pytest.raises(ValueError, match="should be a boolean"):
        stablax.grad(stablax.checkpoint(_two_layers, policy=both))(W, X)
    with pytest.raises(ValueError, match="should not intersect"):
        cp.save_and_offload_only_these_names(
            names_which_can_be_saved=["a"], names_which_can_be_offloaded=["a"], **OFFLOAD
        )


def _pytree_product(d, v):
    return jnp.sum(jnp.sin(d["a"]) * d["b"]) + v


def _keyword_product(x, *args, y, **kw):
    return jnp.sum(jnp.sin(x) * args[0] * y * kw["z"])


def _inner_sines(x):
    return jnp.sin(jnp.sin(x))


def test_print_saved_residuals_names_pytree_arguments(capsys):
    # As JAX 0.10.2: arguments first, by their path, then computed values in program order.
    assert _lines(capsys, _pytree_product, {"a": W, "b": W}, X) == [
        "f32[3,3] from the argument d['b']",
        f"f32[3,3] output of sin {_at(_pytree_product, 1, 19)}",
        f"f32[3,3] output of cos {_at(_pytree_product, 1, 19)}",
    ]


def test_print_saved_residuals_names_varargs_and_keywords(capsys):
    print_saved_residuals(_keyword_product, X, X, y=X, z=X)
    assert capsys.readouterr().out.splitlines() == [  # recorded from JAX 0.10.2
        "f32[3] from the argument args[0]",
        "f32[3] from the argument y",
        "f32[3] from the argument kw['z']",
        f"f32[3] output of sin {_at(_keyword_product, 1, 19)}",
        f"f32[3] output of cos {_at(_keyword_product, 1, 19)}",
        f"f32[3] output of mul {_at(_keyword_product, 1, 19)}",
        f"f32[3] output of mul {_at(_keyword_product, 1, 19)}",
    ]


def test_print_saved_residuals_of_constants_and_literals(capsys):
    closed = jnp.arange(3.0)
    assert _lines(capsys, lambda x: jnp.sum(x * closed), X) == ["f32[3] from a constant"]
    assert _lines(capsys, lambda x: jnp.sum(x**2), X)[0].startswith("f32[3] output of mul from ")
    # JAX 0.10.2 lists `f32[] from a literal` for the 2.0 the linear function multiplies by, a
    # value known when tracing; stablax copies it into the linear function, and saves nothing
    # for it either.
    assert _lines(capsys, lambda x: jnp.sum(x * 2.0), X) == []


def test_print_saved_residuals_looks_into_checkpointed_functions(capsys):
    # Recorded from JAX 0.10.2: the op inside the checkpointed function, with its own line.
    checkpointed = stablax.checkpoint(_inner_sines)
    assert _lines(capsys, lambda x: jnp.sum(checkpointed(x) * x), X) == [
        "f32[3] from the argument x",
        f"f32[3] output of sin {_at(_inner_sines, 1, 11)}",
    ]
    saving = stablax.checkpoint(_inner_sines, policy=cp.everything_saveable)
    assert _lines(capsys, lambda x: jnp.sum(saving(x)), X) == [
        f"f32[3] output of cos {_at(_inner_sines, 1, 19)}",
        f"f32[3] output of cos {_at(_inner_sines, 1, 11)}",
    ]


def _scan_layers(ws, x, policy):
    def layer(c, w):
        return checkpoint_name(jnp.tanh(c @ w), "h"), None

    step = layer if policy == "plain" else stablax.checkpoint(layer, policy=policy)
    out, _ = stablax.lax.scan(step, x, ws)
    return jnp.sum(out)


@pytest.mark.parametrize(
    "policy,saved",
    [
        (None, 1),
        (cp.save_only_these_names("h"), 1),
        (cp.dots_saveable, 2),
        (cp.everything_saveable, 3),
    ],
)
def test_policies_inside_scan(capsys, policy, saved):
    ws = (np.random.default_rng(1).standard_normal((4, 3, 3)) * 0.5).astype(np.float32)
    want = stablax.grad(_scan_layers)(ws, X, "plain")
    close(stablax.grad(_scan_layers)(ws, X, policy), want, atol=1e-6)
    close(stablax.jit(stablax.grad(_scan_layers), static_argnums=2)(ws, X, policy), want, atol=1e-6)
    lines = _lines(capsys, lambda w, x: _scan_layers(w, x, policy), ws, X)
    # As JAX 0.10.2: the weights, then the scan's saved values (as many as the policy saves).
    scan = f"f32[4,3] output of scan {_at(_scan_layers, 5, 13)}"
    assert lines == ["f32[4,3,3] from the argument w", *[scan] * saved]
