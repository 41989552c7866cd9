"""JAX's jaxpr classes, and the jaxpr view of a StableHLO function (what `make_jaxpr` returns).

A view reads a traced function back as one equation per op: JAX's primitive and params where
`op_rules.jaxpr_rules` has the op's rule (lax/_jaxpr_equations.py), else a primitive named by the
op's key with its decoded params; regions and private functions become sub-jaxprs. Constants are
`Literal`s; values a function closed over are its `constvars`, bound to `consts`. Views print
the StableHLO they read. `interpreters/interpret.eval_jaxpr` evaluates views and jaxprs built by
hand (equation by equation, through each primitive's `bind`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from stablax._src import ir as mlir
from stablax._src import op_rules, staging
from stablax._src.avals import ShapedArray
from stablax._src.bodies import Callee, Region, aval_of_value
from stablax._src.dispatch import bind
from stablax._src.ir import ir
from stablax._src.primitive import Primitive, lookup

# --- JAX's classes ------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class NameStack:
    """The `named_scope`s an equation was traced in, outermost first; `str()` joins them."""

    stack: tuple[str, ...] = ()

    def __str__(self) -> str:
        return "/".join(self.stack)


@dataclasses.dataclass(frozen=True)
class SourceInfo:
    """Where an equation comes from: its name stack and the user's file and line (stablax keeps
    no Python traceback, so `traceback` is None)."""

    name_stack: NameStack = NameStack()
    file: str | None = None
    line: int | None = None
    traceback: None = None

    def replace(self, **changes: Any) -> SourceInfo:
        return dataclasses.replace(self, **changes)


class Var:
    """A variable of a jaxpr: bound once (an input or an equation's output), typed by `aval`."""

    __slots__ = ("aval",)

    def __init__(self, aval: Any) -> None:
        self.aval = aval

    def __repr__(self) -> str:
        return f"Var(id={id(self)}):{self.aval.str_short()}"


class DropVar(Var):
    """An equation output nothing reads."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "_"


class Literal:
    """A constant operand; its value is read from the module when first asked for."""

    __slots__ = ("aval", "_val", "_op")

    def __init__(self, val: Any, aval: Any = None, _op: Any = None) -> None:
        self._val, self._op = val, _op
        self.aval = aval if aval is not None else ShapedArray(np.shape(val), np.asarray(val).dtype)

    @property
    def val(self) -> Any:
        if self._op is not None:
            self._val, self._op = constant_value(self._op, self.aval), None
        return self._val

    def __repr__(self) -> str:
        return f"Literal({self.val})"


Atom = Var | Literal


class JaxprEqn:
    """One equation: `outvars = primitive[params](*invars)`."""

    __slots__ = ("invars", "outvars", "primitive", "params", "effects", "source_info", "ctx")

    def __init__(
        self,
        invars: Sequence[Atom],
        outvars: Sequence[Var],
        primitive: Any,
        params: dict[str, Any],
        effects: Any = frozenset(),
        source_info: SourceInfo | None = None,
        ctx: Any = None,
    ) -> None:
        self.invars, self.outvars = list(invars), list(outvars)
        self.primitive, self.params = primitive, dict(params)
        self.effects, self.ctx = effects, ctx
        self.source_info = SourceInfo() if source_info is None else source_info

    def replace(self, **changes: Any) -> JaxprEqn:
        fields = {name: getattr(self, name) for name in self.__slots__}
        return JaxprEqn(**{**fields, **changes})

    def __repr__(self) -> str:
        outs = " ".join(map(repr, self.outvars))
        return f"{outs} = {self.primitive.name} {' '.join(map(repr, self.invars))}"


def new_jaxpr_eqn(invars, outvars, primitive, params, effects, source_info=None, ctx=None):
    """A `JaxprEqn` (JAX's constructor function)."""
    return JaxprEqn(invars, outvars, primitive, params, effects, source_info, ctx)


class Jaxpr:
    """A function as equations over variables: `constvars` and `invars` in, `outvars` out.

    A view also keeps the StableHLO function it reads (`source`: the function and, for each of
    constvars + invars, the position of its input), which prints it and evaluates it exactly.
    """

    def __init__(
        self,
        constvars: Sequence[Var],
        invars: Sequence[Var],
        outvars: Sequence[Atom],
        eqns: Sequence[JaxprEqn],
        effects: Any = frozenset(),
        debug_info: Any = None,
        *,
        source: tuple[Any, list[int]] | None = None,
        text: Callable[[], str] | None = None,
    ) -> None:
        self.constvars, self.invars = list(constvars), list(invars)
        self.outvars, self.eqns = list(outvars), list(eqns)
        self.effects, self.debug_info = effects, debug_info
        self.source, self._text = source, text

    @property
    def in_avals(self) -> list[Any]:
        return [v.aval for v in self.invars]

    @property
    def out_avals(self) -> list[Any]:
        return [v.aval for v in self.outvars]

    def replace(self, **changes: Any) -> Jaxpr:
        """A jaxpr with some fields changed (no longer a view: it evaluates by its equations)."""
        fields = ("constvars", "invars", "outvars", "eqns", "effects", "debug_info")
        return Jaxpr(**{**{f: getattr(self, f) for f in fields}, **changes})

    def pretty_print(self, **_: Any) -> str:
        return str(self)

    def __str__(self) -> str:
        if self._text is not None:
            return self._text()

        def atoms(xs: Sequence[Any]) -> str:
            return " ".join(map(repr, xs))

        lines = [f"  {eqn!r}" for eqn in self.eqns]
        head = f"{{ lambda {atoms(self.constvars)} ; {atoms(self.invars)}. let"
        return "\n".join([head, *lines, f"  in ({atoms(self.outvars)}) }}"])

    __repr__ = __str__


class ClosedJaxpr:
    """A jaxpr with the values of its `constvars`: what `make_jaxpr(f)(*args)` returns.

    A view of a traced function (`traced_function`) prints its StableHLO module, as `str()` of
    JAX's jaxpr prints the jaxpr; `.jaxpr` and the rest are built on first use.
    """

    def __init__(self, jaxpr: Jaxpr | None, consts: Sequence[Any] = (), *, traced: Any = None):
        self._jaxpr, self._consts, self._traced = jaxpr, list(consts), traced

    @property
    def jaxpr(self) -> Jaxpr:
        if self._jaxpr is None:
            self._jaxpr = view_of_traced(self._traced)
        return self._jaxpr

    @property
    def consts(self) -> list[Any]:
        return self._consts if self._traced is None else list(self._traced.captured)

    @property
    def traced_function(self) -> Any:
        return self._traced

    @property
    def in_avals(self) -> list[Any]:
        return list(self._traced.in_avals) if self._traced is not None else self.jaxpr.in_avals

    @property
    def out_avals(self) -> list[Any]:
        return list(self._traced.out_avals) if self._traced is not None else self.jaxpr.out_avals

    eqns = property(lambda self: self.jaxpr.eqns)
    constvars = property(lambda self: self.jaxpr.constvars)
    invars = property(lambda self: self.jaxpr.invars)
    outvars = property(lambda self: self.jaxpr.outvars)
    effects = property(lambda self: self.jaxpr.effects)
    literals = property(lambda self: self.consts)

    @property
    def module(self) -> Any:
        return self._traced.module

    def replace(self, *, jaxpr: Jaxpr | None = None, consts: Sequence[Any] | None = None):
        return ClosedJaxpr(
            self.jaxpr if jaxpr is None else jaxpr, self.consts if consts is None else consts
        )

    def map_jaxpr(self, f: Callable[[Jaxpr], Jaxpr]) -> ClosedJaxpr:
        return ClosedJaxpr(f(self.jaxpr), self.consts)

    def text(self, debug_info: bool = False) -> str:
        if self._traced is None:
            return str(self.jaxpr)
        return self._traced.text(debug_info=debug_info)

    def pretty_print(self, **_: Any) -> str:
        return self.text()

    def __str__(self) -> str:
        return self.text()

    __repr__ = __str__


# --- what a rule says an op is ------------------------------------------------------------------


@dataclasses.dataclass
class Equation:
    """One op in JAX's terms (what a rule of `op_rules.jaxpr_rules` returns).

    `inputs` are the op's values in JAX's operand order, `outputs` the results JAX's primitive
    returns, `same_as` the op's other results, each equal to one of its values or a constant.
    The primitive is JAX's object of that name (`primitive.lookup`), whose `bind` takes `params`;
    with `rebinds`, one named `name` that re-emits the op, `params` being the op's decoded ones.
    """

    name: str
    params: dict[str, Any]
    inputs: Sequence[Any]
    outputs: Sequence[Any]
    same_as: dict[Any, Any] = dataclasses.field(default_factory=dict)
    rebinds: bool = False  # the primitive re-emits the op from decoded params (op_primitive)


class Context:
    """What a rule reads besides the op: its values, its owner, and sub-jaxprs of its bodies."""

    def __init__(self, op: Any, owner: Any, key: str, scope: tuple[str, ...]) -> None:
        self.op, self.owner, self.key, self._scope = op, owner, key, scope
        self.values = op_rules.operand_values(op, key)

    def closed(self, fn: Any, positions: Sequence[int] | None = None) -> ClosedJaxpr:
        """The view of `fn` (a Region or Callee), whose invars are its inputs at `positions`."""
        return ClosedJaxpr(self.open(fn, positions))

    def open(self, fn: Any, positions: Sequence[int] | None = None) -> Jaxpr:
        n = len(fn.parts()[0])
        positions = list(range(n)) if positions is None else list(positions)
        return _view(fn, self.owner, positions, 0, _name_stack(self.op.location))

    def region(self, index: int, free: Sequence[Any], free_first: bool) -> Any:
        """Region `index` of the op reading `free` from above, and the positions that put
        `free` before its block arguments (`free_first`) or after them."""
        region = Region(self.owner, self.op.regions[index], free)
        nb, nf = len(region.block.arguments), len(free)
        order = [*range(nb, nb + nf), *range(nb)] if free_first else list(range(nb + nf))
        return region, order


# --- building views -----------------------------------------------------------------------------


def view_of_traced(traced: Any) -> Jaxpr:
    """The jaxpr of a traced function: its captured inputs are constvars."""
    n_in = len(traced.in_avals)
    n_all = n_in + len(traced.captured)
    positions = [*range(n_in, n_all), *range(n_in)]
    jaxpr = _view(traced, traced, positions, n_all - n_in, (), list(traced.in_avals))
    jaxpr._text = traced.text
    return jaxpr


def _view(
    fn: Any,
    owner: Any,
    positions: list[int],
    num_consts: int,
    scope: tuple[str, ...],
    in_avals: Sequence[Any] | None = None,
) -> Jaxpr:
    with mlir.context():
        inputs, ops, returned = fn.parts()
        binders = [Var(aval_of_value(inputs[p])) for p in positions]
        if in_avals is not None:  # a traced function's own avals carry weak types
            for var, aval in zip(binders[num_consts:], in_avals, strict=True):
                var.aval = aval
        env: dict[Any, Any] = {inputs[p]: v for p, v in zip(positions, binders, strict=True)}
        eqns = [eqn for op in ops if (eqn := _equation(op, owner, env, scope)) is not None]
        outvars = [env[v] for v in returned]
    eqns = _without_orphans(eqns, outvars)
    return Jaxpr(
        binders[:num_consts],
        binders[num_consts:],
        outvars,
        eqns,
        source=(fn, positions),
        text=lambda: _function_text(fn),
    )


def _without_orphans(eqns: list[JaxprEqn], outvars: list[Any]) -> list[JaxprEqn]:
    """`eqns` less those whose outputs only operands JAX has no place for read (argmax's iota,
    a reduction's initial value): their outputs are used in the module, not in the view.
    Equations whose outputs nothing reads at all stay, as in JAX's jaxprs."""
    read = {id(v) for v in outvars}
    kept = []
    for eqn in reversed(eqns):
        orphan = all(type(v) is Var and id(v) not in read for v in eqn.outvars)
        if not orphan or not eqn.outvars:
            kept.append(eqn)
            read.update(id(v) for v in eqn.invars)
    return kept[::-1]


def equation_of(op: Any, owner: Any, scope: tuple[str, ...] = ()) -> Equation:
    """What `op` (of a function of `owner`'s module) is in JAX's terms."""
    key = op_rules.op_key(op)
    ctx = Context(op, owner, key, scope)
    params = op_rules.decode(op, owner, key)
    rule = op_rules.jaxpr_rules.get(key)
    eq = rule(op, params, ctx) if rule is not None else None
    if eq is None:  # no JAX counterpart: the op itself
        eq = Equation(key, params, ctx.values, list(op.results), rebinds=True)
    return eq


def primitive_of(op: Any, owner: Any) -> tuple[Primitive, Equation]:
    """JAX's primitive for `op`, and its equation, as a view shows them."""
    eq = equation_of(op, owner)
    return _primitive(eq, op_rules.op_key(op)), eq


def _equation(op: Any, owner: Any, env: dict, scope: tuple[str, ...]) -> JaxprEqn | None:
    if op.name == "stablehlo.constant":
        result = op.results[0]
        env[result] = Literal(None, aval_of_value(result), _op=op)
        return None
    key = op_rules.op_key(op)
    eq = equation_of(op, owner, scope)
    for result, same in eq.same_as.items():
        env[result] = env[same] if isinstance(same, ir.Value) else _literal(same, result)
    outvars = [Var(aval_of_value(r)) if _used(r) else DropVar(aval_of_value(r)) for r in eq.outputs]
    env.update(zip(eq.outputs, outvars, strict=True))
    return JaxprEqn(
        [env[v] for v in eq.inputs],
        outvars,
        _primitive(eq, key),
        eq.params,
        source_info=_source_info(op.location, scope),
    )


def _literal(value: Any, result: Any) -> Literal:
    aval = aval_of_value(result)
    return Literal(np.asarray(value, aval.dtype), aval)


def _used(value: Any) -> bool:
    return next(iter(value.uses), None) is not None


_OP_PRIMITIVES: dict[tuple[str, str], Primitive] = {}  # (op key, name) -> its primitive


def op_primitive(key: str, name: str | None = None) -> Primitive:
    """A primitive named `name` (default: the op key) whose `bind` re-emits op `key` with the
    op's decoded params; one list of outputs, whatever their number."""
    name = key if name is None else name
    prim = _OP_PRIMITIVES.get((key, name))
    if prim is None:

        def impl(*args: Any, **params: Any) -> list[Any]:
            out = bind(key, *args, **params)
            return list(out) if isinstance(out, tuple) else [out]

        prim = Primitive(name, impl, multiple_results=True, register=False)
        _OP_PRIMITIVES[key, name] = prim
    return prim


def _primitive(eq: Equation, key: str) -> Primitive:
    if eq.rebinds:
        return op_primitive(key, eq.name)
    prim = lookup(eq.name)
    if prim is None:
        raise RuntimeError(f"stablax: internal error, no primitive {eq.name} for op {key}")
    return prim


# --- source information and printing ------------------------------------------------------------


def _name_stack(location: Any) -> tuple[str, ...]:
    """The `named_scope`s of an op's location: its outer name, unless that name is only the
    function of the user's call (`ir.user_location`)."""
    if isinstance(location, ir.NameLoc) and not isinstance(location.child_loc, ir.FileLineColLoc):
        return tuple(s for s in location.name_str.split("/") if s)
    return ()


def _source_info(location: Any, scope: tuple[str, ...]) -> SourceInfo:
    names = _name_stack(location)
    if names[: len(scope)] == scope:  # inside a sub-jaxpr, names relative to its equation's
        names = names[len(scope) :]
    source = mlir.source_of(location)
    if source is not None:
        return SourceInfo(NameStack(names), source[0], source[1])
    return SourceInfo(NameStack(names))


def _function_text(fn: Any) -> str:
    with mlir.context():
        if isinstance(fn, Callee):
            return fn.func_op.get_asm(enable_debug_info=False)
        if isinstance(fn, Region):
            return "\n".join(str(op) for op in fn.block.operations)
        return fn.text()


def constant_value(op: Any, aval: ShapedArray) -> np.ndarray:
    """The value of a `stablehlo.constant` op: read from its attribute, or computed (complex
    and other element types MLIR's Python bindings do not convert)."""
    with mlir.context():
        try:
            value = np.asarray(ir.DenseElementsAttr(op.attributes["value"]))
            return np.broadcast_to(value, aval.shape).astype(aval.dtype)
        except (TypeError, ValueError):
            pass
    (out,) = staging.run_staged(lambda: [staging.emit_constant(op)], [])
    return np.asarray(out)


__all__ = [
    "ClosedJaxpr",
    "DropVar",
    "Jaxpr",
    "JaxprEqn",
    "Literal",
    "NameStack",
    "SourceInfo",
    "Var",
]
