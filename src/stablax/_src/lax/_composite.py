"""`lax.composite`: a function emitted as one named `stablehlo.composite` op whose decomposition
is the function's traced body, so a backend that knows the name can replace it (XLA inlines the
decomposition otherwise)."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from stablax._src import bodies, core, tree_util
from stablax._src import ir as mlir
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.dispatch import bind
from stablax._src.interpreters import ad
from stablax._src.interpreters import control_flow as cf
from stablax._src.interpreters.batching import batch_not_implemented
from stablax._src.ir import ir
from stablax._src.op_rules import def_op

COMPOSITE = "stablehlo.composite"
_NAME = re.compile(r"^[a-zA-Z][a-zA-Z0-9_]*([.][a-zA-Z0-9_$]+)+$")  # what StableHLO accepts

# --- attributes: Python values <-> MLIR attributes (arrays travel as hashable tuples) -----------


def _hashable_attribute(name: str, value: Any) -> Any:
    if isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
        return ("array", array.dtype.str, array.shape, array.tobytes())
    raise TypeError(
        f"lax.composite: attribute {name}={value!r} must be a bool, int, float, str or a NumPy "
        "array (attributes are static)"
    )


def _encode(value: Any) -> ir.Attribute:
    if isinstance(value, bool):
        return ir.BoolAttr.get(value)
    if isinstance(value, int):
        return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), value)
    if isinstance(value, float):
        return ir.FloatAttr.get(ir.F64Type.get(), value)
    if isinstance(value, str):
        return ir.StringAttr.get(value)
    _, dtype, shape, data = value
    return mlir.dense_constant(np.frombuffer(data, dtype=dtype).reshape(shape))


def _decode_attribute(attr: ir.Attribute) -> Any:
    if isinstance(attr, ir.BoolAttr):
        return bool(attr.value)
    if isinstance(attr, ir.IntegerAttr):
        return int(attr.value)
    if isinstance(attr, ir.FloatAttr):
        return float(attr.value)
    if isinstance(attr, ir.StringAttr):
        return attr.value
    return _hashable_attribute("", np.array(attr))


# --- the op ------------------------------------------------------------------------------------


def _composite_rule(*avals: ShapedArray, composite_name, attributes, version, decomposition):
    return tuple(decomposition.out_avals)


def _composite_lowering(
    operands, in_avals, out_avals, *, composite_name, attributes, version, decomposition
):
    # The decomposition is a private function of this module, named by the op.
    symbol = bodies.add_function(core.lowering_trace(), decomposition, "composite_decomposition")
    attrs = {
        "name": ir.StringAttr.get(composite_name),
        "composite_attributes": ir.DictAttr.get({k: _encode(v) for k, v in attributes}),
        "decomposition": ir.FlatSymbolRefAttr.get(symbol),
        "version": ir.IntegerAttr.get(ir.IntegerType.get_signless(32), version),
    }
    types = [mlir.aval_type(a) for a in out_avals]
    return list(mlir.emit(COMPOSITE, operands, types, attrs).results)


def _composite_decode(op: Any, owner: Any) -> dict[str, Any]:
    table = ir.DictAttr(op.attributes["composite_attributes"])
    attributes = tuple(
        sorted((table[i].name, _decode_attribute(table[i].attr)) for i in range(len(table)))
    )
    symbol = ir.FlatSymbolRefAttr(op.attributes["decomposition"]).value
    return dict(
        composite_name=ir.StringAttr(op.attributes["name"]).value,
        attributes=attributes,
        version=int(ir.IntegerAttr(op.attributes["version"]).value),
        decomposition=bodies.Callee(owner, symbol),
    )


# Not differentiated nor batched, as in JAX 0.10.2 (whose composite has neither rule): wrap the
# composite in custom_jvp to differentiate it.
def_op(
    COMPOSITE,
    _composite_rule,
    _composite_lowering,
    decode=_composite_decode,
    decode_reads_owner=True,
    jvp=ad.jvp_not_implemented("composite"),
    batch=batch_not_implemented(COMPOSITE),
    cache_eagerly=False,
)


def composite(decomposition: Callable, name: str, version: int = 0) -> Callable:
    """Makes `decomposition` a composite op: calls emit one `stablehlo.composite` named `name`.

    Args:
      decomposition: a function of arrays (pytrees allowed) and static keyword attributes
        (bools, ints, floats, strings, NumPy arrays), which become the op's attributes.
      name: the composite's name, e.g. "my_project.my_op".
      version: the composite's version.

    Returns:
      A function with `decomposition`'s signature. Example:
      `lax.composite(lambda x, *, k: x * k, "my.scale")(x, k=2.0)`.
    """

    if not isinstance(name, str):
        raise TypeError(f"lax.composite: name must be a string, got {type(name).__name__}")
    if not _NAME.match(name):
        raise ValueError(
            f"lax.composite: name must be namespaced (like 'my_project.my_op'), got {name!r}"
        )

    @functools.wraps(decomposition)
    def call(*args: Any, **kwargs: Any) -> Any:
        attributes = tuple(sorted((k, _hashable_attribute(k, v)) for k, v in kwargs.items()))
        leaves, in_tree = tree_util.tree_flatten(args)
        avals = [aval_of(x) for x in leaves]
        out_tree_box = []

        def flat(*xs):
            out = decomposition(*tree_util.tree_unflatten(in_tree, list(xs)), **kwargs)
            out_leaves, out_tree = tree_util.tree_flatten(out)
            out_tree_box.append(out_tree)
            return out_leaves

        body, captured = cf.trace_body(flat, avals)
        outs = bind(
            COMPOSITE,
            *leaves,
            *captured,
            composite_name=name,
            attributes=attributes,
            version=int(version),
            decomposition=body,
        )
        return tree_util.tree_unflatten(out_tree_box[0], list(outs))

    return call
