"""Ops that constrain the compiler rather than compute: `optimization_barrier`, and the
side-effect ordering tokens (`create_token`, `after_all`) and `dce_sink`."""

from __future__ import annotations

from typing import Any

from stablax._src import tree_util
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.dispatch import bind
from stablax._src.lax._shapes import zeros
from stablax._src.op_rules import def_op

BARRIER = "stablehlo.optimization_barrier"


def _barrier_rule(*avals: ShapedArray) -> tuple[ShapedArray, ...]:
    return tuple(avals)


def _barrier_jvp(primals, tangents):
    # Primals and tangents each pass their own barrier, as in JAX.
    tangents = [
        zeros(aval_of(p)) if t is None else t for p, t in zip(primals, tangents, strict=True)
    ]
    return list(bind(BARRIER, *primals)), list(bind(BARRIER, *tangents))


def _barrier_transpose(cts, *operands):
    cts = cts if isinstance(cts, (list, tuple)) else [cts]
    cts = [zeros(o.aval) if ct is None else ct for o, ct in zip(operands, cts, strict=True)]
    return list(bind(BARRIER, *cts))


def _barrier_batch(values, dims, *, axis_size):
    return list(bind(BARRIER, *values)), list(dims)


def_op(BARRIER, _barrier_rule, jvp=_barrier_jvp, transpose=_barrier_transpose, batch=_barrier_batch)


def optimization_barrier(operand: Any, /) -> Any:
    """The identity on a pytree of arrays that XLA may not optimize across.

    Values computed before the barrier are not moved after it, nor merged with values after it:
    use it to stop common-subexpression elimination or to schedule rematerialization. Lowers to
    one `stablehlo.optimization_barrier` over all the leaves.
    """
    leaves, treedef = tree_util.tree_flatten(operand)
    if not leaves:
        return operand
    return tree_util.tree_unflatten(treedef, list(bind(BARRIER, *leaves)))


# --- tokens ------------------------------------------------------------------------------------


class Token:
    """A value that orders side effects (JAX's `Token`). No stablax op consumes tokens yet, so a
    token carries no data: it is a pytree without leaves and passes through `jit` unchanged."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "Token()"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Token)

    def __hash__(self) -> int:
        return hash(Token)


tree_util.register_pytree_node(Token, lambda t: ((), None), lambda _, __: Token())


def create_token(_: Any = None) -> Token:
    """A new token (its argument is ignored, as in JAX)."""
    return Token()


def after_all(*operands: Token) -> Token:
    """A token that comes after all `operands` (tokens)."""
    for t in operands:
        if not isinstance(t, Token):
            raise TypeError(f"lax.after_all: expected tokens, got {type(t).__name__}")
    return Token()


def dce_sink(val: Any, *, prevent_mlir_dce: bool = False) -> None:
    """Marks the arrays of `val` as used by the program (for JAX's own dead-code elimination of
    staged programs, which stablax does not have: results never depend on it). Returns None.

    `prevent_mlir_dce=True`, which in JAX keeps the computation in the compiled program through
    a side-effecting FFI call, is not supported.
    """
    tree_util.tree_map(aval_of, val)  # the operands first, as JAX: bytes are no JAX value
    if prevent_mlir_dce:
        raise NotImplementedError("lax.dce_sink: prevent_mlir_dce=True is not supported")
