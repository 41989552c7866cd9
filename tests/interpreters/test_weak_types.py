"""Weak types as JAX propagates them: through every op of the op-record table (eagerly, under jit,
vmap, jvp and vjp), through control flow (loop carries, scan outputs, branch outputs) and through
the derivatives of real and complex functions.

`tests/data/lax_weak_types.json` holds JAX 0.10.2's weak types for the records that call a lax
function as it is (scripts/record_lax_weak_types.py); the other expectations are literals
recorded from JAX 0.10.2.
"""

from __future__ import annotations

import json
import pathlib
import zlib

import numpy as np
import pytest

import stablax as jax
import stablax.numpy as jnp
from stablax import lax
from tests.op_record import all_records

DATA = pathlib.Path(__file__).resolve().parents[1] / "data"
RECORDED = json.loads((DATA / "lax_weak_types.json").read_text())
RECORDS = {r.name: r for r in all_records()}
WEAK_DTYPES = [np.dtype(d) for d in (np.float32, np.int32, np.complex64, np.bool_)]


def _weak_flags(tree):
    return [bool(jax.typeof(leaf).weak_type) for leaf in jax.tree.leaves(tree)]


def _inputs(record, dtype, flags, batch=None):
    """The record's inputs (drawn as the recorder drew them), weakly typed where `flags` says;
    with `batch`, each stacked `batch` times along a new leading axis."""
    rng = np.random.default_rng(zlib.crc32(record.name.encode()))
    args = record.make_args(rng, record.shapes[0], dtype)
    if batch is not None:
        args = [np.stack([a] * batch) for a in args]
    return [
        lax.convert_element_type(jnp.asarray(a), a.dtype, weak_type=f)
        for a, f in zip(args, flags, strict=True)
    ]


def _variant_flags(variant, nargs):
    return [True] * nargs if variant == "weak" else [False] + [True] * (nargs - 1)


@pytest.mark.parametrize("key", [k for k in sorted(RECORDED) if k.count("/") == 2])
def test_recorded_lax_weak_types(key):
    name, dtype, variant = key.split("/")
    record = RECORDS[name]
    flags = _variant_flags(variant, len(record.shapes[0]))
    want = RECORDED[key]
    args = _inputs(record, np.dtype(dtype), flags)
    assert _weak_flags(record.fun(*args)) == want
    assert _weak_flags(jax.jit(record.fun)(*args)) == want
    batched = _inputs(record, np.dtype(dtype), flags, batch=2)
    assert _weak_flags(jax.vmap(record.fun)(*batched)) == want


def _derivative_cases():
    for key in sorted(RECORDED):
        if key.endswith(("/jvp", "/vjp")):
            yield pytest.param(key, id=key)


# Where stablax's weak types of derivatives differ from JAX 0.10.2's. stablax's rule: a tangent
# output is weak where its primal output is, an input cotangent where its input is (but not a
# complex input's cotangent when an output is real). JAX's follow the ops of its linear jaxpr:
# with a strongly typed cotangent, the cotangent of a weakly typed input of add, sub, mul, div,
# max, min, rem, atan2, pow, complex, dot or batch_matmul is strong (JAX: [False, False]);
# pow's derivatives and the jvp of complex abs are strong where JAX builds them from strongly
# typed logs and zeros. stablax's StableHLO linear functions hold no weak types to follow.
JAX_DIFFERS = {
    *(
        f"{name}/{dtype}/first_strong/vjp"
        for name in ("add", "sub", "mul", "div", "pow", "batch_matmul")
        for dtype in ("float32", "complex64")
    ),
    *(
        f"{name}/float32/first_strong/vjp"
        for name in ("dot", "max", "min", "rem", "atan2", "complex")
    ),
    "abs/complex64/weak/jvp",
    "pow/float32/weak/jvp",
    "pow/float32/weak/vjp",
    "pow/complex64/weak/jvp",
    "pow/complex64/weak/vjp",
}


@pytest.mark.parametrize("key", list(_derivative_cases()))
def test_derivatives_of_lax_ops_are_weak_as_in_jax(key):
    # jvp with the inputs as their own tangents; vjp with the outputs as their cotangents.
    name, dtype, variant, mode = key.split("/")
    record = RECORDS[name]
    flags = _variant_flags(variant, len(record.shapes[0]))
    args = _inputs(record, np.dtype(dtype), flags)
    out = record.fun(*args)
    if mode == "jvp":
        got = jax.jvp(record.fun, args, args)[1]
        rule = _weak_flags(out)
    else:
        got = jax.vjp(record.fun, *args)[1](out)
        real_out = all(np.dtype(o.dtype).kind != "c" for o in jax.tree.leaves(out))
        rule = [f and not (np.dtype(dtype).kind == "c" and real_out) for f in flags]
    assert _weak_flags(got) == rule
    assert (rule == RECORDED[key]) == (key not in JAX_DIFFERS)


def _table_cases():
    for record in RECORDS.values():
        dtype = next((np.dtype(d) for d in record.dtypes if np.dtype(d) in WEAK_DTYPES), None)
        if dtype is not None:
            yield pytest.param(record, dtype, id=f"{record.name}-{dtype.name}")


@pytest.mark.parametrize("record,dtype", list(_table_cases()))
def test_every_op_keeps_its_weak_types_under_jit_and_vmap(record, dtype):
    flags = [True] * len(record.shapes[0])
    eager = _weak_flags(record.fun(*_inputs(record, dtype, flags)))
    assert _weak_flags(jax.jit(record.fun)(*_inputs(record, dtype, flags))) == eager
    assert _weak_flags(jax.vmap(record.fun)(*_inputs(record, dtype, flags, batch=2))) == eager


f32 = jnp.float32

# (case, the function, JAX 0.10.2's outputs as (dtype, weak_type) per leaf)
CASES = [
    ("fori_loop int", lambda: lax.fori_loop(0, 10, lambda i, x: x + i, 0), [("int32", True)]),
    (
        "fori_loop float",
        lambda: lax.fori_loop(0, 10, lambda i, x: x + 1.0, 0.0),
        [("float32", True)],
    ),
    (
        "fori_loop strong carry",
        lambda: lax.fori_loop(0, 10, lambda i, x: x + 1.0, f32(0)),
        [("float32", False)],
    ),
    (
        "fori_loop traced bound",
        lambda: lax.fori_loop(0, jnp.int32(10), lambda i, x: x + i, 0),
        [("int32", True)],
    ),
    (
        "fori_loop promotes a weak int carry",
        lambda: lax.fori_loop(0, 3, lambda i, x: x + 1.0, 0),
        [("float32", False)],
    ),
    (
        "fori_loop under jit",
        lambda: jax.jit(lambda: lax.fori_loop(0, 10, lambda i, x: x + i, 0))(),
        [("int32", True)],
    ),
    ("while_loop", lambda: lax.while_loop(lambda x: x < 10, lambda x: x + 1, 0), [("int32", True)]),
    (
        "while_loop strong body",
        lambda: lax.while_loop(lambda x: x < 3, lambda x: x + jnp.int32(1), 0),
        [("int32", False)],
    ),
    (
        "scan: strong carry out, weak ys",
        lambda: lax.scan(lambda c, x: (c + x, c), 0.0, jnp.arange(3.0)),
        [("float32", False), ("float32", True)],
    ),
    (
        "scan: weak carry, strong ys",
        lambda: lax.scan(lambda c, x: (c + 1, c * x), 0, jnp.arange(2)),
        [("int32", True), ("int32", False)],
    ),
    (
        "scan: strong body carry",
        lambda: lax.scan(lambda c, x: (c + jnp.int32(1), c), 0, None, length=2),
        [("int32", False), ("int32", True)],
    ),
    ("cond", lambda: lax.cond(True, lambda: 1.0, lambda: 2.0), [("float32", True)]),
    ("cond mixed", lambda: lax.cond(True, lambda: 1.0, lambda: f32(2.0)), [("float32", False)]),
    (
        "cond operand",
        lambda: lax.cond(True, lambda x: x, lambda x: x * 2, 3.0),
        [("float32", True)],
    ),
    ("switch", lambda: lax.switch(1, [lambda: 1, lambda: 2]), [("int32", True)]),
    (
        "grad of a complex input",
        lambda: jax.grad(lambda z: jnp.real(z) ** 2 + jnp.imag(z) ** 2)(3.0 + 4j),
        [("complex64", False)],
    ),
    ("grad of abs", lambda: jax.grad(jnp.abs)(3.0 + 4j), [("complex64", False)]),
    (
        "holomorphic grad",
        lambda: jax.grad(lambda z: z**2, holomorphic=True)(3.0 + 4j),
        [("complex64", True)],
    ),
    (
        "vjp of a complex input",
        lambda: jax.vjp(lambda z: jnp.real(z) ** 2, 3.0 + 4j)[1](1.0),
        [("complex64", False)],
    ),
    (
        "vjp, complex and real outputs",
        lambda: jax.vjp(lambda z: (jnp.real(z), z * 2), 3.0 + 4j)[1]((1.0, 1.0 + 0j)),
        [("complex64", False)],
    ),
    ("grad float", lambda: jax.grad(lambda x: x**2)(3.0), [("float32", True)]),
    ("grad of a strong input", lambda: jax.grad(lambda x: x**2)(f32(3.0)), [("float32", False)]),
    ("grad, strong ops", lambda: jax.grad(lambda x: x * f32(2.0))(3.0), [("float32", True)]),
    (
        "jvp",
        lambda: jax.jvp(lambda z: z * 2, (3.0,), (1.0,)),
        [("float32", True), ("float32", True)],
    ),
    (
        "jvp, a strong tangent in",
        lambda: jax.jvp(lambda z: z * 2, (3.0,), (f32(1.0),)),
        [("float32", True), ("float32", True)],
    ),
    (
        "jvp, a strong output",
        lambda: jax.jvp(lambda z: z * f32(2), (3.0,), (1.0,)),
        [("float32", False), ("float32", False)],
    ),
    (
        "jvp, an input returned",
        lambda: jax.jvp(lambda z: (z, z * f32(1)), (jnp.asarray(3.0),), (f32(1.0),)),
        [("float32", True), ("float32", False), ("float32", False), ("float32", False)],
    ),
    ("linearize", lambda: jax.linearize(lambda x: x * 2.0, 3.0)[1](1.0), [("float32", True)]),
    (
        "linearize, a strong tangent",
        lambda: jax.linearize(lambda x: x * 2.0, 3.0)[1](f32(1.0)),
        [("float32", False)],
    ),
    ("jacfwd", lambda: jax.jacfwd(lambda x: x * 2.0)(3.0), [("float32", True)]),
    (
        "jacfwd, a strong output",
        lambda: jax.jacfwd(lambda x: x * f32(2.0))(3.0),
        [("float32", False)],
    ),
    ("jacrev", lambda: jax.jacrev(lambda x: x * 2.0)(3.0), [("float32", True)]),
    (
        "jacrev, a strong input",
        lambda: jax.jacrev(lambda x: x * 2.0)(f32(3.0)),
        [("float32", False)],
    ),
    ("hessian", lambda: jax.hessian(lambda x: x**3)(3.0), [("float32", True)]),
    (
        "value_and_grad",
        lambda: jax.value_and_grad(lambda x: x**2)(3.0),
        [("float32", True), ("float32", True)],
    ),
    (
        "grad through fori_loop",
        lambda: jax.grad(lambda x: lax.fori_loop(0, 3, lambda i, c: c * 2.0, x))(1.0),
        [("float32", True)],
    ),
    (
        "grad through cond",
        lambda: jax.grad(lambda x: lax.cond(True, lambda y: y * 2.0, lambda y: y, x))(1.0),
        [("float32", True)],
    ),
    (
        "jvp through fori_loop",
        lambda: jax.jvp(lambda x: lax.fori_loop(0, 3, lambda i, c: c * 2.0, x), (1.0,), (1.0,)),
        [("float32", True), ("float32", True)],
    ),
    ("vmap", lambda: jax.vmap(lambda x: x + 1)(jnp.arange(3)), [("int32", False)]),
    (
        "vmap of a constant",
        lambda: jax.vmap(lambda x: 1.0, axis_size=3, in_axes=None)(1),
        [("float32", True)],
    ),
    (
        "vmap, an unbatched weak input",
        lambda: jax.vmap(lambda y: y * 2.0, in_axes=None, axis_size=2)(2.0),
        [("float32", True)],
    ),
    (
        "vmap of fori_loop",
        lambda: jax.vmap(lambda x: lax.fori_loop(0, 3, lambda i, c: c + i, x))(jnp.arange(3)),
        [("int32", False)],
    ),
    (
        "vmap of fori_loop, a weak carry",
        lambda: jax.vmap(lambda x: lax.fori_loop(0, 2, lambda i, c: c + i, 0))(jnp.ones(2)),
        [("int32", True)],
    ),
    (
        "vmap of cond",
        lambda: jax.vmap(lambda p: lax.cond(p, lambda: 1.0, lambda: 2.0))(jnp.array([True, False])),
        [("float32", True)],
    ),
    (
        "vmap of scan",
        lambda: jax.vmap(lambda x: lax.scan(lambda c, _: (c + 1.0, c), 0.0, None, length=2))(
            jnp.ones(2)
        ),
        [("float32", True), ("float32", True)],
    ),
    (
        "vmap of while_loop, a batched predicate",
        lambda: jax.vmap(lambda x: lax.while_loop(lambda c: c < x, lambda c: c + 1.0, 0.0))(
            jnp.ones(2)
        ),
        [("float32", True)],
    ),
    (
        "vmap of grad",
        lambda: jax.vmap(jax.grad(lambda x: x * 2.0))(jnp.arange(3.0)),
        [("float32", False)],
    ),
]


@pytest.mark.parametrize("fun,want", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_weak_types_as_jax(fun, want):
    leaves = jax.tree.leaves(fun())
    assert [(str(jax.typeof(x).dtype), jax.typeof(x).weak_type) for x in leaves] == want
