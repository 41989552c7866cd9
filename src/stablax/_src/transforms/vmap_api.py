"""`vmap`: trace a function on one example, rewrite it into its batched form, run it once.

in_axes/out_axes follow JAX: an int (negative allowed), None, or a pytree prefix of the
arguments/outputs; keyword arguments are batched along axis 0. `axis_name` binds the axis for the
collectives of lax/_parallel.py, which the batching rules compute over the batch dimension.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from stablax._src import core, dtypes, lax, pytree_treedef, tree_util
from stablax._src import ir as mlir
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.concrete import evaluate_prefix
from stablax._src.core import Tracer
from stablax._src.interpreters.batching import axis_frame, batch_traced, moveaxis, rewriting_axis
from stablax._src.ir import ir
from stablax._src.staging import run_staged
from stablax._src.transforms.ad_trace import restore_weak_types

# --- axis specifications -----------------------------------------------------------------------


class PytreeLeaf:
    """Stands for a leaf of the value when an axis specification is not a prefix of it."""

    def __repr__(self) -> str:
        return "*"


def _is_none(x: Any) -> bool:
    return x is None


def _check_spec(name: str, spec: Any) -> None:
    for axis in tree_util.tree_leaves(spec, is_leaf=_is_none):
        if axis is not None and not isinstance(axis, int):
            raise TypeError(
                f"vmap {name} must be an int, None, or (nested) container with those types as "
                f"leaves, but got {spec}."
            )


def flatten_axes(name: str, tree: Any, spec: Any) -> list[int | None]:
    """Broadcasts a prefix tree of axes (ints/None) to one entry per leaf of `tree`."""
    proxy = tree_util.tree_map(lambda _: PytreeLeaf(), tree)
    spec_leaves, spec_def = tree_util.tree_flatten(spec, is_leaf=_is_none)
    try:
        subtrees = spec_def.flatten_up_to(proxy)
    except ValueError:
        error = pytree_treedef._prefix_error(spec, proxy, lambda path, x: x is None)
        details = f"\n  Mismatch details:\n  {error(name)}" if error is not None else ""
        raise ValueError(
            f"{name} specification must be a tree prefix of the corresponding value; {details}"
        ) from None
    axes: list[int | None] = []
    for axis, subtree in zip(spec_leaves, subtrees, strict=True):
        axes.extend([axis] * len(tree_util.tree_leaves(subtree)))
    return axes


# --- naming arguments in errors ----------------------------------------------------------------


def _leaf_names(fun: Callable, args: tuple, kwargs: dict) -> list[str]:
    """Each leaf of (args, kwargs) as JAX names it: `argument x['a']`, `args[2]`, `kwargs['k']`."""
    try:
        params = list(inspect.signature(fun).parameters)
    except (TypeError, ValueError):
        params = []
    names = []
    for i, arg in enumerate(args):
        base = f"argument {params[i]}" if i < len(params) else f"args[{i}]"
        for path, _ in tree_util.tree_flatten_with_path(arg)[0]:
            names.append(base + tree_util.keystr(path))
    for path, _ in tree_util.tree_flatten_with_path(kwargs)[0]:
        names.append("kwargs" + tree_util.keystr(path))
    return names


def _axis_size_error(fun, args, kwargs, leaves, dims, axis_size) -> ValueError:
    names = _leaf_names(fun, args, kwargs)
    groups: dict[int, list[str]] = {}
    for name, leaf, (axis, d) in zip(names, leaves, dims, strict=True):
        if d is not None:
            aval = aval_of(leaf)
            described = f"axis {axis} of {name} of type {aval.str_short()}"
            groups.setdefault(aval.shape[d], []).append(described)
    lines = [] if axis_size is None else [f"the `axis_size` argument was {axis_size}"]
    for rank, size in enumerate(sorted(groups, key=lambda s: -len(groups[s]))):
        count, example = len(groups[size]), groups[size][0]
        if count == 1:
            lines.append(f"one axis had size {size}: {example}")
        else:
            amount = "most" if rank == 0 else "some"
            lines.append(f"{amount} axes ({count} of them) had size {size}, e.g. {example}")
    return ValueError(
        "vmap got inconsistent sizes for array axes to be mapped:\n"
        + ";\n".join(f"  * {line}" for line in lines)
    )


# --- the trace of one example ------------------------------------------------------------------


class _ExampleTrace(core.FuncTrace):
    """vmap's trace of `fun` on one example. Values that do not depend on the batched inputs (the
    unbatched arguments reach `fun` as they are) can still be concretized: `if n > 0:` works."""

    def __init__(self, in_avals: list[ShapedArray]) -> None:
        # The batched inputs have no single value; zeros fill their places in concrete prefixes,
        # which only ever compute values that do not depend on them.
        zeros = [np.broadcast_to(np.zeros((), a.dtype), a.shape) for a in in_avals]
        super().__init__(in_avals, sources=zeros, evaluate=evaluate_prefix)

    def concrete_array(self, tracer: Tracer) -> Any:
        if _depends_on_arguments(self, tracer.value):
            raise core.ConcretizationTypeError(
                f"[vmap] Python control flow or a conversion to a Python value needs a concrete "
                f"value, but this {tracer.aval.str_short()} differs between the examples of the "
                f"batch{mlir.where_suffix()}. Use jnp.where or lax.cond/select instead, or pass "
                "the value unbatched (in_axes=None)."
            )
        return super().concrete_array(tracer)


def _depends_on_arguments(trace: core.FuncTrace, value: Any) -> bool:
    arguments = set(list(trace.block.arguments)[: len(trace.in_avals)])
    pending, seen = [value], set()
    while pending:
        v = pending.pop()
        if v in seen:
            continue
        seen.add(v)
        if v in arguments:
            return True
        if isinstance(v.maybe_downcast(), ir.BlockArgument):
            continue
        pending.extend(_operands_with_regions(v.owner))
    return False


def _operands_with_regions(op: Any) -> list[Any]:
    # Values used by the op, including those its regions capture from above.
    op = op.operation
    used = list(op.operands)
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                used.extend(_operands_with_regions(inner))
    return used


def _trace_example(fun: Callable, in_avals: list[ShapedArray]) -> core.TracedFunction:
    trace = _ExampleTrace(in_avals)
    with trace:
        traced = trace.finish(fun(*trace.args))
    with trace.context:
        if not traced.module.operation.verify():
            raise RuntimeError(
                f"[vmap] internal error, traced module does not verify:\n{traced.module}"
            )
    return traced


# --- vmap --------------------------------------------------------------------------------------


def _is_array(x: Any) -> bool:
    return isinstance(x, (Tracer, np.ndarray, np.generic)) or hasattr(x, "aval")


def _check_output(leaf: Any) -> None:
    if not (_is_array(leaf) or dtypes.is_python_scalar(leaf)):
        raise TypeError(
            f"Output from batched function {leaf!r} with type {type(leaf)} is not a valid JAX type"
        )


def vmap(
    fun: Callable,
    in_axes: Any = 0,
    out_axes: Any = 0,
    axis_name: Any = None,
    axis_size: int | None = None,
    spmd_axis_name: Any = None,
    sum_match: bool = False,
) -> Callable:
    """Vectorizes `fun` over a batch axis of its arguments.

    Args:
      fun: a function of arrays (pytrees allowed).
      in_axes: the batch axis of each positional argument: an int (negative counts from the
        end), None for unbatched, or a tuple with one entry (a pytree prefix) per argument.
        Keyword arguments are batched along axis 0.
      out_axes: where the batch axis goes in each output (int, None, or a pytree prefix); None
        only for outputs that do not depend on the batch.
      axis_name: a name for the batch axis, for the collectives (`lax.psum`, `lax.axis_index`,
        ...) called inside `fun`.
      axis_size: the batch size, needed only when no argument is batched.
      spmd_axis_name: accepted for compatibility; no effect on one device.
      sum_match: a batched output whose out_axes entry is None is summed over the batch axis
        (JAX's `sum_match`) instead of raising.

    Returns:
      The batched function. `fun` is traced once on one example and each op is rewritten by its
      batching rule (no loop is emitted); unbatched arguments reach `fun` as they are.

    Example:
      >>> vmap(jnp.dot, in_axes=(None, 0))(matrix, vectors)  # matrix-vector products
    """
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)
    if in_axes is not None and not isinstance(in_axes, (int, tuple)):
        raise TypeError(
            "vmap in_axes must be an int, None, or a tuple of entries corresponding to the "
            f"positional arguments passed to the function, but got {in_axes}."
        )
    _check_spec("in_axes", in_axes)
    _check_spec("out_axes", out_axes)
    if axis_size is not None:
        axis_size = int(axis_size)

    @functools.wraps(fun, updated=())
    def vmapped(*args: Any, **kwargs: Any) -> Any:
        leaves, in_tree, dims, size = _mapped_leaves(fun, in_axes, axis_size, args, kwargs)
        # Batched leaves and unbatched arrays run through the staged program; other unbatched
        # leaves (Python scalars, NumPy arrays, strings, ...) reach `fun` as they are.
        staged = [d is not None or hasattr(x, "aval") for x, d in zip(leaves, dims, strict=True)]
        outputs = _Outputs()

        def batched_program(*values):
            values = iter(values)
            inputs = [next(values) if s else x for x, s in zip(leaves, staged, strict=True)]
            with axis_frame(axis_name, size):
                outs = _trace_and_batch(fun, in_tree, inputs, dims, size, axis_name, outputs)
            return outputs.place(outs, out_axes, size, axis_name, sum_match)

        results = run_staged(batched_program, [x for x, s in zip(leaves, staged, strict=True) if s])
        return outputs.unflatten(results)

    return vmapped


def _mapped_leaves(fun, in_axes, axis_size, args, kwargs):
    """The leaves of (args, kwargs), their batch dimensions (None: unbatched) and the batch size."""
    if isinstance(in_axes, tuple):
        if len(in_axes) != len(args):
            raise ValueError(
                "vmap in_axes must be an int, None, or a tuple of entries corresponding to "
                "the positional arguments passed to the function, but got len(in_axes)="
                f"{len(in_axes)}, len(args)={len(args)}"
            )
        spec = in_axes
    else:
        spec = (in_axes,) * len(args)
    leaves, in_tree = tree_util.tree_flatten((args, kwargs))
    if not leaves and axis_size is None:
        raise ValueError(
            "vmap wrapped function must be passed at least one argument containing an array "
            f"or axis_size must be specified, got empty *args={args} and **kwargs={kwargs}"
        )
    axes = flatten_axes("vmap in_axes", args, spec)
    axes += [0] * (len(leaves) - len(axes))  # keyword arguments
    dims = [_batch_dim(leaf, axis) for leaf, axis in zip(leaves, axes, strict=True)]
    size = _batch_size(leaves, dims, axis_size)
    if size is None:
        raise _axis_size_error(fun, args, kwargs, leaves, list(zip(axes, dims)), axis_size)
    return leaves, in_tree, dims, size


def _trace_and_batch(fun, in_tree, inputs, dims, size, axis_name, outputs: _Outputs):
    """Traces `fun` on one example of the batched inputs and emits its batched version.

    Returns (value, batch dim) for each output leaf that the trace computes.
    """
    mapped = [i for i, d in enumerate(dims) if d is not None]
    slice_avals = [_unbatched_aval(aval_of(inputs[i]), dims[i]) for i in mapped]

    def flat_fun(*tracers):
        full = list(inputs)
        for i, tracer in zip(mapped, tracers, strict=True):
            full[i] = tracer
        args, kwargs = tree_util.tree_unflatten(in_tree, full)
        return outputs.record(fun(*args, **kwargs), core.current_trace())

    traced = _trace_example(flat_fun, slice_avals)
    with rewriting_axis(axis_name):
        outs, out_dims = batch_traced(
            traced, [inputs[i] for i in mapped], [dims[i] for i in mapped], size
        )
    outs = restore_weak_types(outs, traced.out_avals)
    return list(zip(outs, out_dims, strict=True))


class _Outputs:
    """The outputs of `fun`: which the trace computes, and how each reaches the caller."""

    def record(self, out: Any, trace: core.FuncTrace) -> list[Any]:
        pairs, self.tree = tree_util.tree_flatten_with_path(out)
        self.paths = [path for path, _ in pairs]
        self.leaves = [leaf for _, leaf in pairs]
        for leaf in self.leaves:
            _check_output(leaf)
        # Values the trace did not compute (unbatched arguments, Python scalars, outer values)
        # are unbatched whatever happens to the trace.
        self.traced = [isinstance(x, Tracer) and x._trace is trace for x in self.leaves]
        return [x for x, t in zip(self.leaves, self.traced, strict=True) if t]

    def place(
        self, batched: list[tuple[Any, Any]], out_axes, size, axis_name, sum_match=False
    ) -> list[Any]:
        targets = flatten_axes("vmap out_axes", self.tree.unflatten(self.leaves), out_axes)
        batched_iter = iter(batched)
        results, self.assembly = [], []
        for leaf, traced, target, path in zip(
            self.leaves, self.traced, targets, self.paths, strict=True
        ):
            value, bdim = next(batched_iter) if traced else (leaf, None)
            if target is None and bdim is None and not hasattr(value, "aval"):
                self.assembly.append((False, value))  # a Python scalar or NumPy value, as is
                continue
            self.assembly.append((True, len(results)))
            results.append(_place(value, bdim, target, size, path, axis_name, sum_match))
        return results

    def unflatten(self, results: list[Any]) -> Any:
        flat = [results[v] if from_program else v for from_program, v in self.assembly]
        return self.tree.unflatten(flat)


def _batch_dim(leaf: Any, axis: int | None) -> int | None:
    if axis is None:
        return None
    if not (_is_array(leaf) or dtypes.is_python_scalar(leaf)):
        raise TypeError(f"Argument {leaf!r} of type {type(leaf)} is not a valid JAX type")
    shape = aval_of(leaf).shape
    if not -len(shape) <= axis < len(shape):
        raise ValueError(
            f"vmap was requested to map its argument along axis {axis}, which implies that its "
            f"rank should be at least {axis + 1 if axis >= 0 else -axis}, but is only "
            f"{len(shape)} (its shape is {shape})"
        )
    return axis % len(shape)


def _batch_size(leaves: list, dims: list, axis_size: int | None) -> int | None:
    """The common size of the mapped axes (and axis_size), or None when they disagree."""
    sizes = {aval_of(x).shape[d] for x, d in zip(leaves, dims, strict=True) if d is not None}
    if axis_size is not None:
        sizes.add(axis_size)
    if not sizes:
        raise ValueError(
            "vmap must have at least one non-None value in in_axes or axis_size must be specified"
        )
    return sizes.pop() if len(sizes) == 1 else None


def _unbatched_aval(aval: ShapedArray, axis: int) -> ShapedArray:
    shape = list(aval.shape)
    shape.pop(axis)
    return ShapedArray(shape, aval.dtype, aval.weak_type)


def _place(
    x: Any, bdim: int | None, target: int | None, size: int, path, axis_name, sum_match=False
) -> Any:
    """The output with its batch axis at `target` (an unbatched output is broadcast; with
    `sum_match`, a batched one whose target is None is summed over its batch axis)."""
    if target is None:
        if bdim is None:
            return x
        if sum_match:
            return lax.reduce_sum(x, (bdim,))
        if axis_name is not None:
            raise ValueError(f"vmap has mapped output (axis_name={axis_name}) but out_axes is None")
        raise ValueError(
            f"at vmap out_axes{tree_util.keystr(path)}, got axis spec None but output was "
            f"batched on axis {bdim}"
        )
    if not hasattr(x, "aval"):  # a Python scalar or NumPy value returned by fun
        x = core.to_tracer(core.current_trace(), x)
    aval = aval_of(x)
    ndim = aval.ndim + (bdim is None)
    if not -ndim <= target < ndim:
        raise ValueError(f"axis {target} is out of bounds for array of dimension {ndim}")
    target %= ndim
    if bdim is None:
        shape = list(aval.shape)
        shape.insert(target, size)
        kept = tuple(i for i in range(ndim) if i != target)
        return lax.broadcast_in_dim(x, tuple(shape), kept)
    return moveaxis(x, bdim, target)
