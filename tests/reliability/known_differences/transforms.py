"""Rules for differences that appear only under vmap, grad or jit, where JAX's batching or
differentiation rule behaves otherwise than the op outside the transform.
"""

from __future__ import annotations

import re

from tests.reliability.known_differences._shared import _BROADCAST, Rule, _error


def _grad_of_integer_op(call, ours, theirs, difference) -> bool:
    """Under grad, JAX looks for the op's differentiation rule before checking its operand's
    dtype (NotImplementedError for an integer-only op such as clz, population_count or the
    shifts); stablax checks the dtype first and raises the TypeError the op raises eagerly."""
    return (
        call["mode"] == "grad"
        and _error(ours)
        and ours["type"] == "TypeError"
        and "does not accept dtype" in ours["message"]
        and _error(theirs)
        and "Differentiation rule for" in theirs["message"]
    )


def _vmap_rank_broadcast(call, ours, theirs, difference) -> bool:
    """Under vmap, JAX's batching rule of a lax binary op broadcasts operands whose
    per-example ranks differ, which the op itself rejects outside vmap (and raises a
    broadcasting error where the shapes then do not broadcast); stablax applies the op's own
    rule (TypeError, the one JAX raises eagerly)."""
    return (
        call["mode"] == "vmap"
        and call["fn"].startswith("lax.")
        and _error(ours)
        and "must have the same number of dimensions" in ours["message"]
        and (theirs["kind"] == "value" or bool(_BROADCAST.search(theirs["message"])))
    )


def _zero_derivative(call, ours, theirs, difference) -> bool:
    """grad of nextafter (and spacing, built on it): stablax differentiates it as piecewise
    constant (zero derivative, as floor and round: its row in lax/_elementwise_ops.py says
    differentiable=False); JAX has no differentiation rule for it."""
    return (
        call["mode"] == "grad"
        and call["fn"] in ("jnp.nextafter", "lax.nextafter", "jnp.spacing")
        and ours["kind"] == "value"
        and _error(theirs)
        and "Differentiation rule for 'nextafter' not implemented" in theirs["message"]
    )


def _vmap_slice_as_gather(call, ours, theirs, difference) -> bool:
    """lax.dynamic_slice under vmap with slice_sizes of the wrong length: stablax raises the
    ValueError it raises outside vmap; JAX's batching rule turns the slice into a gather, whose
    own check raises TypeError (outside vmap JAX raises ValueError)."""
    return (
        call["mode"] == "vmap"
        and call["fn"]
        in ("lax.dynamic_slice", "lax.dynamic_index_in_dim", "lax.dynamic_slice_in_dim")
        and _error(ours)
        and ours["type"] == "ValueError"
        and _error(theirs)
        and theirs["message"].startswith("Gather op must have one slice size for every input")
    )


def _vmap_linalg_rank(call, ours, theirs, difference) -> bool:
    """A lax.linalg op under vmap whose per-example operand has rank below 2: stablax raises
    the TypeError it raises outside vmap; JAX's batching rules look at the batched array (lu
    factors the whole batch as one matrix; hessenberg and triangular_solve raise ValueErrors
    about the batched shape)."""
    return (
        call["mode"] == "vmap"
        and call["fn"].startswith("lax.linalg.")
        and _error(ours)
        and ours["type"] == "TypeError"
        and "expected a matrix or a stack of matrices" in ours["message"]
    )


def _zero_derivative_nextafter(call, ours, theirs, difference) -> bool:
    """nextafter under grad: stablax gives it a zero derivative, as the rounding ops (its own
    compositions such as jnp.spacing are differentiated through it); JAX has no rule for it
    (NotImplementedError)."""
    return (
        call["fn"] in ("lax.nextafter", "jnp.nextafter")
        and call["mode"] == "grad"
        and ours["kind"] == "value"
        and _error(theirs)
        and "Differentiation rule for 'nextafter' not implemented" in theirs["message"]
    )


def _reshape_empty_batch(call, ours, theirs, difference) -> bool:
    """lax.reshape under vmap into a shape of another size: stablax checks each example's size
    (the TypeError lax.reshape raises outside vmap); JAX's batching rule reshapes the whole
    batched operand, so an empty batch (0 elements either way) passes its check."""
    return (
        call["fn"] == "lax.reshape"
        and call["mode"] == "vmap"
        and _error(ours)
        and ours["message"].startswith("lax.reshape: cannot reshape")
        and theirs["kind"] == "value"
        and theirs["value"]["shape"][:1] == [0]
    )


def _update_slice_vmap_float_index(call, ours, theirs, difference) -> bool:
    """lax.dynamic_update_slice* under vmap with a float start index: stablax raises the
    TypeError JAX raises outside vmap; JAX's batching rule turns the op into a scatter, whose
    index check raises ValueError instead."""
    return (
        call["fn"].startswith("lax.dynamic_update_")
        and call["mode"] == "vmap"
        and _error(ours)
        and ours["type"] == "TypeError"
        and "start indices must be integer scalars" in ours["message"]
        and _error(theirs)
        and theirs["message"] == "indices must have an integer type"
    )


def _random_gamma_grad_reverse(call, ours, theirs, difference) -> bool:
    """Derivatives of lax.random_gamma_grad: stablax has no rule for them (NotImplementedError,
    in either mode); JAX's reverse mode fails inside the while_loop of its series (ValueError),
    an accident of its implementation rather than a check."""
    return (
        call["fn"] == "lax.random_gamma_grad"
        and call["mode"] == "grad"
        and _error(ours)
        and ours["type"] == "NotImplementedError"
        and "'lax.random_gamma_grad' not implemented" in ours["message"]
        and _error(theirs)
        and theirs["message"].startswith("Reverse-mode differentiation does not work for lax.")
    )


def _reduce_vmap_negative_axes(call, ours, theirs, difference) -> bool:
    """lax.reduce_and/or/xor under vmap with negative axes: stablax checks the operand as
    unbatched (here a TypeError for its dtype); JAX 0.10.2's batching rule looks the negative
    axis up in a list of non-negative ones and fails inside with ValueError "0 is not in
    list"."""
    return (
        call["fn"] in ("lax.reduce_and", "lax.reduce_or", "lax.reduce_xor")
        and call["mode"] == "vmap"
        and _error(ours)
        and _error(theirs)
        and theirs["type"] == "ValueError"
        and bool(re.fullmatch(r"-?\d+ is not in list", theirs["message"]))
    )


def _sort_unbatched_operand_of_other_shape(call, ours, theirs, difference) -> bool:
    """lax.sort/sort_key_val under vmap with an operand of another shape (size-1 axes): JAX's
    batching rule broadcasts unbatched operands to the batched one's shape, so it sorts what
    it refuses without vmap (TypeError, unequal shapes); stablax checks each example's shapes,
    so vmap(f) fails where f fails."""
    return (
        call["fn"] in ("lax.sort", "lax.sort_key_val")
        and call["mode"] == "vmap"
        and _error(ours)
        and ours["type"] == "TypeError"
        and "lax.sort requires operands of equal shapes" in ours["message"]
        and theirs["kind"] == "value"
    )


RULES: list[Rule] = [
    ("vmap-rank-broadcast", _vmap_rank_broadcast, _vmap_rank_broadcast.__doc__),
    ("grad-of-integer-op", _grad_of_integer_op, _grad_of_integer_op.__doc__),
    ("zero-derivative", _zero_derivative, _zero_derivative.__doc__),
    ("vmap-slice-as-gather", _vmap_slice_as_gather, _vmap_slice_as_gather.__doc__),
    ("vmap-linalg-rank", _vmap_linalg_rank, _vmap_linalg_rank.__doc__),
    ("zero-derivative-nextafter", _zero_derivative_nextafter, _zero_derivative_nextafter.__doc__),
    ("reshape-empty-batch", _reshape_empty_batch, _reshape_empty_batch.__doc__),
    (
        "update-slice-vmap-float-index",
        _update_slice_vmap_float_index,
        _update_slice_vmap_float_index.__doc__,
    ),
    ("random-gamma-grad-reverse", _random_gamma_grad_reverse, _random_gamma_grad_reverse.__doc__),
    (
        "reduce-vmap-negative-axes",
        _reduce_vmap_negative_axes,
        _reduce_vmap_negative_axes.__doc__,
    ),
    (
        "sort-unbatched-operand-of-other-shape",
        _sort_unbatched_operand_of_other_shape,
        _sort_unbatched_operand_of_other_shape.__doc__,
    ),
]
