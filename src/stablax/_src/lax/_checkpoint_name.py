"""`checkpoint_name`: a marker op naming a value for the checkpoint policies.

The op is `stablehlo.custom_call:stablax.name` (see ir_passes.py) carrying the name (param `tag`)
in its `backend_config`; it is the identity, removed before compilation like every marker. Its JVP
names the primal only (the tangent passes through unnamed, as in JAX), and vmap keeps the name
on the batched value, so a policy reading a differentiated or batched function still finds it.
"""

from __future__ import annotations

from typing import Any

from stablax._src import core, dispatch, op_rules, tree_util
from stablax._src.avals import ShapedArray
from stablax._src.interpreters.remat_policies import NAME
from stablax._src.ir import ir
from stablax._src.ir_passes import emit_marker
from stablax._src.primitive import Primitive


def _name_rule(x: ShapedArray, *, tag: str) -> ShapedArray:
    return x


def _name_lowering(operands, in_avals, out_avals, *, tag):
    return emit_marker(
        "stablax.name", operands, out_avals, {"backend_config": ir.StringAttr.get(tag)}
    )


def _decode_name(op: Any) -> dict[str, Any]:
    return {"tag": ir.StringAttr(op.attributes["backend_config"]).value}


def _name_jvp(primals, tangents, *, tag):
    return dispatch.bind(NAME, primals[0], tag=tag), tangents[0]


def _name_batch(values, dims, *, axis_size, tag):
    return dispatch.bind(NAME, values[0], tag=tag), dims[0]


op_rules.def_op(
    NAME, _name_rule, _name_lowering, decode=_decode_name, jvp=_name_jvp, batch=_name_batch
)


def checkpoint_name(x: Any, name: str) -> Any:
    """Names the arrays of pytree `x` for checkpoint policies; the identity on values.

    Under `stablax.checkpoint(f, policy=checkpoint_policies.save_only_these_names("h"))`, a
    value of `f` tagged `checkpoint_name(v, "h")` is saved for the backward pass and everything
    else is recomputed (see `stablax.ad_checkpoint.checkpoint_policies`).

    Args:
      x: an array or a pytree of arrays.
      name: the name the policies match (a string).

    Returns:
      `x`, unchanged in value.
    """
    if not isinstance(name, str):
        raise TypeError(f"checkpoint_name: name must be a string, got {type(name).__name__}")

    def tag(leaf: Any) -> Any:
        if core.current_trace() is None:
            return leaf  # a concrete value: nothing will be differentiated through it
        if not hasattr(leaf, "aval"):
            leaf = dispatch.to_array(leaf)
        return dispatch.bind(NAME, leaf, tag=name)

    return tree_util.tree_map(tag, x)


# JAX's primitive for the marker, as checkpoint policies receive it (`params["name"]`).
name_p = Primitive("name", lambda x, *, name: checkpoint_name(x, name))
