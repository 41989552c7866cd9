"""`jax.experimental.hijax.VJPHiPrimitive`: an operation with its own autodiff and vmap rules.

A hi-primitive applied under a trace is a `func.call` of its traced `expand` whose payload
(`HiRule`) holds the primitive: jvp asks its `jvp`, reverse mode its `vjp_fwd`/`vjp_bwd_retval`
(custom_vjp's linear marker runs the backward rule), vmap its `batch`; compiled, the call is its
expansion. Eagerly, `expand` runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from stablax._src import core, dispatch, tree_util
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.interpreters import calls
from stablax._src.interpreters.ad import tangent_aval, zeros_like_aval
from stablax._src.interpreters.custom_calls import (
    SymbolicZero,
    check_no_closed_over_tangents,
    trace_callee,
)
from stablax._src.interpreters.custom_vjp import VjpLin
from stablax._src.primitive import Primitive
from stablax._src.transforms.vmap_api import vmap


def _is_aval(x: Any) -> bool:
    return isinstance(x, ShapedArray)


def _leaves_checked(tree: Any, value: Any, what: str) -> list[Any]:
    leaves, got = tree_util.tree_flatten(value)
    if got != tree:
        raise TypeError(f"{what}: expected a value of structure {tree}, got {got}")
    return leaves


def _overrides(prim: Any, name: str) -> bool:
    return getattr(type(prim), name) is not getattr(VJPHiPrimitive, name)


class VJPHiPrimitive:
    """Base class of a hi-primitive (JAX's `jax.experimental.hijax.VJPHiPrimitive`).

    A subclass's `__init__` sets `in_avals` (one aval, or pytree of avals, per argument),
    `out_aval` (an aval or pytree of avals) and `params` (static values, also set as
    attributes), then calls `super().__init__()`. It implements `expand` (the operation in
    ordinary stablax code) and the rules of the transformations it is used under: `jvp`,
    `vjp_fwd` with `vjp_bwd_retval` (or `vjp_bwd`), `batch` or `batch_dim_rule`.

    Example:
      >>> class Square(VJPHiPrimitive):
      ...     def __init__(self, aval):
      ...         self.in_avals, self.out_aval, self.params = (aval,), aval, {}
      ...         super().__init__()
      ...     def expand(self, x):
      ...         return x * x
      >>> Square(stablax.typeof(3.0))(3.0)
      Array(9., dtype=float32, weak_type=True)
    """

    in_avals: tuple[Any, ...]
    out_aval: Any
    params: dict[str, Any]
    effects: frozenset = frozenset()

    def __init__(self) -> None:
        for name in ("in_avals", "out_aval", "params"):
            if not hasattr(self, name):
                raise AttributeError(f"subclass __init__ should set `self.{name}`")
        if _overrides(self, "vjp_bwd") and _overrides(self, "vjp_bwd_retval"):
            raise AttributeError(
                f"subclass {type(self)} should not override both `vjp_bwd` and `vjp_bwd_retval`"
            )
        self.in_avals_flat, self.in_tree = tree_util.tree_flatten(self.in_avals, is_leaf=_is_aval)
        self.out_avals_flat, self.out_tree = tree_util.tree_flatten(self.out_aval, is_leaf=_is_aval)
        self.__dict__.update(self.params)
        self.check(*self.in_avals)

    # --- the rules a subclass gives -------------------------------------------------------

    def expand(self, *args: Any) -> Any:
        raise NotImplementedError(f"subclass {type(self)} must implement `expand`")

    def vjp_fwd(self, nzs_in: Any, /, *args: Any) -> Any:
        raise NotImplementedError(
            f"for grad support, subclass {type(self)} must implement `vjp_fwd`"
        )

    def vjp_bwd(self, res: Any, outgrad: Any, /, *arg_accums: Any) -> None:
        """Adds each argument's cotangent into its accumulator (`acc.accum(ct)`)."""
        cts = self.vjp_bwd_retval(res, outgrad)
        tree_util.tree_map(
            lambda acc, ct: isinstance(acc, GradAccum) and acc.accum(ct),
            arg_accums,
            tuple(cts),
            is_leaf=lambda x: isinstance(x, GradAccum),
        )

    def vjp_bwd_retval(self, res: Any, outgrad: Any, /) -> Any:
        raise NotImplementedError(
            f"for grad support, subclass {type(self)} must implement `vjp_bwd` or `vjp_bwd_retval`"
        )

    def jvp(self, primals: Any, tangents: Any) -> Any:
        raise NotImplementedError(f"for jvp support, subclass {type(self)} must implement `jvp`")

    def batch(self, axis_data: AxisData, args: Any, dims: Any) -> Any:
        out_dim = self.batch_dim_rule(axis_data, dims)
        return VmapOf(self, axis_data, dims, out_dim)(*args), out_dim

    def batch_dim_rule(self, axis_data: AxisData, dims: Any, /) -> Any:
        raise NotImplementedError(
            f"for vmap support, subclass {type(self)} must implement `batch` or `batch_dim_rule`"
        )

    def check(self, *arg_tys: Any) -> None:
        return None

    # --- applying it ----------------------------------------------------------------------

    def __call__(self, *args: Any) -> Any:
        leaves = _leaves_checked(self.in_tree, args, f"{type(self).__name__} arguments")
        leaves = [x if isinstance(x, core.Tracer) else dispatch.to_array(x) for x in leaves]
        got = [aval_of(x).strip_weak_type() for x in leaves]
        want = [a.strip_weak_type() for a in self.in_avals_flat]
        if got != want:
            raise TypeError(
                f"input type mismatch for {self!r}: got {[a.str_short() for a in got]}, its "
                f"in_avals are {[a.str_short() for a in want]}"
            )
        if core.current_trace() is None:
            # eagerly, the implementation runs
            return self.expand(*tree_util.tree_unflatten(self.in_tree, leaves))
        traced = trace_callee(self._expand_flat, leaves, concrete=True)
        outs = calls.call_traced_closed(traced, leaves, HiRule(self, len(leaves)))
        return tree_util.tree_unflatten(self.out_tree, outs)

    def _expand_flat(self, *leaves: Any) -> list[Any]:
        out = self.expand(*tree_util.tree_unflatten(self.in_tree, list(leaves)))
        return _leaves_checked(self.out_tree, out, f"{type(self).__name__}.expand's output")

    def __repr__(self) -> str:
        return f"{type(self).__name__}[{self.params}]"

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple(self.params.items()), self.effects))

    def __eq__(self, other: Any) -> bool:
        return type(self) is type(other) and self.params == other.params


# --- accumulators (vjp_bwd) ----------------------------------------------------------------------


class GradAccum:
    """Where `vjp_bwd` adds an argument's cotangent: `aval` is its type, `accum(ct)` adds."""

    def __init__(self, aval: ShapedArray) -> None:
        self.aval = aval
        self.value: Any = None

    def accum(self, ct: Any) -> None:
        if ct is None or type(ct) is SymbolicZero:
            return
        self.value = ct if self.value is None else self.value + ct


class _Bwd:
    """The backward rule of a hi-primitive in custom_vjp's terms (`bwd(residuals, ct)`)."""

    symbolic_zeros = False
    nondiff_argnums = ()

    def __init__(self, prim: VJPHiPrimitive) -> None:
        self.prim = prim

    def bwd(self, res: Any, ct: Any) -> tuple[Any, ...]:
        prim = self.prim
        if not _overrides(prim, "vjp_fwd"):  # linearized by its jvp rule, then transposed
            prim.vjp_fwd(None)  # JAX's NotImplementedError, naming the rule to write
        if not _overrides(prim, "vjp_bwd"):
            return tuple(prim.vjp_bwd_retval(res, ct))
        accums = [GradAccum(tangent_aval(a)) for a in prim.in_avals_flat]
        prim.vjp_bwd(res, ct, *tree_util.tree_unflatten(prim.in_tree, accums))
        return tuple(tree_util.tree_unflatten(prim.in_tree, [a.value for a in accums]))


def _call_hi_primitive(*leaves: Any, _prim: VJPHiPrimitive) -> list[Any]:
    out = _prim(*tree_util.tree_unflatten(_prim.in_tree, list(leaves)))
    return tree_util.tree_leaves(out)


# What a hi-primitive's call is in a jaxpr view (lax/_jaxpr_equations.py): JAX's primitive.
call_hi_primitive_p = Primitive("call_hi_primitive", _call_hi_primitive, multiple_results=True)


# --- the call's payload --------------------------------------------------------------------------


class HiRule:
    """The payload of a hi-primitive's call: its rules for autodiff and vmap."""

    kind = "hijax"

    def __init__(self, prim: VJPHiPrimitive, num_args: int) -> None:
        self.prim = prim
        self.num_args = num_args

    def jvp(self, callee: Any, primals: Sequence[Any], tangents: Sequence[Any]) -> Any:
        n, prim = self.num_args, self.prim
        check_no_closed_over_tangents(tangents[n:], "hijax primitive", "JVP or VJP")
        args, arg_tangents = list(primals[:n]), list(tangents[:n])
        full = [
            zeros_like_aval(tangent_aval(aval_of(p))) if t is None else t
            for p, t in zip(args, arg_tangents, strict=True)
        ]
        if not _linearizing(args, arg_tangents):  # forward mode: the jvp rule
            return self._jvp(args, full)
        # Linearized: the marker's transpose (reverse mode) runs vjp_bwd on vjp_fwd's
        # residuals; where it is not transposed (forward mode), it is the jvp rule's tangents.
        has_vjp, has_jvp = _overrides(prim, "vjp_fwd"), _overrides(prim, "jvp")
        if not (has_vjp or has_jvp):
            prim.vjp_fwd(None)  # JAX's NotImplementedError, naming the rule to write
        forward: list[Any] = []
        out_leaves, res_leaves, res_tree = [], [], tree_util.tree_structure(None)
        if has_jvp:
            out_leaves, forward = self._jvp(args, full)
        if has_vjp:
            nzs = tree_util.tree_unflatten(prim.in_tree, [t is not None for t in arg_tangents])
            out, res, *_ = prim.vjp_fwd(nzs, *tree_util.tree_unflatten(prim.in_tree, args))
            out_leaves = _leaves_checked(prim.out_tree, out, f"{type(prim).__name__}.vjp_fwd")
            res_leaves, res_tree = tree_util.tree_flatten(res)
            res_leaves = [
                r if isinstance(r, core.Tracer) else dispatch.to_array(r) for r in res_leaves
            ]
        info = VjpLin(_Bwd(prim), (), prim.in_tree, prim.out_tree, res_tree, callee, args)
        return out_leaves, info.linear(arg_tangents, res_leaves, forward)

    def _jvp(self, args: list[Any], tangents: list[Any]) -> tuple[list[Any], list[Any]]:
        prim = self.prim
        unflat = lambda xs: tree_util.tree_unflatten(prim.in_tree, xs)  # noqa: E731
        out, out_tangent = prim.jvp(unflat(args), unflat(tangents))
        out_leaves = _leaves_checked(prim.out_tree, out, f"{type(prim).__name__}.jvp")
        tangent_leaves = _leaves_checked(
            prim.out_tree,
            tree_util.tree_map(lambda t: None if type(t) is SymbolicZero else t, out_tangent),
            f"{type(prim).__name__}.jvp's tangent",
        )
        return out_leaves, tangent_leaves

    def batch(self, values: Sequence[Any], dims: Sequence[int | None], axis_size: int) -> Any:
        n, prim = self.num_args, self.prim
        if any(d is not None for d in dims[n:]):
            raise NotImplementedError(
                f"[vmap] {prim!r}: its expand closes over batched values; pass them as arguments"
            )
        args = tree_util.tree_unflatten(prim.in_tree, list(values[:n]))
        arg_dims = tree_util.tree_unflatten(prim.in_tree, list(dims[:n]))
        out, out_dims = prim.batch(AxisData(axis_size), args, arg_dims)
        out_leaves = _leaves_checked(prim.out_tree, out, f"{type(prim).__name__}.batch")
        return out_leaves, _broadcast_prefix(out_dims, prim.out_tree)


def _linearizing(primals: Sequence[Any], tangents: Sequence[Any]) -> bool:
    """Whether this jvp is linearize's (reverse mode): its tangents go to a linear function
    traced apart from the primals, where forward mode computes both in one trace."""
    traces = {id(x._trace) for x in primals if isinstance(x, core.Tracer)}
    if not traces:
        target = core.trace_state.target or core.current_trace()
        traces = {id(target)}
    return any(isinstance(t, core.Tracer) and id(t._trace) not in traces for t in tangents)


def _broadcast_prefix(prefix: Any, tree: Any) -> list[Any]:
    if prefix is None or isinstance(prefix, int):
        return [prefix] * tree.num_leaves
    leaves = tree_util.tree_leaves(prefix, is_leaf=lambda x: x is None)
    if len(leaves) != tree.num_leaves:
        raise TypeError(f"batch: output dims {prefix!r} do not match the outputs' structure {tree}")
    return leaves


# --- vmap of a hi-primitive ------------------------------------------------------------------


class AxisData:
    """The batch axis a `batch` rule is given: its size (stablax binds no name or mesh here)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.name = None
        self.spmd_name = None
        self.explicit_mesh_axis = None

    def __repr__(self) -> str:
        return f"AxisData(size={self.size})"


def _unmapped(aval: ShapedArray, dim: int | None, size: int) -> ShapedArray:
    if dim is None:
        return aval
    shape = list(aval.shape)
    shape.insert(dim, size)
    return ShapedArray(tuple(shape), aval.dtype, aval.weak_type)


def _map_dims(f: Any, avals: Any, dims: Any) -> Any:
    leaves, tree = tree_util.tree_flatten(avals, is_leaf=_is_aval)
    return tree_util.tree_unflatten(tree, list(map(f, leaves, _broadcast_prefix(dims, tree))))


class VmapOf(VJPHiPrimitive):
    """A hi-primitive batched by its `batch_dim_rule`: its rules are the primitive's under vmap
    (residuals batched at axis 0; an unbatched argument's cotangent summed over the batch)."""

    def __init__(self, prim: VJPHiPrimitive, axis_data: AxisData, in_dims: Any, out_dim: Any):
        size = axis_data.size
        self.in_avals = tuple(
            _map_dims(lambda a, d: _unmapped(a, d, size), a, d)
            for a, d in zip(prim.in_avals, in_dims, strict=True)
        )
        self.out_aval = _map_dims(lambda a, d: _unmapped(a, d, size), prim.out_aval, out_dim)
        self.params = {"prim": prim, "axis_data": axis_data, "in_dims": in_dims, "out_dim": out_dim}
        super().__init__()

    def _vmap(self, f: Any, in_axes: Any, out_axes: Any) -> Any:
        return vmap(f, in_axes=in_axes, out_axes=out_axes, axis_size=self.axis_data.size)

    def expand(self, *args: Any) -> Any:
        return self._vmap(self.prim.expand, tuple(self.in_dims), self.out_dim)(*args)

    def jvp(self, primals: Any, tangents: Any) -> Any:
        dims = tuple(self.in_dims)
        return self._vmap(self.prim.jvp, (dims, dims), (self.out_dim, self.out_dim))(
            primals, tangents
        )

    def vjp_fwd(self, nzs_in: Any, *args: Any) -> Any:
        def fwd(*xs):
            out, res, *_ = self.prim.vjp_fwd(nzs_in, *xs)
            return out, res

        return self._vmap(fwd, tuple(self.in_dims), (self.out_dim, 0))(*args)

    def vjp_bwd_retval(self, res: Any, g: Any) -> Any:
        cts = self._vmap(self.prim.vjp_bwd_retval, (0, self.out_dim), 0)(res, g)
        size = self.axis_data.size
        out = []
        for ct, aval, dim in zip(cts, self.prim.in_avals, self.in_dims, strict=True):
            leaves, tree = tree_util.tree_flatten(aval, is_leaf=_is_aval)
            ct_leaves = (
                [None] * tree.num_leaves
                if ct is None
                else tree_util.tree_leaves(ct, is_leaf=lambda x: x is None)
            )
            moved = [
                None if c is None else _from_front(c, d, size)
                for c, d in zip(ct_leaves, _broadcast_prefix(dim, tree), strict=True)
            ]
            out.append(tree_util.tree_unflatten(tree, moved))
        return tuple(out)

    def batch_dim_rule(self, axis_data: AxisData, in_dims: Any) -> Any:
        # The inner primitive's dims, once this batch axis (inserted at our dims) is removed.
        inner = tree_util.tree_map(
            lambda d, d0: d if d is None or d0 is None else d - (d0 < d),
            in_dims,
            self.in_dims,
            is_leaf=lambda x: x is None,
        )
        out = self.prim.batch_dim_rule(axis_data, inner)
        return tree_util.tree_map(lambda d, d0: d + (d0 < d), out, self.out_dim)


def _from_front(ct: Any, dim: int | None, size: int) -> Any:
    """A cotangent batched at axis 0 for an argument batched at `dim` (None: summed)."""
    if dim is None:
        zero = dispatch.weak_scalar(0, aval_of(ct).dtype, weak_type=False)
        return dispatch.bind("stablehlo.reduce", ct, zero, computation="add", axes=(0,))
    if dim == 0:
        return ct
    perm = list(range(1, len(aval_of(ct).shape)))
    perm.insert(dim, 0)
    return dispatch.bind("stablehlo.transpose", ct, permutation=tuple(perm))


__all__ = [
    "AxisData",
    "GradAccum",
    "HiRule",
    "VJPHiPrimitive",
    "VmapOf",
]
