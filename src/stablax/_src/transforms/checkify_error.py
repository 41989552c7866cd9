"""checkify's error value `Error`: per slot (an `ErrorEffect`) a flag, a code and a payload, with
the templates of the codes; reading it back (`get`, `get_exception`, `throw`), updating it with
lax ops inside a program, and the `stablax.check` op that raises it where a program is staged.

An error value is a pytree: its leaves are the flags, the codes and the payloads (slots sorted),
its treedef holds the slots and the templates, so it passes through `jit` and `vmap` like any
output. Codes are unique in the process; where several slots failed, the smallest code wins.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from stablax._src import core, dispatch, lax, op_rules, staging, tree_util
from stablax._src.bodies import PAYLOAD_ATTRIBUTE
from stablax._src.core import Tracer
from stablax._src.errors import ConcretizationTypeError
from stablax._src.interpreters.batching import bdim_at_front
from stablax._src.ir import ir
from stablax._src.ir_passes import emit_marker
from stablax._src.transforms.checkify_kinds import (
    BatchedError,
    ErrorEffect,
    JaxException,
    JaxRuntimeError,
    Template,
    effect_of,
)

next_code = itertools.count(1).__next__


@dataclasses.dataclass(frozen=True)
class Error:
    """What a checkified function returns besides its output: the first failure, if any.

    `get()` gives the failure's message (None if nothing failed), `get_exception()` the
    exception, and `throw()` raises it as JaxRuntimeError. A value returned by a `vmap`ped
    checkified function holds one error per index of the batch.
    """

    _pred: dict[ErrorEffect, Any]
    _code: dict[ErrorEffect, Any]
    _metadata: dict[int, Template]
    _payload: dict[ErrorEffect, list[Any]]

    def get(self) -> str | None:
        """The message of the failure, or None if no check failed."""
        exception = self.get_exception()
        return None if exception is None else str(exception)

    def get_exception(self) -> JaxException | None:
        """The failure as an exception (a `BatchedError` for a batched error), or None."""
        if any(np.shape(p) for p in self._pred.values()):
            return self._batched_exception()
        return self._exception_at(())

    def throw(self) -> None:
        """Raises JaxRuntimeError if a check failed (inside `checkify`, records it instead)."""
        raise_or_stage(self)

    def __str__(self) -> str:
        return f"Error({self.get()})"

    def _exception_at(self, index: tuple[int, ...]) -> JaxException | None:
        chosen = None
        for effect, pred in self._pred.items():
            if bool(np.asarray(pred)[index]):
                code = int(np.asarray(self._code[effect])[index])
                if chosen is None or code < chosen[0]:
                    chosen = (code, effect)
        if chosen is None:
            return None
        code, effect = chosen
        payload = [x[index] if index else x for x in self._payload[effect]]
        return self._metadata[code].build(payload)

    def _batched_exception(self) -> BatchedError | None:
        shape = np.shape(next(iter(self._pred.values())))
        mapping = {}
        for index in np.ndindex(*shape):
            exception = self._exception_at(index)
            if exception is not None:
                mapping[index] = exception
        return BatchedError(mapping) if mapping else None


def _flatten(error: Error) -> tuple[list[Any], Any]:
    effects = sorted(error._pred)
    leaves = [error._pred[e] for e in effects] + [error._code[e] for e in effects]
    for e in effects:
        leaves.extend(error._payload[e])
    return leaves, (tuple(effects), tuple(sorted(error._metadata.items())))


def _unflatten(aux: Any, leaves: Iterable[Any]) -> Error:
    effects, metadata = aux
    leaves = list(leaves)
    n = len(effects)
    preds = dict(zip(effects, leaves[:n], strict=True))
    codes = dict(zip(effects, leaves[n : 2 * n], strict=True))
    payloads, start = {}, 2 * n
    for e in effects:
        payloads[e] = leaves[start : start + len(e.payload_avals)]
        start += len(e.payload_avals)
    return Error(preds, codes, dict(metadata), payloads)


tree_util.register_pytree_node(Error, _flatten, _unflatten)

init_error = Error({}, {}, {}, {})


# --- updating an error value (lax ops: eagerly, or emitted into the program) --------------------


def update(
    error: Error, effect: ErrorEffect, pred: Any, code: Any, payload: Sequence[Any], metadata
) -> Error:
    """`error` with a failure (flag `pred`, `code`, `payload`) added to `effect`'s slot: the slot
    keeps its own failure if it already holds one."""
    old = error._pred.get(effect)
    if old is None:
        new_pred, new_code, new_payload = pred, code, list(payload)
    else:
        new_pred = lax.bitwise_or(old, pred)
        new_code = lax.select(old, error._code[effect], code)
        new_payload = [
            lax.select(old, a, b) for a, b in zip(error._payload[effect], payload, strict=True)
        ]
    return Error(
        {**error._pred, effect: new_pred},
        {**error._code, effect: new_code},
        {**error._metadata, **metadata},
        {**error._payload, effect: new_payload},
    )


def assert_failure(error: Error, pred: Any, template: Template, payload: Sequence[Any]) -> Error:
    """`error` with the failure `template` (its arrays `payload`) recorded where `pred` holds."""
    code = next_code()
    effect = effect_of(template.kind, payload)
    return update(error, effect, pred, np.int32(code), payload, {code: template})


def with_effects(error: Error, effects: Iterable[ErrorEffect]) -> Error:
    """`error` with a slot for each of `effects`, the new ones empty (a loop's carry or the
    branches of a cond need one structure)."""
    preds, codes, payloads = dict(error._pred), dict(error._code), dict(error._payload)
    for e in effects:
        if e not in preds:
            preds[e], codes[e] = np.bool_(False), np.int32(-1)
            payloads[e] = [np.ones(shape, dtype) for shape, dtype in e.payload_avals]
    return Error(preds, codes, dict(error._metadata), payloads)


def with_metadata(error: Error, metadata: dict[int, Template]) -> Error:
    return dataclasses.replace(error, _metadata={**error._metadata, **metadata})


def reduce_batch(error: Error) -> Error:
    """A traced error batched along axis 0, reduced to one error: each slot takes its last failing
    index (its last index if none failed), as JAX reduces an error checked under `vmap`."""
    preds, codes, payloads = {}, {}, {}
    for e, pred in error._pred.items():
        n = pred.shape[0]
        last = lax.argmax(lax.convert_element_type(lax.rev(pred, (0,)), np.int32), 0, np.int32)
        index = lax.sub(np.int32(n - 1), last)

        def take(x, index=index):
            return lax.dynamic_index_in_dim(x, index, 0, False, allow_negative_indices=False)

        preds[e], codes[e] = take(pred), take(error._code[e])
        payloads[e] = [take(x) for x in error._payload[e]]
    return Error(preds, codes, dict(error._metadata), payloads)


def reduce_concrete(error: Error) -> Error:
    """A concrete batched error reduced to one error (the last failing index of each slot)."""
    preds, codes, payloads = {}, {}, {}
    for e, pred in error._pred.items():
        flags = np.asarray(pred).reshape(-1)
        failing = np.flatnonzero(flags)
        flat = int(failing[-1]) if failing.size else flags.size - 1
        index = np.unravel_index(flat, np.shape(pred))
        preds[e], codes[e] = np.asarray(pred)[index], np.asarray(error._code[e])[index]
        payloads[e] = [x[index] for x in error._payload[e]]
    return Error(preds, codes, dict(error._metadata), payloads)


def raise_if_failed(error: Error) -> None:
    """Raises JaxRuntimeError for a concrete error that holds a failure."""
    if any(np.shape(p) for p in error._pred.values()):
        error = reduce_concrete(error)
    exception = error.get_exception()
    if exception is not None:
        runtime_error = JaxRuntimeError(str(exception))
        if exception.where is not None:
            runtime_error.add_note(f"(check failed at {exception.where[0]}:{exception.where[1]})")
        raise runtime_error from exception


def raise_or_stage(error: Error, debug: bool = False) -> None:
    """Raises the failure of `error` where its values are known (JAX's eager check), else stages
    a check op (which `checkify` turns into an update of its error value; compiled without one,
    it raises JAX's functionalization error, or is dropped for a `debug_check`)."""
    leaves, tree = tree_util.tree_flatten(error)
    if core.current_trace() is None:
        if not debug:
            raise_if_failed(error)
        return
    if not debug:
        concrete = _concrete_values(leaves)
        if concrete is not None:
            raise_if_failed(tree_util.tree_unflatten(tree, concrete))
            return
    while any(np.ndim(p) for p in error._pred.values()):
        error = reduce_batch(error)
    leaves, tree = tree_util.tree_flatten(error)
    dispatch.bind(CHECK, *leaves, error_tree=tree, debug=debug)


def _concrete_values(leaves: Sequence[Any]) -> list[Any] | None:
    """The leaves as arrays where every traced one has a value now (grad or vmap outside jit);
    None where one is only known when the program runs."""
    if staging.no_concrete_values():
        return None
    values = []
    for x in leaves:
        if isinstance(x, Tracer):
            try:
                x = dispatch.to_array(x._trace.concrete_value(x, "a check's value"))
            except ConcretizationTypeError:
                return None
        values.append(x)
    return values


# --- the check op: a marker custom call carrying an error value --------------------------------

CHECK = "stablehlo.custom_call:stablax.check"
_TARGET = "stablax.check"

FUNCTIONALIZATION_MESSAGE = (
    "Cannot abstractly evaluate a checkify.check which was not functionalized. This probably "
    "means you tried to stage (jit/scan/pmap/...) a `check` without functionalizing it through "
    "`checkify.checkify`."
)


def _check_shape_rule(*avals: Any, error_tree: Any, debug: bool) -> tuple:
    return ()  # no results: the op is the check itself


def _check_lowering(operands, in_avals, out_avals, *, error_tree, debug):
    key = core.lowering_trace().add_payload("check", (error_tree, debug))
    attributes = {
        PAYLOAD_ATTRIBUTE: ir.StringAttr.get(key),
        "backend_config": ir.StringAttr.get("debug" if debug else "check"),
    }
    return emit_marker(_TARGET, operands, [], attributes)


def _decode_check(op: Any, owner: Any) -> dict[str, Any]:
    error_tree, debug = owner.payloads[ir.StringAttr(op.attributes[PAYLOAD_ATTRIBUTE]).value]
    return {"error_tree": error_tree, "debug": debug}


def _check_batch(values, dims, *, axis_size, error_tree, debug):
    values = [bdim_at_front(v, d, axis_size) for v, d in zip(values, dims, strict=True)]
    raise_or_stage(reduce_batch(tree_util.tree_unflatten(error_tree, values)), debug)
    return [], []


def _expand_check(operation: Any) -> None:
    if ir.StringAttr(operation.attributes["backend_config"]).value == "debug":
        operation.erase()  # a debug_check outside checkify does nothing
        return
    raise ValueError(FUNCTIONALIZATION_MESSAGE)


op_rules.def_op(
    CHECK,
    _check_shape_rule,
    _check_lowering,
    decode=_decode_check,
    decode_reads_owner=True,
    differentiable=False,  # as JAX: the primal values are checked, tangents play no part
    batch=_check_batch,
    expand=_expand_check,
    cache_eagerly=False,
)
