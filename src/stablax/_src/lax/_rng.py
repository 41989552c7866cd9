"""XLA's own random number ops: `rng_bit_generator` (stateless, keyed) and `rng_uniform`.

`jax.random` (threefry in stablax.random) is the portable API; these expose the StableHLO ops
`stablehlo.rng_bit_generator` and `stablehlo.rng`, whose bits depend on the backend.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any

import ml_dtypes
import numpy as np

from stablax._src import dtypes
from stablax._src import ir as mlir
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.dispatch import bind
from stablax._src.interpreters.ad import jvp_not_implemented
from stablax._src.interpreters.batching import batch_not_implemented, bdim_at_front
from stablax._src.ir import ir
from stablax._src.lax._argcheck import int_or_int_sequence, int_sequence
from stablax._src.lax._control_flow_scan import scan
from stablax._src.lax._shapes import reshape
from stablax._src.op_rules import def_op

RNG_BIT_GENERATOR = "stablehlo.rng_bit_generator"
RNG = "stablehlo.rng"


class RandomAlgorithm(enum.IntEnum):
    """The algorithm of `rng_bit_generator`: the backend's default, Threefry or Philox."""

    RNG_DEFAULT = 0
    RNG_THREE_FRY = 1
    RNG_PHILOX = 2

    def __str__(self) -> str:
        return self.name


_ALGORITHM_NAMES = {
    RandomAlgorithm.RNG_DEFAULT: "DEFAULT",
    RandomAlgorithm.RNG_THREE_FRY: "THREE_FRY",
    RandomAlgorithm.RNG_PHILOX: "PHILOX",
}
_BITS_DTYPES = tuple(np.dtype(d) for d in (np.uint8, np.uint16, np.uint32, np.uint64))

# --- rng_bit_generator -------------------------------------------------------------------------


def _bit_generator_rule(key: ShapedArray, *, shape, dtype, algorithm):
    if key.dtype != np.uint64 or key.ndim != 1:
        raise TypeError(
            f"lax.rng_bit_generator: the key must be uint32[4] (or uint64[2]), got "
            f"{key.str_short()}{mlir.where_suffix()}"
        )
    return key, ShapedArray(shape, dtype)


def _bit_generator_lowering(operands, in_avals, out_avals, *, shape, dtype, algorithm):
    attr = ir.Attribute.parse(f"#stablehlo<rng_algorithm {_ALGORITHM_NAMES[algorithm]}>")
    types = [mlir.aval_type(a) for a in out_avals]
    return list(mlir.emit(RNG_BIT_GENERATOR, operands, types, {"rng_algorithm": attr}).results)


def _bit_generator_decode(op: Any) -> dict[str, Any]:
    text = str(op.attributes["rng_algorithm"])
    algorithm = next(a for a, n in _ALGORITHM_NAMES.items() if f"<rng_algorithm {n}>" in text)
    out = op.results[1].type
    return dict(shape=mlir.shape_of_type(out), dtype=mlir.dtype_of_type(out), algorithm=algorithm)


def _bit_generator_batch(values, dims, *, axis_size, shape, dtype, algorithm):
    # One stream per key: a scan over the batch of keys.
    keys = bdim_at_front(values[0], dims[0], axis_size)

    def step(carry, key):
        return carry, tuple(
            bind(RNG_BIT_GENERATOR, key, shape=shape, dtype=dtype, algorithm=algorithm)
        )

    _, (new_keys, bits) = scan(step, None, keys)
    return [new_keys, bits], [0, 0]


def_op(
    RNG_BIT_GENERATOR,
    _bit_generator_rule,
    _bit_generator_lowering,
    decode=_bit_generator_decode,
    batch=_bit_generator_batch,
    differentiable=False,
)


def rng_bit_generator(
    key: Any,
    shape: Sequence[int],
    dtype: Any = np.uint32,
    algorithm: RandomAlgorithm = RandomAlgorithm.RNG_DEFAULT,
    *,
    out_sharding: Any = None,
) -> tuple[Any, Any]:
    """Random bits from XLA's stateless generator (`stablehlo.rng_bit_generator`).

    Args:
      key: the generator state, `uint32[4]` (or `uint64[2]` with x64).
      shape: the shape of the bits.
      dtype: uint8, uint16, uint32 or uint64.
      algorithm: a `RandomAlgorithm`; the default is the backend's choice.
      out_sharding: not supported (None).

    Returns:
      `(new_key, bits)`: the next state (same type as `key`) and the bits. The same key gives the
      same bits on one backend; different backends may differ.
    """
    shape = int_or_int_sequence(shape, "shape", "lax.rng_bit_generator")  # 5 is (5,), as JAX
    if dtype is None:  # JAX's class
        raise ValueError(f"lax.rng_bit_generator: dtype must be specified{mlir.where_suffix()}")
    dtype = np.dtype(dtypes.check_user_dtype(dtype, "rng_bit_generator"))
    if out_sharding is not None:  # after the dtype, in JAX's order
        raise NotImplementedError("lax.rng_bit_generator: out_sharding is not supported")
    if dtype not in _BITS_DTYPES:
        raise TypeError(f"rng_bit_generator: unsupported dtype {dtype}")
    try:
        algorithm = RandomAlgorithm(algorithm)
    except ValueError:
        raise ValueError(
            f"lax.rng_bit_generator: algorithm must be a RandomAlgorithm, got {algorithm!r}"
            f"{mlir.where_suffix()}"
        ) from None
    aval = aval_of(key)
    if aval.dtype == np.uint32 and aval.shape == (4,):
        # The op's state is uint64[2]: reinterpret the four words (this works without x64).
        wide = bind(
            "stablehlo.bitcast_convert", reshape(key, (2, 2)), new_dtype=np.dtype(np.uint64)
        )
        new, bits = bind(RNG_BIT_GENERATOR, wide, shape=shape, dtype=dtype, algorithm=algorithm)
        narrow = bind("stablehlo.bitcast_convert", new, new_dtype=np.dtype(np.uint32))
        return reshape(narrow, (4,)), bits
    if aval.dtype == np.uint64 and aval.shape == (2,):
        return tuple(bind(RNG_BIT_GENERATOR, key, shape=shape, dtype=dtype, algorithm=algorithm))
    raise TypeError(
        f"lax.rng_bit_generator: the key must be uint32[4] (or uint64[2]), got "
        f"{aval.str_short()}{mlir.where_suffix()}"
    )


# --- rng_uniform -------------------------------------------------------------------------------


# What XLA's RNG expander handles; other dtypes abort the process in the compiler (JAX's too).
_UNIFORM_DTYPES = frozenset(
    np.dtype(t)
    for t in (np.float16, ml_dtypes.bfloat16, np.float32, np.float64)
    + (np.int32, np.uint32, np.int64, np.uint64)
)


def _check_uniform_bounds(a: ShapedArray, b: ShapedArray) -> None:
    if a.shape or b.shape or a.dtype != b.dtype:  # JAX's class
        raise ValueError(
            "lax.rng_uniform: a and b must be scalars of one dtype, got "
            f"{a.str_short()} and {b.str_short()}{mlir.where_suffix()}"
        )


def _uniform_rule(a: ShapedArray, b: ShapedArray, *shape_operand: ShapedArray, shape):
    _check_uniform_bounds(a, b)
    if a.dtype not in _UNIFORM_DTYPES:
        raise TypeError(
            f"lax.rng_uniform: unsupported dtype {a.dtype}: expected a 16, 32 or 64-bit float "
            f"or a 32 or 64-bit integer{mlir.where_suffix()}"
        )
    return ShapedArray(shape, a.dtype, a.weak_type and b.weak_type)  # as JAX


def _uniform_lowering(operands, in_avals, out_avals, *, shape):
    if len(operands) == 2:  # the shape operand: a 1-D int64 constant
        operands = [*operands, mlir.constant(np.asarray(shape, np.int64).reshape(len(shape)))]
    attr = ir.Attribute.parse("#stablehlo<rng_distribution UNIFORM>")
    op = mlir.emit(RNG, operands, [mlir.aval_type(out_avals[0])], {"rng_distribution": attr})
    return list(op.results)


def _uniform_decode(op: Any) -> dict[str, Any]:
    return {"shape": mlir.shape_of_type(op.results[0].type)}


# As JAX: the draw has no derivative in its bounds (bounds that are constants of the
# differentiation never get here), and no batching rule.
def_op(
    RNG,
    _uniform_rule,
    _uniform_lowering,
    decode=_uniform_decode,
    jvp=jvp_not_implemented("rng_uniform"),
    batch=batch_not_implemented(RNG),
)


def rng_uniform(a: Any, b: Any, shape: Sequence[int]) -> Any:
    """Uniform random values in [a, b) from the backend's stateful generator (`stablehlo.rng`).

    The values change from call to call and are backend-specific; prefer `stablax.random`.
    """
    _check_uniform_bounds(aval_of(a), aval_of(b))  # before the shape, in JAX's order
    shape = int_sequence(shape, "shape", "lax.rng_uniform")
    return bind(RNG, a, b, shape=shape)
