"""What a `jit` compile gives: a compiled signature (`Entry`) and running it, and the `Lowered`
and `Compiled` stages of `jit(f).trace(*args).lower().compile()` (`Traced` is in traced.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from stablax._src import core, runtime, tree_util
from stablax._src.array import Array, raise_if_deleted
from stablax._src.avals import ShapedArray
from stablax._src.dispatch import hlo_of_traced
from stablax._src.jit_arguments import leaf_aval, leaf_buffer
from stablax._src.nan_checks import checked_kinds
from stablax._src.nan_locator import CheckedProgram
from stablax._src.traced import args_info, out_info


class Entry:
    """One compiled signature of a jitted function."""

    __slots__ = (
        "executable",
        "out_tree",
        "out_avals",
        "single",
        "gather",
        "donated",
        "in_avals",
        "execute_sharded",
        "handlers",
        "single_plain",
        "checking",
        "name",
        "out_fast",
        "tree_plain",
    )

    def __init__(
        self, executable, out_tree, out_avals, single, captured_bufs, donated, in_avals, kept=None
    ):
        if kept is not None:  # compiled without the inputs it never reads, as JAX's keep_unused
            n = len(in_avals)
            donated = tuple(i for i in donated if i in kept)  # an unused input is not consumed
            captured_bufs = [b for j, b in enumerate(captured_bufs) if n + j in kept]
            kept = [i for i in kept if i < n]
        # The executable's inputs from a call's leaf buffers: None where they are the same.
        self.gather = _gather(kept, captured_bufs)
        self.executable = executable
        self.execute_sharded = executable.loaded.execute_sharded
        self.handlers = executable.handlers
        # Entries compiled while jax_debug_nans or jax_debug_infs is on check their outputs (the
        # flags are part of the cache key through config.epoch); `jit` sets `checking` to the
        # traced function (to find the op) with the name errors give it, and files such entries
        # in no hit table, so the fast path stays check-free.
        self.checking: CheckedProgram | None = None
        self.single_plain = single and not donated and not checked_kinds()
        self.name = "jit"
        self.out_fast = None  # the C++ output treedef, once a call is filed in a tree table
        self.tree_plain = False  # out_fast rebuilds the outputs, nothing donated or checked
        self.out_tree = out_tree
        self.out_avals = out_avals
        self.single = single
        self.donated = donated
        self.in_avals = in_avals


def _gather(kept: list[int] | None, captured: list) -> Callable[[list], list] | None:
    """The function from a call's leaf buffers to the executable's inputs: the `kept` leaves'
    (None: all) followed by the `captured` buffers; None when that is the leaves' buffers."""
    if kept is None:
        return (lambda buffers: buffers + captured) if captured else None
    return lambda buffers: [*map(buffers.__getitem__, kept), *captured]


def run(entry: Entry, buffers: list, dynamic_leaves: Sequence[Any]) -> Any:
    """Executes `entry` on the buffers of a call's leaves (`dynamic_leaves`); its outputs."""
    if entry.gather is not None:
        buffers = entry.gather(buffers)
    try:
        outs = entry.executable.execute(buffers)
    except runtime.XlaRuntimeError:
        raise_if_deleted(dynamic_leaves)
        raise
    if entry.checking is not None:
        entry.checking.check(buffers, outs, entry.executable.device, not entry.donated)
    return wrap_outputs(entry, outs, dynamic_leaves)


def wrap_outputs(entry: Entry, outs: list, dynamic_leaves: Sequence[Any]) -> Any:
    """The call's result from the executable's output buffers: donated arguments deleted,
    outputs as Arrays in the output pytree."""
    if entry.donated:
        for i in entry.donated:
            leaf = dynamic_leaves[i]
            if type(leaf) is Array:
                leaf.delete()  # a later use fails as a deleted array's, with no XLA error line
    if entry.single:
        return Array(outs[0], entry.out_avals[0])
    arrays = map(Array, outs, entry.out_avals)  # one per output: the executable's arity
    if entry.out_fast is not None:
        return entry.out_fast.unflatten(arrays)
    return tree_util.tree_unflatten(entry.out_tree, list(arrays))


class Lowered:
    """`jit(f).lower(*args)`: the StableHLO module, ready to compile."""

    def __init__(
        self, jitted: Any, traced: core.TracedFunction, out_tree, donated, in_tree=None
    ) -> None:
        self._jitted = jitted  # the `jit.Jitted` that compiles it into an Entry
        self._traced = traced
        self.out_tree = out_tree
        self._donated = donated
        self.in_tree = in_tree

    @property
    def args_info(self) -> Any:
        """The pytree `(args, kwargs)` of `ArgInfo` for the (non-static) arguments."""
        return args_info(self.in_tree, self._traced.in_avals, self._donated)

    @property
    def out_info(self) -> Any:
        """The outputs' pytree of `ShapeDtypeStruct`s."""
        return out_info(self.out_tree, self._traced.out_avals)

    def as_text(self, dialect: str | None = None, *, debug_info: bool = False) -> str:
        """The module as text: StableHLO (the default), or XLA's HLO for `dialect='hlo'`."""
        if dialect == "hlo":
            return self.compiler_ir("hlo").as_hlo_text()
        _check_dialect(dialect)
        return self._traced.text(debug_info=debug_info)

    def compiler_ir(self, dialect: str | None = None) -> Any:
        """The StableHLO module (`ir.Module`, the default dialect), or for `dialect='hlo'` XLA's
        `XlaComputation` of it, whose `as_hlo_text()` is the HLO XLA compiles."""
        if dialect == "hlo":
            return hlo_of_traced(self._traced, getattr(self._jitted.fun, "__name__", "fun"))
        _check_dialect(dialect)
        return self._traced.module

    def compile(self) -> Compiled:
        return Compiled(self._jitted._make_entry(self._traced, self.out_tree, self._donated))

    @property
    def in_avals(self) -> list[ShapedArray]:
        return self._traced.in_avals

    @property
    def out_avals(self) -> list[ShapedArray]:
        return self._traced.out_avals


def _check_dialect(dialect: str | None) -> None:
    if dialect not in (None, "stablehlo"):
        raise ValueError(f"unknown dialect: {dialect}")


class Compiled:
    """A compiled executable for one signature; callable with arguments of that signature."""

    def __init__(self, entry: Entry) -> None:
        self._entry = entry

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        leaves, _ = tree_util.tree_flatten((args, kwargs))
        avals = [leaf_aval(x) for x in leaves]
        expected = self._entry.in_avals
        if [a.strip_weak_type() for a in avals] != [a.strip_weak_type() for a in expected]:
            raise TypeError(
                "Compiled function called with arguments of a different signature: expected "
                f"{[a.str_short() for a in expected]}, got {[a.str_short() for a in avals]}"
            )
        buffers = [leaf_buffer(x, a) for x, a in zip(leaves, avals, strict=True)]
        return run(self._entry, buffers, leaves)

    def as_text(self) -> str:
        return self._entry.executable.hlo_text()

    def cost_analysis(self) -> Any:
        return self._entry.executable.cost_analysis()
