"""The threefry2x32 hash as one op: a `stablax.threefry2x32` marker expanded at compile time.

On CPU the 20 rounds run as a rolled `stablehlo.while` of five groups of four rounds (as JAX
lowers it there): XLA then computes the bits once instead of copying an unrolled generator into
every fusion that reads them, which made sampler-heavy programs slow to compile. On other
backends the rounds are unrolled. Both give the same bits.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax._src import dispatch, op_rules, runtime
from stablax._src import ir as mlir
from stablax._src.avals import ShapedArray
from stablax._src.bodies import expand_in_place
from stablax._src.interpreters.batching import elementwise_batch_rule
from stablax._src.ir_passes import marker_lowering
from stablax._src.lax import _elementwise as ew
from stablax._src.lax._control_flow_while import while_loop
from stablax._src.lax._slice_pad import index_in_dim

TARGET = "stablax.threefry2x32"
THREEFRY2X32 = f"stablehlo.custom_call:{TARGET}"

_U32 = np.dtype(np.uint32)
_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_KEY_PARITY = np.uint32(0x1BD11BDA)


def _threefry_rule(k0, k1, x0, x1):
    shape = x0.shape
    avals = (k0, k1, x0, x1)
    if any(a.dtype != _U32 for a in avals):
        raise TypeError(
            "threefry2x32: arguments must have uint32 type, got "
            f"{[a.str_short() for a in avals]}{mlir.where_suffix()}"
        )
    if x1.shape != shape or any(k.shape not in ((), shape) for k in (k0, k1)):
        raise TypeError(
            "threefry2x32: the counts must share one shape and the keys be scalars or of that "
            f"shape, got {[a.str_short() for a in avals]}{mlir.where_suffix()}"
        )
    out = ShapedArray(shape, _U32)
    return out, out


def threefry2x32(k0: Any, k1: Any, x0: Any, x1: Any) -> tuple[Any, Any]:
    """Threefry-2x32 (20 rounds) of the counter pairs (x0, x1) under the key (k0, k1).

    Args:
      k0, k1: the key's two uint32 words, scalars or arrays of the counters' shape.
      x0, x1: uint32 arrays of one shape.

    Returns:
      The two hashed uint32 words, each of the counters' shape.
    """
    return dispatch.bind(THREEFRY2X32, k0, k1, x0, x1)


# --- the implementations the marker expands to --------------------------------------------------


def _rotate_left(x: Any, bits: Any) -> Any:
    return ew.bitwise_or(
        ew.shift_left(x, bits), ew.shift_right_logical(x, ew.sub(np.uint32(32), bits))
    )


def _mix(x0: Any, x1: Any, rotation: Any) -> tuple[Any, Any]:
    x0 = ew.add(x0, x1)
    return x0, ew.bitwise_xor(x0, _rotate_left(x1, rotation))


def _schedule(k0: Any, k1: Any) -> tuple[Any, Any, Any]:
    return k0, k1, ew.bitwise_xor(ew.bitwise_xor(k0, k1), _KEY_PARITY)


def _unrolled(k0, k1, x0, x1):
    # Five groups of four mix rounds, each group followed by a key injection.
    ks = _schedule(k0, k1)
    x0, x1 = ew.add(x0, k0), ew.add(x1, k1)
    for group in range(5):
        for rotation in _ROTATIONS[group % 2]:
            x0, x1 = _mix(x0, x1, np.uint32(rotation))
        x0 = ew.add(x0, ks[(group + 1) % 3])
        x1 = ew.add(ew.add(x1, ks[(group + 2) % 3]), np.uint32(group + 1))
    return [x0, x1]


def _rolled(k0, k1, x0, x1):
    # The same rounds as a loop over the five groups: the key schedule and the two rotation
    # vectors travel in the carry and turn by one each group.
    ks = _schedule(k0, k1)
    carry = (
        np.uint32(0),
        ew.add(x0, k0),
        ew.add(x1, k1),
        ks[1],
        ks[2],
        ks[0],
        np.array(_ROTATIONS[0], _U32),
        np.array(_ROTATIONS[1], _U32),
    )

    def body(state):
        i, y0, y1, ka, kb, kc, rot, rot_next = state
        for j in range(4):
            y0, y1 = _mix(y0, y1, index_in_dim(rot, j, keepdims=False))
        i = ew.add(i, np.uint32(1))
        y0 = ew.add(y0, ka)
        y1 = ew.add(ew.add(y1, kb), i)
        return i, y0, y1, kb, kc, ka, rot_next, rot

    out = while_loop(lambda state: ew.lt(state[0], np.uint32(5)), body, carry)
    return [out[1], out[2]]


def expand(operation: Any, platform: str | None = None) -> None:
    """Replaces one `stablax.threefry2x32` custom call by its rounds for the target backend."""
    platform = runtime.default_backend() if platform is None else platform
    impl = _rolled if platform == "cpu" else _unrolled
    expand_in_place(operation, impl, "threefry2x32", "threefry2x32 rounds")


op_rules.def_op(
    THREEFRY2X32,
    _threefry_rule,
    marker_lowering(TARGET),
    batch=elementwise_batch_rule(THREEFRY2X32),
    expand=expand,
    differentiable=False,
)
