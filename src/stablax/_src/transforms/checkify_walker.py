"""checkify as a rewrite of StableHLO functions: the walker reads a function op by op, re-emits
each op and threads an error value through it, adding the checks the enabled error kinds ask for.

`rules[key]` rewrites ops with checks of their own or with bodies (division, indexing, control
flow, calls, the check op): `(op, values, walk, error) -> (error, outputs)`. Every other op is
re-emitted as it is, and with NaN checks on, the ops JAX checks have their float outputs tested.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from stablax._src import bodies, core, lax, tree_util
from stablax._src import ir as mlir
from stablax._src.avals import aval_of
from stablax._src.interpreters import calls
from stablax._src.interpreters.ad import stop_gradient_op
from stablax._src.interpreters.interpret import decode, eval_op, operand_values
from stablax._src.interpreters.remat_policies import primitive_name
from stablax._src.lax._reduce_bodies import int_tuple
from stablax._src.op_rules import op_key
from stablax._src.transforms.checkify_error import CHECK, Error, assert_failure, init_error, update
from stablax._src.transforms.checkify_kinds import (
    NaNError,
    automatic_checks,
    failure,
    location_of,
)

Rule = Callable[[Any, list[Any], "Walk", Error], tuple[Error, list[Any]]]
rules: dict[str, Rule] = {}


class Walk:
    """One rewrite: the enabled error kinds, the function whose ops are read (`owner`) and the
    values of the ops read so far (`env`, for rules that look at how an operand was made)."""

    def __init__(self, enabled: frozenset, owner: Any, env: dict[Any, Any]) -> None:
        self.enabled = enabled
        self.owner = owner
        self.env = env

    def params(self, op: Any) -> dict[str, Any]:
        return decode(op, self.owner)

    def walk(self, fn: Any, args: Sequence[Any], error: Error) -> tuple[Error, list[Any]]:
        return checkify_traced(fn, args, error, self.enabled)


def checkify_traced(
    fn: Any, args: Sequence[Any], error: Error, enabled: frozenset
) -> tuple[Error, list[Any]]:
    """Emits `fn` (traced, private or a region) on `args` into the current trace with the checks
    of the `enabled` error kinds; returns (the error after it, its outputs)."""
    arguments, ops, returned = fn.parts()
    env = dict(zip(arguments, [*args, *fn.captured], strict=True))
    walk = Walk(frozenset(enabled), fn.owner, env)
    for op in ops:
        error, outs = _checkify_op(op, walk, error)
        for result, value in zip(op.results, outs, strict=True):
            env[result] = value
    return error, [env[v] for v in returned]


@mlir.rewrites_one_op
def _checkify_op(op: Any, walk: Walk, error: Error) -> tuple[Error, list[Any]]:
    key = op_key(op)
    values = [walk.env[v] for v in operand_values(op, key)]
    rule = rules.get(key)
    if rule is not None and (walk.enabled & automatic_checks or holds_checks(op, walk.owner)):
        return rule(op, values, walk, error)
    outs = eval_op(op, values, walk.owner)
    if NaNError in walk.enabled:
        error = check_nans(op, key, outs, error)
    return error, outs


def holds_checks(op: Any, owner: Any) -> bool:
    """Whether `op` is a check op or holds one (in its regions or the functions it calls)."""
    if op_key(op) == CHECK:
        return True
    if op.name == "func.call":
        callee = bodies.Callee(owner, mlir.ir.FlatSymbolRefAttr(op.attributes["callee"]).value)
        return any(holds_checks(inner, owner) for inner in callee.parts()[1])
    return any(
        holds_checks(inner.operation, owner)
        for region in op.regions
        for block in region.blocks
        for inner in block.operations
    )


def without_checks(fn: Any) -> Any:
    """`fn` (closed) with its check ops dropped, for a call whose rules keep the callee."""
    if not any(holds_checks(op, fn.owner) for op in fn.parts()[1]):
        return fn
    return core.trace_to_func(
        lambda *xs: checkify_traced(fn, xs, init_error, frozenset())[1], fn.in_avals, "callee"
    )


# --- NaN checks --------------------------------------------------------------------------------

# The ops JAX's NaN check looks at (its `nan_primitives`), by StableHLO/CHLO name; reductions and
# windows are named by their body (see `_reduction_name`).
_NAN_OPS = frozenset(
    """add subtract multiply divide remainder power atan2 cbrt cosine sine tan tanh exponential
    exponential_minus_one log log_plus_one logistic rsqrt sqrt dot_general convolution fft pad
    rng reduce reduce_window""".split()
) | frozenset(
    f"chlo.{n}"
    for n in "acos acosh asin asinh atan atanh bessel_i1e cosh sinh digamma erf erfc erf_inv "
    "lgamma".split()
)
# The reductions JAX leaves unchecked (reduce_max, argmax, ...): a body of one of these ops.
_UNCHECKED_MONOIDS = {"maximum", "minimum", "and", "or", "xor"}
_CUMULATIVE = {"add": "cumsum", "multiply": "cumprod", "maximum": "cummax", "minimum": "cummin"}


def check_nans(op: Any, key: str, outs: Sequence[Any], error: Error) -> Error:
    """`error` with a NaNError recorded where a float output of `op` holds a NaN (for the ops
    JAX checks)."""
    short = key.removeprefix("stablehlo.")
    if short not in _NAN_OPS and key not in _NAN_OPS:
        return error
    name = primitive_name(op)
    if short in ("reduce", "reduce_window"):
        name = _reduction_name(op, short)
        if name is None:
            return error
    return record_nans(op, name, outs, error)


def record_nans(op: Any, name: str, outs: Sequence[Any], error: Error) -> Error:
    """`error` with a NaNError naming primitive `name` where a float output holds a NaN."""
    floats = [o for o in outs if aval_of(o).dtype.kind in "fc"]
    if not floats:
        return error
    any_nan = None
    for o in floats:
        nan = any_of(lax.ne(o, o))
        any_nan = nan if any_nan is None else lax.bitwise_or(any_nan, nan)
    template, payload = failure(NaNError, location_of(op), (name,))
    return assert_failure(error, any_nan, template, payload)


def any_of(mask: Any) -> Any:
    """Whether any element of a boolean array is set (the array itself if 0-d)."""
    ndim = aval_of(mask).ndim
    return lax.reduce_or(mask, tuple(range(ndim))) if ndim else mask


def _reduction_name(op: Any, short: str) -> str | None:
    """JAX's name for a reduce/reduce_window from its body, or None for one JAX does not check."""
    block = op.regions[0].blocks[0]
    body = [o.operation.name.removeprefix("stablehlo.") for o in block.operations][:-1]
    if len(op.results) > 1:
        return None  # argmax, argmin: JAX's own primitives, unchecked
    if short == "reduce":
        if len(body) == 1:
            monoid = body[0]
            if monoid in _UNCHECKED_MONOIDS:
                return None
            return {"add": "reduce_sum", "multiply": "reduce_prod"}.get(monoid, "reduce")
        return "reduce"
    window = int_tuple(op.attributes["window_dimensions"])
    shape = bodies.aval_of_value(op.operands[0]).shape
    long_axes = [d for d, w in enumerate(window) if w != 1]
    if len(long_axes) == 1 and window[long_axes[0]] == shape[long_axes[0]]:
        if "log_plus_one" in body:
            return "cumlogsumexp"
        if len(body) == 1 and body[0] in _CUMULATIVE:
            return _CUMULATIVE[body[0]]
    if len(body) == 1 and body[0] in ("maximum", "minimum"):
        return None
    return "reduce_window_sum" if body == ["add"] else "reduce_window"


# --- calls -------------------------------------------------------------------------------------


def _call_rule(op: Any, values: list[Any], walk: Walk, error: Error):
    params = walk.params(op)
    callee, rule = params["callee"], params["rule"]
    if rule is None:  # a plain call: its callee is rewritten inline
        return walk.walk(callee, values, error)
    # A call with rules (custom_jvp, custom_vjp, checkpoint) stays a call, so its rules still
    # apply; its checks run on a copy of the callee whose outputs only feed the error value.
    error, _ = walk.walk(callee, [stop_gradient_op(v) for v in values], error)
    return error, calls.call(without_checks(callee), values, rule)


rules["func.call"] = _call_rule


# --- the check op: its error joins the walk's (the kinds enabled) ------------------------------


def _check_rule(op: Any, values: list[Any], walk: Walk, error: Error):
    staged = tree_util.tree_unflatten(walk.params(op)["error_tree"], values)
    for effect, pred in staged._pred.items():
        if effect.kind in walk.enabled:
            error = update(error, effect, pred, staged._code[effect], staged._payload[effect], {})
    metadata = {**staged._metadata, **error._metadata}
    return Error(error._pred, error._code, metadata, error._payload), []


rules[CHECK] = _check_rule
