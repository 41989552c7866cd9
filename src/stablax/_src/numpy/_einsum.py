"""`einsum` and `einsum_path`: opt_einsum picks the pairwise contraction order, and each step
becomes diagonal extraction, sums over private indices and one `lax.dot_general`."""

from __future__ import annotations

import operator
import string
from collections.abc import Sequence
from typing import Any

import numpy as np

from stablax._src import ir as mlir
from stablax._src import lax, runtime
from stablax._src.numpy._asarray import asarray
from stablax._src.numpy._promotion import promote_dtypes
from stablax._src.numpy._shape_diag import diagonal

_LETTERS = string.ascii_letters


def _interleaved_to_string(args: Sequence[Any]) -> tuple[str, list[Any]]:
    """einsum(op0, sub0, op1, sub1, ..., [out]) as a subscripts string and operand list."""
    args = list(args)
    output = args.pop() if len(args) % 2 else None

    def letters(sub: Any) -> str:
        if not isinstance(sub, (list, tuple)):
            raise TypeError(
                "jnp.einsum: subscripts must be a string, or each operand must be followed by a "
                f"list of integer subscripts; got {type(sub).__name__}{mlir.where_suffix()}"
            )
        out = []
        for s in sub:
            if s is Ellipsis:
                out.append("...")
            else:
                try:
                    i = operator.index(s)
                except TypeError:
                    raise TypeError(
                        "jnp.einsum: a subscript list holds integers and Ellipsis only, got "
                        f"{type(s).__name__}{mlir.where_suffix()}"
                    ) from None
                if not 0 <= i < len(_LETTERS):
                    raise ValueError(f"jnp.einsum: subscript {i} is out of range [0, 52)")
                out.append(_LETTERS[i])
        return "".join(out)

    if not args:
        if output is not None:
            letters(output)  # what is no subscript list is refused first (TypeError)
        # JAX's class for einsum(None): opt_einsum counts one subscript for no operand
        raise ValueError(f"jnp.einsum: no operands given{mlir.where_suffix()}")
    operands = args[0::2]
    subscripts = ",".join(letters(s) for s in args[1::2])
    if output is not None:
        subscripts += "->" + letters(output)
    return subscripts, operands


def _parse(subscripts: Any, operands: tuple) -> tuple[str, list[Any]]:
    if isinstance(subscripts, str):
        return subscripts.replace(" ", ""), list(operands)
    return _interleaved_to_string((subscripts, *operands))


def _opt_einsum_optimize(optimize: Any, n_operands: int) -> Any:
    if optimize is False or optimize is None:
        return [(0, 1)] * max(n_operands - 1, 0) if n_operands > 1 else [(0,)]
    if optimize is True or optimize == "auto":
        return "auto" if optimize == "auto" else "greedy"
    if isinstance(optimize, (list, tuple)) and optimize and optimize[0] == "einsum_path":
        return list(optimize[1:])
    return optimize


def _operand_shape(op: Any) -> tuple[int, ...]:
    """An operand's shape as opt_einsum reads it (JAX hands it the operands as given): a scalar
    or string is (), and what has no shape (None) a ValueError."""
    if hasattr(op, "aval"):
        return op.aval.shape
    import opt_einsum  # on first use: import time (a first program rarely calls einsum)

    return tuple(opt_einsum.parser.get_shape(op))


def einsum_path(subscripts: Any, /, *operands: Any, optimize: Any = "auto") -> tuple:
    """The contraction order `einsum` would use, and opt_einsum's report on it."""
    subscripts, operands = _parse(subscripts, operands)
    shapes = [_operand_shape(op) for op in operands]
    import opt_einsum

    return opt_einsum.contract_path(
        subscripts, *shapes, shapes=True, optimize=_opt_einsum_optimize(optimize, len(shapes))
    )


def einsum(
    subscripts: Any,
    /,
    *operands: Any,
    out: None = None,
    optimize: Any = "auto",
    precision: Any = None,
    preferred_element_type: Any = None,
    out_sharding: Any = None,
) -> Any:
    """Einstein summation (`np.einsum`), in the subscripts-string or interleaved form.

    Args:
      subscripts: e.g. "ij,jk->ik" (or the first operand of the interleaved form).
      *operands: the arrays (interleaved with their subscript lists in that form).
      out: unsupported; must be None.
      optimize: "auto" (default), True ("greedy"), False (left to right), any opt_einsum
        strategy name ("optimal", "dp", ...), or an explicit path as `einsum_path` returns.
      precision, preferred_element_type: passed to every `lax.dot_general`.
      out_sharding: None, or a sharding on stablax's one device.

    Returns:
      The contraction, of the operands' promoted dtype (or `preferred_element_type`).
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.einsum is not supported.")
    subscripts, operands = _parse(subscripts, operands)
    if not operands:
        raise ValueError("jnp.einsum: at least one operand is required")
    # JAX's order: the subscripts are matched with the operands' shapes before any operand
    # becomes an array.
    try:
        shapes = [_operand_shape(op) for op in operands]
        import opt_einsum

        _, contractions = opt_einsum.contract_path(
            subscripts,
            *shapes,
            shapes=True,
            einsum_call=True,
            optimize=_opt_einsum_optimize(optimize, len(operands)),
        )
    except ValueError as e:
        raise ValueError(f"jnp.einsum: {e}{mlir.where_suffix()}") from None
    runtime.check_sharding(out_sharding, "jnp.einsum")  # after the subscripts, as JAX
    arrays = [asarray(op) for op in operands]
    arrays = promote_dtypes(*arrays) if len(arrays) > 1 else arrays
    dot_kw = {"precision": precision, "preferred_element_type": preferred_element_type}
    for contraction in contractions:
        positions, einsum_str = contraction[0], contraction[2]
        inputs, output = einsum_str.split("->")
        picked = [arrays[i] for i in positions]
        for i in sorted(positions, reverse=True):
            del arrays[i]
        arrays.append(_contract(picked, inputs.split(","), output, dot_kw))
    (result,) = arrays
    if preferred_element_type is not None:
        result = lax.convert_element_type(result, preferred_element_type)
    return result


def _dedupe(x: Any, subs: str) -> tuple[Any, str]:
    """Takes diagonals for letters repeated within one operand ("ii" -> "i")."""
    while True:
        repeated = next((c for c in subs if subs.count(c) > 1), None)
        if repeated is None:
            return x, subs
        i = subs.index(repeated)
        j = subs.index(repeated, i + 1)
        x = diagonal(x, 0, i, j)
        subs = subs[:i] + subs[i + 1 : j] + subs[j + 1 :] + repeated


def _sum_private(x: Any, subs: str, keep: str) -> tuple[Any, str]:
    """Sums away the letters of `subs` that appear nowhere in `keep`."""
    axes = tuple(i for i, c in enumerate(subs) if c not in keep)
    if not axes:
        return x, subs
    if x.aval.dtype == np.dtype(bool):
        x = lax.reduce_or(x, axes)
    else:
        x = lax.reduce_sum(x, axes)
    return x, "".join(c for c in subs if c in keep)


def _transpose_to(x: Any, subs: str, output: str) -> Any:
    if subs == output:
        return x
    return lax.transpose(x, tuple(subs.index(c) for c in output))


def _match_sizes(a: Any, a_subs: str, b: Any, b_subs: str) -> tuple[Any, Any]:
    # Broadcast size-1 dimensions (from ellipses) against the other operand's size.
    a_shape, b_shape = list(a.aval.shape), list(b.aval.shape)
    for c in set(a_subs) & set(b_subs):
        i, j = a_subs.index(c), b_subs.index(c)
        if a_shape[i] != b_shape[j]:
            if a_shape[i] == 1:
                a_shape[i] = b_shape[j]
            elif b_shape[j] == 1:
                b_shape[j] = a_shape[i]
            else:
                raise ValueError(
                    f"jnp.einsum: size of label {c!r} differs between operands: "
                    f"{a_shape[i]} and {b_shape[j]}{mlir.where_suffix()}"
                )
    if tuple(a_shape) != a.aval.shape:
        a = lax.broadcast_in_dim(a, a_shape, range(len(a_shape)))
    if tuple(b_shape) != b.aval.shape:
        b = lax.broadcast_in_dim(b, b_shape, range(len(b_shape)))
    return a, b


def _dot_output(x_subs: str, y_subs: str, output: str) -> str:
    """The letters of dot_general(x, y)'s result: batch, then x's free, then y's free."""
    batch = "".join(c for c in x_subs if c in y_subs and c in output)
    return (
        batch
        + "".join(c for c in x_subs if c not in y_subs)
        + "".join(c for c in y_subs if c not in x_subs)
    )


def _contract(arrays: list, inputs: list[str], output: str, dot_kw: dict) -> Any:
    if len(arrays) == 1:
        x, subs = _dedupe(arrays[0], inputs[0])
        x, subs = _sum_private(x, subs, output)
        return _transpose_to(x, subs, output)
    if len(arrays) != 2:
        raise NotImplementedError("jnp.einsum: contractions of more than two operands at once")
    (a, b), (a_subs, b_subs) = arrays, inputs
    a, a_subs = _dedupe(a, a_subs)
    b, b_subs = _dedupe(b, b_subs)
    a, a_subs = _sum_private(a, a_subs, b_subs + output)
    b, b_subs = _sum_private(b, b_subs, a_subs + output)
    a, b = _match_sizes(a, a_subs, b, b_subs)
    if _dot_output(a_subs, b_subs, output) != output == _dot_output(b_subs, a_subs, output):
        (a, a_subs), (b, b_subs) = (b, b_subs), (a, a_subs)  # that order needs no transpose
    shared = [c for c in a_subs if c in b_subs]
    batch = [c for c in shared if c in output]
    contracted = [c for c in shared if c not in output]
    dims = (
        (tuple(a_subs.index(c) for c in contracted), tuple(b_subs.index(c) for c in contracted)),
        (tuple(a_subs.index(c) for c in batch), tuple(b_subs.index(c) for c in batch)),
    )
    if a.aval.dtype == np.dtype(bool):
        # No boolean dot in XLA: count in int32 and test for nonzero, as `any` of products.
        a32, b32 = (lax.convert_element_type(v, np.int32) for v in (a, b))
        counts = lax.dot_general(a32, b32, dims)
        out = lax.ne(counts, lax.full(counts.aval.shape, 0, np.int32))
    else:
        out = lax.dot_general(a, b, dims, dot_kw["precision"], dot_kw["preferred_element_type"])
    out_subs = (
        "".join(batch)
        + "".join(c for c in a_subs if c not in shared)
        + "".join(c for c in b_subs if c not in shared)
    )
    return _transpose_to(out, out_subs, output)
