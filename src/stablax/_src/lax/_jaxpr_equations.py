"""What each StableHLO op is in JAX's terms, for jaxpr views (`make_jaxpr`, jaxpr_view.py).

One rule per op key in `op_rules.jaxpr_rules`: JAX's primitive name, JAX's params (the op's
decoded params, renamed and completed with JAX's defaults) and JAX's operand order, such that
`lax.<name>_p.bind(*invars, **params)` re-emits the op. Ops JAX has no primitive for keep their
own key; JAX names that stablax has no `lax.*_p` object for (linalg, collectives) re-emit the op
from its decoded params. Calls of custom functions become JAX's call primitives, defined here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from stablax._src import bodies, op_rules
from stablax._src.dispatch import bind
from stablax._src.interpreters.checkpoint import Remat
from stablax._src.ir import ir
from stablax._src.jaxpr_view import Context, Equation, constant_value
from stablax._src.lax._control_flow_scan_op import SCAN, sizes
from stablax._src.lax._gather_scatter_dims import GatherScatterMode
from stablax._src.lax._reduce_monoids import identity_element
from stablax._src.primitive import Primitive

Rule = Callable[[Any, dict[str, Any], Context], Equation | None]


def _register(key: str, rule: Rule) -> None:
    op_rules.jaxpr_rules[key] = rule


def _as(name: str, **defaults: Any) -> Rule:
    """The op is JAX's `name` on the same operands: its decoded params, then `defaults` for
    JAX's params it does not carry."""

    def rule(op: Any, params: dict[str, Any], ctx: Context) -> Equation:
        return Equation(name, {**params, **defaults}, ctx.values, op.results)

    return rule


# --- elementwise --------------------------------------------------------------------------------

_WITH_ACCURACY = {
    "stablehlo.sine": "sin",
    "stablehlo.cosine": "cos",
    "stablehlo.tan": "tan",
    "stablehlo.tanh": "tanh",
    "stablehlo.exponential": "exp",
    "stablehlo.exponential_minus_one": "expm1",
    "stablehlo.log": "log",
    "stablehlo.log_plus_one": "log1p",
    "stablehlo.logistic": "logistic",
    "stablehlo.rsqrt": "rsqrt",
    "stablehlo.sqrt": "sqrt",
    "stablehlo.cbrt": "cbrt",
}
_PLAIN = {
    "stablehlo.abs": "abs",
    "stablehlo.ceil": "ceil",
    "stablehlo.floor": "floor",
    "stablehlo.negate": "neg",
    "stablehlo.sign": "sign",
    "stablehlo.is_finite": "is_finite",
    "stablehlo.not": "not",
    "stablehlo.popcnt": "population_count",
    "stablehlo.count_leading_zeros": "clz",
    "stablehlo.real": "real",
    "stablehlo.imag": "imag",
    "stablehlo.add": "add",
    "stablehlo.subtract": "sub",
    "stablehlo.divide": "div",
    "stablehlo.remainder": "rem",
    "stablehlo.power": "pow",
    "stablehlo.maximum": "max",
    "stablehlo.minimum": "min",
    "stablehlo.atan2": "atan2",
    "stablehlo.and": "and",
    "stablehlo.or": "or",
    "stablehlo.xor": "xor",
    "stablehlo.shift_left": "shift_left",
    "stablehlo.shift_right_arithmetic": "shift_right_arithmetic",
    "stablehlo.shift_right_logical": "shift_right_logical",
    "stablehlo.complex": "complex",
    "stablehlo.clamp": "clamp",
    "stablehlo.optimization_barrier": "optimization_barrier",
    "stablehlo.dynamic_update_slice": "dynamic_update_slice",
    "chlo.next_after": "nextafter",
    "chlo.polygamma": "polygamma",
    "chlo.zeta": "zeta",
    "chlo.mulhi": "mulhi",
    "stablehlo.custom_call:stablax.stop_gradient": "stop_gradient",
}
_PLAIN.update({f"chlo.{n}": n for n in "acos acosh asin asinh atan atanh cosh sinh".split()})
_PLAIN.update({f"chlo.{n}": n for n in "bessel_i1e digamma erf erf_inv erfc lgamma".split()})

for _key, _name in _WITH_ACCURACY.items():
    _register(
        _key,
        (lambda n: lambda op, p, ctx: _as(n)(op, {"accuracy": p.get("accuracy")}, ctx))(_name),
    )
for _key, _name in _PLAIN.items():
    _register(_key, (lambda n: lambda op, p, ctx: _as(n)(op, {}, ctx))(_name))

_register("stablehlo.multiply", lambda op, p, ctx: _as("mul", out_dtype=None)(op, {}, ctx))
_register(
    "stablehlo.round_nearest_afz", lambda op, p, ctx: _as("round", rounding_method=0)(op, {}, ctx)
)
_register(
    "stablehlo.round_nearest_even", lambda op, p, ctx: _as("round", rounding_method=1)(op, {}, ctx)
)
_register(
    "stablehlo.compare",
    lambda op, p, ctx: Equation(p["direction"].lower(), {}, ctx.values, op.results),
)
# select(pred, on_true, on_false) is JAX's select_n(pred, on_false, on_true)
_register(
    "stablehlo.select",
    lambda op, p, ctx: Equation("select_n", {}, [ctx.values[i] for i in (0, 2, 1)], op.results),
)

# --- types and shapes ---------------------------------------------------------------------------

_register("stablehlo.convert", _as("convert_element_type", sharding=None))
_register("stablehlo.bitcast_convert", _as("bitcast_convert_type"))
_register("stablehlo.broadcast_in_dim", _as("broadcast_in_dim", sharding=None))
_register("stablehlo.reshape", _as("reshape", dimensions=None, sharding=None))
_register("stablehlo.transpose", _as("transpose"))
_register("stablehlo.reverse", _as("rev"))
_register("stablehlo.concatenate", _as("concatenate"))
_register("stablehlo.pad", _as("pad"))
_register("stablehlo.dynamic_slice", _as("dynamic_slice"))
_register("stablehlo.iota", _as("iota", sharding=None))
_register("stablehlo.reduce_precision", _as("reduce_precision"))
_register("stablehlo.sort", _as("sort"))
_register("stablehlo.fft", _as("fft"))
_register("stablehlo.rng", _as("rng_uniform"))
_register("stablehlo.rng_bit_generator", _as("rng_bit_generator", out_sharding=None))
_register(
    "stablehlo.custom_call:stablax.name",
    lambda op, p, ctx: _as("name")(op, {"name": p["tag"]}, ctx),
)


def _slice(op: Any, params: dict[str, Any], ctx: Context) -> Equation:
    strides = params["strides"]
    strides = None if all(s == 1 for s in strides) else strides
    return _as("slice")(op, {**params, "strides": strides}, ctx)


def _top_k(op: Any, params: dict[str, Any], ctx: Context) -> Equation:
    ndim = len(bodies.aval_of_value(op.operands[0]).shape)
    return _as("top_k", axis=ndim - 1)(op, params, ctx)


_register("stablehlo.slice", _slice)
_register("chlo.top_k", _top_k)
_register("stablehlo.dot_general", _as("dot_general", out_sharding=None))
_register("stablehlo.convolution", _as("conv_general_dilated", out_sharding=None))
_register(
    "stablehlo.gather",
    _as("gather", unique_indices=False, mode=GatherScatterMode.PROMISE_IN_BOUNDS, fill_value=None),
)

_SCATTERS = {
    "replace": "scatter",
    "add": "scatter-add",
    "mul": "scatter-mul",
    "min": "scatter-min",
    "max": "scatter-max",
}


def _scatter(op: Any, params: dict[str, Any], ctx: Context) -> Equation | None:
    name = _SCATTERS.get(params["computation"])
    if name is None or len(ctx.values) != 3:
        return None
    out = {k: v for k, v in params.items() if k != "computation"}
    out.update(mode=GatherScatterMode.FILL_OR_DROP, update_jaxpr=None, update_consts=())
    return Equation(name, out, ctx.values, op.results)


_register("stablehlo.scatter", _scatter)

# --- reductions ---------------------------------------------------------------------------------

_REDUCTIONS = {
    "add": "reduce_sum",
    "mul": "reduce_prod",
    "max": "reduce_max",
    "min": "reduce_min",
    "and": "reduce_and",
    "or": "reduce_or",
    "xor": "reduce_xor",
}
_WINDOWS = {"add": "reduce_window_sum", "max": "reduce_window_max", "min": "reduce_window_min"}


def _is_identity(value: Any, computation: str) -> bool:
    """Whether `value` is a constant equal to `computation`'s identity (JAX's monoid reductions
    have no initial value)."""
    if not isinstance(value, ir.OpResult) or value.owner.name != "stablehlo.constant":
        return False
    aval = bodies.aval_of_value(value)
    expected = identity_element(computation, aval.dtype)
    return bool(np.array_equal(constant_value(value.owner, aval), expected, equal_nan=True))


def _reduce(op: Any, params: dict[str, Any], ctx: Context) -> Equation | None:
    computation, axes = params["computation"], params["axes"]
    if computation in ("argmax", "argmin") and len(op.results) == 2:
        value, index = op.results
        if next(iter(value.uses), None) is not None:  # JAX's argmax has no value output
            return None
        index_dtype = bodies.aval_of_value(index).dtype
        return Equation(
            computation, {"axes": axes, "index_dtype": index_dtype}, ctx.values[:1], [index]
        )
    name = _REDUCTIONS.get(computation) if isinstance(computation, str) else None
    if name is None or len(op.results) != 1 or not _is_identity(ctx.values[1], computation):
        return None
    out = {"axes": axes, "out_sharding": None} if name == "reduce_sum" else {"axes": axes}
    return Equation(name, out, ctx.values[:1], op.results)


def _reduce_window(op: Any, params: dict[str, Any], ctx: Context) -> Equation | None:
    computation = params["computation"]
    name = _WINDOWS.get(computation) if isinstance(computation, str) else None
    if name is None or len(op.results) != 1 or not _is_identity(ctx.values[1], computation):
        return None
    out = {k: v for k, v in params.items() if k != "computation"}
    return Equation(name, out, ctx.values[:1], op.results)


_register("stablehlo.reduce", _reduce)
_register("stablehlo.reduce_window", _reduce_window)

# --- control flow -------------------------------------------------------------------------------


def _cond(op: Any, params: dict[str, Any], ctx: Context) -> Equation:
    free = ctx.values[1:]
    branches = tuple(ctx.closed(ctx.region(i, free, True)[0]) for i in range(len(op.regions)))
    return Equation("cond", {"branches": branches}, ctx.values, op.results)


def _while(op: Any, params: dict[str, Any], ctx: Context) -> Equation:
    # JAX's while reads (cond consts, body consts, carry); both bodies read every free value.
    carry, free = ctx.values[: len(op.operands)], ctx.values[len(op.operands) :]
    cond, body = (ctx.closed(*ctx.region(i, free, True)) for i in (0, 1))
    out = {
        "cond_nconsts": len(free),
        "cond_jaxpr": cond,
        "body_nconsts": len(free),
        "body_jaxpr": body,
    }
    return Equation("while", out, [*free, *free, *carry], op.results)


def _scan(op: Any, params: dict[str, Any], ctx: Context) -> Equation:
    # The loop's state is (i, carry, ys, xs, consts) and its body (carry, x, consts) -> (carry,
    # y); JAX's scan reads (consts, carry, xs) and its body (consts, carry, x).
    body, nc, nx = params["body"], params["num_carry"], params["num_xs"]
    ny, nk = sizes(body, nc, nx)
    values, results = ctx.values, list(op.results)
    carry, ys, xs, consts = (
        slice(1, 1 + nc),
        slice(1 + nc, 1 + nc + ny),
        slice(1 + nc + ny, 1 + nc + ny + nx),
        slice(1 + nc + ny + nx, None),
    )
    order = [*range(nc + nx, nc + nx + nk), *range(nc), *range(nc, nc + nx)]
    out = {
        "reverse": params["reverse"],
        "length": params["length"],
        "jaxpr": ctx.closed(body, order),
        "num_consts": nk,
        "num_carry": nc,
        "unroll": params["unroll"],
    }
    same_as = {results[0]: params["length"]}  # the step counter ends at the length
    same_as.update(zip(results[xs], values[xs], strict=True))  # passed through unchanged
    same_as.update(zip(results[consts], values[consts], strict=True))
    inputs = [*values[consts], *values[carry], *values[xs]]
    return Equation("scan", out, inputs, [*results[carry], *results[ys]], same_as)


_register("stablehlo.case", _cond)
_register("stablehlo.while", _while)
_register(SCAN, _scan)

# --- calls --------------------------------------------------------------------------------------


def _call_impl(jaxpr_param: str, rule_param: str | None) -> Callable:
    def impl(*args: Any, **params: Any) -> list[Any]:
        jaxpr = params[jaxpr_param]
        callee = getattr(jaxpr, "jaxpr", jaxpr).source[0]
        rule = params[rule_param] if rule_param else None
        if rule_param == "policy":  # a checkpoint's payload is made from its policy
            rule = Remat(rule, len(args))
        out = bind("func.call", *args, callee=callee, rule=rule)
        return list(out) if isinstance(out, tuple) else [out]

    return impl


# JAX's call primitives, for the calls of private functions (func.call) by their rule's kind.
custom_jvp_call_p = Primitive("custom_jvp_call", _call_impl("call_jaxpr", "jvp_jaxpr_fun"), True)
custom_vjp_call_p = Primitive("custom_vjp_call", _call_impl("call_jaxpr", "fwd_jaxpr_thunk"), True)
remat_p = Primitive("remat2", _call_impl("jaxpr", "policy"), True)
closed_call_p = Primitive("closed_call", _call_impl("call_jaxpr", None), True)


def _call(op: Any, params: dict[str, Any], ctx: Context) -> Equation | None:
    callee, rule = params["callee"], params["rule"]
    kind = getattr(rule, "kind", None)
    symbolic_zeros = getattr(getattr(rule, "custom", None), "symbolic_zeros", False)
    if rule is None:
        out = {"call_jaxpr": ctx.closed(callee)}
        return Equation("closed_call", out, ctx.values, op.results)
    if kind == "custom_jvp":
        out = {
            "call_jaxpr": ctx.closed(callee),
            "jvp_jaxpr_fun": rule,
            "num_consts": 0,
            "symbolic_zeros": symbolic_zeros,
        }
        return Equation("custom_jvp_call", out, ctx.values, op.results)
    if kind == "custom_vjp":
        out = {
            "call_jaxpr": ctx.closed(callee),
            "fwd_jaxpr_thunk": rule,
            "num_consts": 0,
            "bwd": getattr(rule.custom, "bwd", None),
            "out_trees": lambda: (rule.out_tree,),
            "symbolic_zeros": symbolic_zeros,
        }
        return Equation("custom_vjp_call", out, ctx.values, op.results)
    if kind == "remat":
        out = {
            "jaxpr": ctx.open(callee),
            "prevent_cse": True,
            "differentiated": False,
            "policy": rule.policy,
        }
        return Equation("remat2", out, ctx.values, op.results)
    if kind == "hijax" and len(ctx.values) == rule.num_args:  # transforms/hijax.py's
        return Equation("call_hi_primitive", {"_prim": rule.prim}, ctx.values, op.results)
    return None


_register("func.call", _call)

# --- ops JAX names that re-emit themselves ------------------------------------------------------

_REBOUND = {
    "stablehlo.custom_call:stablax.psum": "psum",
    "stablehlo.custom_call:stablax.pmax": "pmax",
    "stablehlo.custom_call:stablax.pmin": "pmin",
    "stablehlo.custom_call:stablax.all_gather": "all_gather",
    "stablehlo.custom_call:stablax.psum_scatter": "reduce_scatter",
    "stablehlo.custom_call:stablax.axis_index": "axis_index",
    "stablehlo.custom_call:stablax.threefry2x32": "threefry2x32",
    "stablehlo.custom_call:stablax.custom_vjp_lin": "custom_lin",
    "stablehlo.composite": "composite",
}
_LINALG = (
    "cholesky eig eigh geqrf hessenberg householder_product lu ormqr qr schur svd "
    "triangular_solve tridiagonal tridiagonal_solve"
)
_REBOUND.update({f"stablehlo.custom_call:stablax.linalg.{n}": n for n in _LINALG.split()})


def _rebound(name: str) -> Rule:
    def rule(op: Any, params: dict[str, Any], ctx: Context) -> Equation:
        return Equation(name, params, ctx.values, op.results, rebinds=True)

    return rule


for _key, _name in _REBOUND.items():
    _register(_key, _rebound(_name))
