"""The op tables: every rule of an op, registered by one `def_op` call, keyed by the op's name.

Keys are exact MLIR op names ("stablehlo.sine"); a custom call is keyed by its target
("stablehlo.custom_call:stablax.stop_gradient"), and an op that `def_op(key=...)` recognises
among others of its MLIR name by its own key ("stablax.scan", a marked `stablehlo.while`).
`bind` reads the shape rules and lowerings; the walkers (interpreters/) read the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from stablax._src import bodies, ir_passes
from stablax._src import ir as mlir
from stablax._src.ir import ir

# shape rule: (*in_avals, **params) -> ShapedArray | tuple[ShapedArray, ...]; raises on bad input.
ShapeRule = Callable[..., Any]
# lowering: (operands: list[ir.Value], in_avals, out_avals, **params) -> list[ir.Value]
Lowering = Callable[..., Sequence[Any]]
# decoder: (op: ir.Operation, owner: TracedFunction) -> params, the inverse of the lowering, so
# that rewrites can re-bind an op read from a StableHLO function: bind(op_key(op), *operands,
# **decoder(op, owner)) re-emits it. `owner` is the function whose module holds the op (its
# private functions and payloads); most decoders read the op alone.
Decoder = Callable[[Any, Any], dict[str, Any]]
# jvp rule: (primals: list, tangents: list[value | None], **params) -> (outs, out_tangents);
# None is a symbolic zero tangent. Rules are written with stablax.lax functions.
JvpRule = Callable[..., tuple[Any, Any]]
# transpose rule: (cotangent, *operands, **params) -> one cotangent (or None) per operand; linear
# operands arrive as `UndefinedPrimal` (interpreters/ad.py), the others as values.
TransposeRule = Callable[..., Sequence[Any]]
# batching rule: (values, dims: list[int | None], *, axis_size, **params) -> (outs, out_dims);
# see interpreters/batching.py.
BatchRule = Callable[..., tuple[Any, Any]]

shape_rules: dict[str, ShapeRule] = {}
lowering_rules: dict[str, Lowering] = {}
param_decoders: dict[str, Decoder] = {}
jvp_rules: dict[str, JvpRule] = {}
transpose_rules: dict[str, TransposeRule] = {}
batch_rules: dict[str, BatchRule] = {}
# jaxpr rule: (op, decoded params, jaxpr_view.Context) -> jaxpr_view.Equation | None, what the op
# is in JAX's terms (its primitive, params and operand order) in a jaxpr view; None, or no rule,
# shows the op itself. lax/_jaxpr_equations.py registers them.
JaxprRule = Callable[[Any, dict[str, Any], Any], Any]
jaxpr_rules: dict[str, JaxprRule] = {}
# Ops whose outputs have zero derivative everywhere they are defined (comparisons, integer ops,
# rounding, bit manipulation): jvp gives symbolic zeros instead of a rule.
not_differentiable: set[str] = set()
# Ops whose batching rule runs even when no operand is batched: collectives over a named vmap
# axis (psum of an unbatched x is axis_size * x).
named_axis_ops: set[str] = set()
# Ops whose regions read values from above (control flow): those values are operands of the op
# for the rewrites, after its own operands (see bodies.free_values).
captures_from_above: set[str] = set()
# Ops whose parameters hold functions or payloads: run eagerly without the eager cache (their
# one-op programs compile through the fingerprint cache), so no global table keeps them alive.
uncached_ops: set[str] = set()
# MLIR op name -> the rule key of one such op, for ops keyed by more than their name.
op_keys: dict[str, Callable[[Any], str]] = {}

CUSTOM_CALL = "stablehlo.custom_call"


def op_key(op: Any) -> str:
    """The rule-table key of an op read from a module."""
    key = op_keys.get(op.name)
    return op.name if key is None else key(op)


def _custom_call_key(op: Any) -> str:
    return f"{CUSTOM_CALL}:{ir.StringAttr(op.attributes['call_target_name']).value}"


def operand_values(op: Any, key: str | None = None) -> list[Any]:
    """The values an op reads: its operands, then what its regions read from above."""
    key = op_key(op) if key is None else key
    if key in captures_from_above:
        return [*op.operands, *bodies.free_values(op)]
    return list(op.operands)


def decode(op: Any, owner: Any = None, key: str | None = None) -> dict[str, Any]:
    """The params that re-emit `op` through `bind` (`owner`: the function holding it)."""
    key = op_key(op) if key is None else key
    try:
        decoder = param_decoders[key]
    except KeyError:
        raise NotImplementedError(f"stablax: no rules for op {key}") from None
    return decoder(op, owner)


def no_params(op: Any, owner: Any = None) -> dict[str, Any]:
    return {}


def generic_lowering(name: str) -> Lowering:
    """Emits `name` one-to-one: operands in, results of the inferred types out, no attributes."""

    def lower(operands, in_avals, out_avals, **params):
        op = mlir.emit(name, operands, [mlir.aval_type(a) for a in out_avals])
        return list(op.results)

    return lower


def attribute_lowering(name: str, **attributes: tuple[str, Callable[[Any], Any]]) -> Lowering:
    """Emits `name` one-to-one with attributes built from params: attr=(param, encoder)."""

    def lower(operands, in_avals, out_avals, **params):
        attrs = {attr: encode(params[param]) for attr, (param, encode) in attributes.items()}
        op = mlir.emit(name, operands, [mlir.aval_type(a) for a in out_avals], attrs)
        return list(op.results)

    return lower


def def_op(
    name: str,
    shape_rule: ShapeRule,
    lowering: Lowering | None = None,
    *,
    decode: Decoder | None = None,
    decode_reads_owner: bool = False,
    jvp: JvpRule | None = None,
    transpose: TransposeRule | None = None,
    batch: BatchRule | None = None,
    expand: ir_passes.Expansion | None = None,
    key: tuple[str, Callable[[Any], bool]] | None = None,
    differentiable: bool = True,
    named_axis: bool = False,
    regions_capture: bool = False,
    cache_eagerly: bool = True,
) -> str:
    """Registers all of an op's rules, once.

    The lowering defaults to the generic one-to-one emitter and the decoder to "no params"; a
    decoder takes the op alone unless `decode_reads_owner`. `expand`: how a marker custom call
    is replaced before compilation. `key=(mlir_name, matches)`: the op is the `mlir_name` op for
    which `matches(op)` holds (a marked `stablehlo.while` is a scan). `differentiable=False`:
    zero derivative wherever defined. `named_axis`: batch even when nothing is batched.
    `regions_capture`: its regions read values from above. `cache_eagerly=False`: its params
    hold functions.
    """
    if name in shape_rules:
        raise ValueError(f"stablax: internal error, op {name} is registered twice")
    if not differentiable and jvp is not None:
        raise ValueError(f"stablax: internal error, op {name} has a jvp rule but no derivative")
    shape_rules[name] = shape_rule
    lowering_rules[name] = lowering if lowering is not None else generic_lowering(name)
    if decode is None:
        param_decoders[name] = no_params
    elif decode_reads_owner:
        param_decoders[name] = decode
    else:
        param_decoders[name] = lambda op, owner: decode(op)
    for table, rule in ((jvp_rules, jvp), (transpose_rules, transpose), (batch_rules, batch)):
        if rule is not None:
            table[name] = rule
    for flags, flag in (
        (not_differentiable, not differentiable),
        (named_axis_ops, named_axis),
        (captures_from_above, regions_capture),
        (uncached_ops, not cache_eagerly),
    ):
        if flag:
            flags.add(name)
    mlir_name, _, target = name.partition(":")
    if target:
        op_keys[mlir_name] = _custom_call_key
    if expand is not None:
        if not target:
            raise ValueError(f"stablax: internal error, op {name} is not a custom call to expand")
        ir_passes.expansions[target] = expand
    if key is not None:
        _key_variant(name, *key)
    return name


def _key_variant(name: str, mlir_name: str, matches: Callable[[Any], bool]) -> None:
    other = op_keys.get(mlir_name)

    def key(op: Any) -> str:
        if matches(op):
            return name
        return op.name if other is None else other(op)

    op_keys[mlir_name] = key
