"""checkify inside control flow: the rules of `stablehlo.case`/`if`, `stablehlo.while` and scans.

Each body is rewritten into one that takes the error value among its inputs and returns it among
its outputs (a loop carries it). Bodies must agree on its structure, so a body is first traced to
learn the slots its checks add; the error entering then gets empty slots for them (JAX's
placeholders) and the bodies are traced again where that changed the structure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from stablax._src import tree_util
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.interpreters import control_flow as cf
from stablax._src.lax._control_flow_cond import COND, IF, bind_cond
from stablax._src.lax._control_flow_scan_op import SCAN, bind_scan, op_results, sizes
from stablax._src.lax._control_flow_while import WHILE, bind_while
from stablax._src.lax._shapes import convert_element_type
from stablax._src.transforms.checkify_error import Error, init_error, with_effects, with_metadata
from stablax._src.transforms.checkify_walker import Walk, checkify_traced, rules

# A body to rewrite: (error, inputs) -> (error, outputs), traced on the inputs' avals.
Body = Callable[[Error, Sequence[Any]], tuple[Error, list[Any]]]


class _Checked:
    """A body traced with the error among its inputs: the closed function (error leaves, inputs,
    then the values it captured) -> (error leaves, outputs), and the error it returns."""

    def __init__(self, body: Body, in_avals: Sequence[ShapedArray], error: Error) -> None:
        leaves, tree = tree_util.tree_flatten(error)
        n = len(leaves)
        box: dict[str, Error] = {}

        def traced(*args):
            out_error, outs = body(tree_util.tree_unflatten(tree, args[:n]), args[n:])
            out_leaves, _ = tree_util.tree_flatten(out_error)
            box["error"] = out_error
            return [*out_leaves, *outs]

        error_avals = [aval_of(x) for x in leaves]
        self.fn, self.captured = cf.trace_body(traced, [*error_avals, *in_avals])
        self.error = box["error"]
        self.effects = set(self.error._pred)


def _checked_bodies(
    bodies: Sequence[Body], in_avals: Sequence[ShapedArray], error: Error
) -> tuple[list[_Checked], Error]:
    """`bodies` traced so that each takes and returns one error structure; and the error to pass
    them (`error` with an empty slot for each slot a body adds)."""
    checked = [_Checked(b, in_avals, error) for b in bodies]
    effects = set(error._pred).union(*(c.effects for c in checked))
    if effects == set(error._pred):
        return checked, error
    error = with_effects(error, effects)
    return [_Checked(b, in_avals, error) for b in bodies], error


def _out_error(checked: Sequence[_Checked], leaves: Sequence[Any]) -> Error:
    """The error a construct returns, from its leaves, with every body's templates."""
    structure = tree_util.tree_structure(checked[0].error)
    error = tree_util.tree_unflatten(structure, list(leaves))
    for c in checked[1:]:
        error = with_metadata(error, c.error._metadata)
    return error


def _walked(fn: Any, walk: Walk) -> Body:
    return lambda error, args: checkify_traced(fn, args, error, walk.enabled)


# --- cond and switch ---------------------------------------------------------------------------


def _case(index: Any, xs: list[Any], branches: Sequence[Any], walk: Walk, error: Error):
    in_avals = branches[0].in_avals
    checked, error = _checked_bodies([_walked(b, walk) for b in branches], in_avals, error)
    leaves = tree_util.tree_leaves(error)
    n = len(leaves)
    fns, consts = cf.share([(c.fn, c.captured) for c in checked], n + len(xs))
    outs = bind_cond(index, [*leaves, *xs, *consts], fns)
    return _out_error(checked, outs[:n]), outs[n:]


def _case_rule(op: Any, values: list[Any], walk: Walk, error: Error):
    return _case(values[0], values[1:], walk.params(op)["branches"], walk, error)


def _if_rule(op: Any, values: list[Any], walk: Walk, error: Error):
    params = walk.params(op)
    index = convert_element_type(values[0], np.int32)  # case index 0 is the false branch
    branches = (params["false_branch"], params["true_branch"])
    return _case(index, values[1:], branches, walk, error)


# --- while loops -------------------------------------------------------------------------------


def _while_rule(op: Any, values: list[Any], walk: Walk, error: Error):
    params = walk.params(op)
    cond, body, n_c = params["cond"], params["body"], params["num_carry"]
    carry, consts = values[:n_c], values[n_c:]
    # As JAX: the condition is checked on the initial carry, then each step checks the body and
    # the condition on the body's result.
    error, _ = walk.walk(cond, [*carry, *consts], error)

    def step(error: Error, args: Sequence[Any]):
        error, new = walk.walk(body, args, error)
        error, _ = walk.walk(cond, [*new, *args[n_c:]], error)
        return error, new

    (stepped,), error = _checked_bodies([step], body.in_avals, error)
    leaves = tree_util.tree_leaves(error)
    n = len(leaves)
    error_avals = [aval_of(x) for x in leaves]

    def condition(*args):  # the loop's own test: its checks were made outside and in `step`
        return checkify_traced(cond, args[n:], init_error, frozenset())[1]

    tested = cf.trace_body(condition, [*error_avals, *cond.in_avals])
    (cond_fn, body_fn), extra = cf.share([tested, (stepped.fn, stepped.captured)], n + len(values))
    outs = bind_while([*leaves, *values, *extra], cond=cond_fn, body=body_fn, num_carry=n + n_c)
    return _out_error([stepped], outs[:n]), outs[n:]


# --- scans -------------------------------------------------------------------------------------


def _scan_rule(op: Any, values: list[Any], walk: Walk, error: Error):
    params = walk.params(op)
    body, n_c, n_x = params["body"], params["num_carry"], params["num_xs"]
    n_y, _ = sizes(body, n_c, n_x)
    _, carry, _, xs, consts = cf.split(values, 1, n_c, n_y, n_x)
    (stepped,), error = _checked_bodies([_walked(body, walk)], body.in_avals, error)
    leaves = tree_util.tree_leaves(error)
    n = len(leaves)
    counter, carry_out, ys = bind_scan(
        [*leaves, *carry],
        xs,
        [*consts, *stepped.captured],
        body=stepped.fn,
        length=params["length"],
        reverse=params["reverse"],
        unroll=params["unroll"],
    )
    return _out_error([stepped], carry_out[:n]), op_results(counter, carry_out[n:], ys, xs, consts)


rules[COND] = _case_rule
rules[IF] = _if_rule
rules[WHILE] = _while_rule
rules[SCAN] = _scan_rule
