"""The rule tables agree with each other and with the lowerings.

Every registered op (every lax family loaded) has a shape rule, a lowering, a decoder, a batch
rule, and a jvp rule or a place in the not-differentiable set; every op any table row emits is
registered, and the ops of linear rows have transpose rules. Re-emitting a traced function op by
op through `bind(op, *operands, **decode(op))` reproduces it exactly: that is what every rewrite
relies on.
"""

from __future__ import annotations

import importlib
import pkgutil

import numpy as np
import pytest

import stablax.numpy as jnp
from stablax._src import core, op_rules
from stablax._src import lax as src_lax
from stablax._src.config import config
from stablax._src.interpreters.interpret import body, interpret
from stablax._src.op_rules import op_key
from tests.op_record import all_records

RECORDS = all_records()


def _registered_ops() -> list[str]:
    for module in pkgutil.iter_modules(src_lax.__path__):  # the families loaded on first use too
        importlib.import_module(f"{src_lax.__name__}.{module.name}")
    return sorted(op_rules.shape_rules)


REGISTERED = _registered_ops()


@pytest.mark.parametrize("name", REGISTERED)
def test_every_registered_op_has_its_rules(name):
    assert name in op_rules.lowering_rules, f"{name} has no lowering"
    assert name in op_rules.param_decoders, f"{name} has no parameter decoder"
    assert name in op_rules.batch_rules, f"{name} has no batching rule"
    assert name in op_rules.jvp_rules or name in op_rules.not_differentiable, (
        f"{name} has no jvp rule and is not declared non-differentiable"
    )
    assert not (name in op_rules.jvp_rules and name in op_rules.not_differentiable)


def _trace(record):
    shapes = record.shapes[0]
    rng = np.random.default_rng(0)
    if record.dtypes:
        args = [jnp.asarray(a) for a in record.make_args(rng, shapes, record.dtypes[0])]
        return core.trace_to_func(lambda *xs: [record.fun(*xs)], [a.aval for a in args])
    previous = config.jax_enable_x64  # an x64-only row
    config.update("jax_enable_x64", True)
    try:
        args = [jnp.asarray(a) for a in record.make_args(rng, shapes, record.x64_dtypes[0])]
        return core.trace_to_func(lambda *xs: [record.fun(*xs)], [a.aval for a in args])
    finally:
        config.update("jax_enable_x64", previous)


def _op_keys(traced):
    _, ops, _ = body(traced)
    return {op_key(op) for op in ops} - {"stablehlo.constant"}


@pytest.mark.parametrize("record", RECORDS, ids=[r.name for r in RECORDS])
def test_reinterpretation_reproduces_the_function(record):
    traced = _trace(record)
    again = core.trace_to_func(lambda *xs: interpret(traced, xs), traced.in_avals)
    assert again.text() == traced.text()


@pytest.mark.parametrize("record", RECORDS, ids=[r.name for r in RECORDS])
def test_every_emitted_op_has_rules(record):
    for key in _op_keys(_trace(record)):
        assert key in op_rules.shape_rules, key
        assert key in op_rules.param_decoders, f"{key} has no parameter decoder"
        if record.differentiable:
            assert key in op_rules.jvp_rules or key in op_rules.not_differentiable, (
                f"{key} has no jvp rule and is not declared non-differentiable"
            )


def test_linear_ops_have_transpose_rules():
    for record in RECORDS:
        if not record.linear:
            continue
        for key in _op_keys(_trace(record)):
            if key in op_rules.not_differentiable:
                continue
            assert key in op_rules.transpose_rules, f"{record.name}: {key} has no transpose rule"
