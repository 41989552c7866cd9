"""Rules for set operations (unique, intersect1d, ...) and indexing functions (take, put,
insert, delete, compress, tri).
"""

from __future__ import annotations

import re

from tests.reliability.known_differences._shared import (
    _SET_FNS,
    _UNIQUE_FNS,
    Rule,
    _arrays,
    _error,
    _value_difference,
)


def _unique_of_nothing(call, ours, theirs, difference) -> bool:
    """jnp.unique and friends of a size-0 array under jit/vmap: stablax knows there are no
    distinct values without looking at any (the result shape is static); JAX asks for a
    concrete input (ConcretizationTypeError) as it does for every traced input."""
    return (
        call["fn"].startswith(("jnp.unique", "jnp.union1d", "jnp.intersect1d", "jnp.setdiff1d"))
        and ours["kind"] == "value"
        and _error(theirs)
        and theirs["type"] == "ConcretizationTypeError"
        and any(0 in s.get("array", [1]) for s in _arrays(call))
    )


def _insert_static_indices(call, ours, theirs, difference) -> bool:
    """jnp.insert computes where the entries go on the host, as NumPy: its indices must be
    concrete (TypeError when traced; JAX scatters with traced ones) and within the axis
    (NumPy's IndexError, checked before the values' shape; JAX clips them to the axis)."""
    return (
        call["fn"] == "jnp.insert"
        and _error(ours)
        and bool(
            re.search(
                r"^jnp\.insert: (?:the index argument must be concrete \(static\), not traced"
                r"|index -?\d+ is out of bounds for)",
                ours["message"],
            )
        )
    )


def _unique_weak_type(call, ours, theirs, difference) -> bool:
    """unique_* of a Python scalar: JAX's values lose the weak type for a complex scalar (its
    NaN rewrite of complex input, a jnp.where) and keep it for size=0 with a fill_value (its
    full_like of the empty result, where size > 0 goes through a where() that drops it);
    stablax keeps the input's weak type, and a fill_value makes the values strong. The set
    functions (setdiff1d, union1d, setxor1d) go through the same unique: they lose it for a
    complex scalar and keep it for size=0 with a fill_value."""
    if difference[0] != "diverge-weak-type":
        return False
    first = call["args"][0] if call["args"] else {}
    if call["fn"] in _SET_FNS:
        empty_filled = "fill_value" in call["kwargs"] and ours["value"].get("shape") == [0]
        return any("complex" in a for a in call["args"][:2]) or empty_filled
    if call["fn"] not in _UNIQUE_FNS:
        return False
    return "complex" in first or (
        "fill_value" in call["kwargs"] and ours["value"]["seq"][0]["shape"] == [0]
    )


def _searchsorted_sorter_shape(call, ours, theirs, difference) -> bool:
    """searchsorted with a sorter that is not 1-D or not of a's length: stablax raises NumPy's
    errors (TypeError, ValueError); JAX gathers with it anyway, clamping out-of-range positions
    (a value of some shape) or failing on a 0-d sorter with an IndexError."""
    return (
        call["fn"] == "jnp.searchsorted"
        and _error(ours)
        and bool(re.search(r"sorter must (?:be 1-dimensional|have a's length)", ours["message"]))
    )


def _put_along_axis_checks(call, ours, theirs, difference) -> bool:
    """put_along_axis checks its mode and its indices' dtype: an unknown mode is stablax's
    ValueError even where JAX returns an empty array unchanged without reading it, and boolean
    indices its TypeError where JAX's internal jit fails on them as traced boolean masks
    (NonConcreteBooleanIndexError)."""
    return (
        call["fn"] == "jnp.put_along_axis"
        and _error(ours)
        and bool(
            re.search(
                r"Unknown gather/scatter mode|indices must be of integer type, got bool",
                ours["message"],
            )
        )
        and (theirs["kind"] == "value" or theirs.get("type") == "NonConcreteBooleanIndexError")
    )


def _repeat_checks(call, ours, theirs, difference) -> bool:
    """jnp.repeat checks its counts as NumPy does: non-integer repeats (TypeError: no safe cast
    to int), negative repeats and a negative total_repeat_length (ValueError); JAX checks none
    of them where it need not gather with the counts (an empty axis, a total_repeat_length)."""
    return (
        call["fn"] == "jnp.repeat"
        and _error(ours)
        and bool(
            re.search(
                r"repeats must be integers, got|repeats may not contain negative values"
                r"|total_repeat_length must be non-negative",
                ours["message"],
            )
        )
    )


def _take_checks(call, ours, theirs, difference) -> bool:
    """jnp.take checks the indices' dtype first (JAX's ValueError), for empty indices too; JAX
    skips that check for empty indices and checks an empty axis first (IndexError). A take of
    empty indices from an empty axis has NumPy's shape, indices.shape + the other dimensions
    (JAX returns the indices' shape only)."""
    if call["fn"] != "jnp.take":
        return False
    if difference[0] == "diverge-shape":
        return any(0 in s.get("array", [1]) for s in _arrays(call))
    return (
        _error(ours)
        and "jnp.take: indices must be of integer type" in ours["message"]
        and (
            theirs["kind"] == "value"
            or theirs["message"].startswith("Cannot do a non-empty jnp.take() from an empty axis")
        )
    )


def _tri_k_overflow(call, ours, theirs, difference) -> bool:
    """jnp.tri (and tril/triu_indices_from) with a k outside the default integer: JAX converts
    k first (OverflowError); stablax clamps it to the corners (the mask is then all ones or all
    zeros, as NumPy's) and checks N and M (the array's rank)."""
    return (
        call["fn"] in ("jnp.tri", "jnp.tril_indices_from", "jnp.triu_indices_from")
        and _error(theirs)
        and theirs["type"] == "OverflowError"
        and bool(re.search(r"too large to convert to int(?:32|64)", theirs["message"]))
    )


def _set_fill_shape(call, ours, theirs, difference) -> bool:
    """A set operation's fill_value that does not broadcast to the (size,) result: stablax
    raises ValueError; JAX broadcasts the result against it (a result of another shape)."""
    return (
        call["fn"] in (*_UNIQUE_FNS, *_SET_FNS, "jnp.unique")
        and _error(ours)
        and bool(
            re.search(
                r"fill_value of shape .* does not broadcast to"
                r"|jnp\.unique: incompatible shapes for broadcasting",
                ours["message"],
            )
        )
    )


def _put_of_nothing(call, ours, theirs, difference) -> bool:
    """jnp.put with an empty array, index or value array: stablax checks the mode and the
    indices' dtype first (JAX's checks for non-empty arguments); JAX returns the array
    unchecked."""
    return (
        call["fn"] == "jnp.put"
        and _error(ours)
        and theirs["kind"] == "value"
        and bool(
            re.search(
                r"jnp\.put: (?:mode should be one of|indices must be of integer type)",
                ours["message"],
            )
        )
    )


def _unique_grad_without_size(call, ours, theirs, difference) -> bool:
    """Gradients through jnp.unique without size: JAX's come out all zeros, though the values
    are elements of the input and its own size= path gives them a gradient of one each (an
    accident of its concrete boolean-mask path); stablax gives the gradient of the selection
    (one per distinct value at its first occurrence) with or without size."""
    if call["fn"] != "jnp.unique":
        return False
    flat = ((theirs.get("value") or {}).get("values") or {}).get("flat", [1])
    return (
        call["mode"] == "grad"
        and call["kwargs"].get("size", {}).get("py") is None
        and _value_difference(difference)
        and all(v == 0 for v in flat)
    )


def _unique_size_of_empty_rows(call, ours, theirs, difference) -> bool:
    """jnp.unique along an axis with size= and no fill_value, where the slices along that axis
    are empty (another axis has length 0): JAX's sort path treats the input as one row and
    ignores size (results of length 1); stablax honours size, padding as documented."""
    return (
        call["fn"] == "jnp.unique"
        and difference[0] == "diverge-shape"
        and call["kwargs"].get("size", {}).get("py") is not None
        and call["kwargs"].get("axis", {}).get("py") is not None
        and call["kwargs"].get("fill_value", {}).get("py") is None
        and any(0 in s.get("array", [1]) for s in _arrays(call))
    )


def _delete_bool_scalar_obj(call, ours, theirs, difference) -> bool:
    """jnp.delete with a scalar bool obj: JAX reads True as the index 1 (operator.index) and
    deletes that entry; stablax takes a bool obj as a mask, as NumPy, so a 0-d one does not
    match the axis (ValueError, NumPy's class)."""
    return (
        call["fn"] == "jnp.delete"
        and isinstance(call["args"][1].get("py"), bool)
        and _error(ours)
        and "jnp.delete: a boolean mask must have shape" in ours["message"]
        and theirs["kind"] == "value"
    )


def _delete_unique_indices_out_of_bounds(call, ours, theirs, difference) -> bool:
    """jnp.delete with assume_unique_indices=True and indices out of bounds: JAX's fast path
    clips them into range and returns whatever that gives; stablax checks them, as NumPy
    (IndexError)."""
    return (
        call["fn"] == "jnp.delete"
        and call["kwargs"].get("assume_unique_indices", {}).get("py") is True
        and _error(ours)
        and ours["type"] == "IndexError"
        and "is out of bounds for axis" in ours["message"]
        and theirs["kind"] == "value"
    )


def _take_along_axis_mode_of_nothing(call, ours, theirs, difference) -> bool:
    """jnp.take_along_axis of empty arrays with a mode that is no gather mode ('constant'):
    JAX returns the empty result before it parses mode (it rejects the same mode on non-empty
    input, ValueError); stablax checks mode first, whatever the sizes."""
    return (
        call["fn"] == "jnp.take_along_axis"
        and _error(ours)
        and ours["message"].startswith("Unknown gather/scatter mode")
        and theirs["kind"] == "value"
        and any(0 in s.get("array", [1]) for s in _arrays(call))
    )


def _compress_fill_value_traced_size(call, ours, theirs, difference) -> bool:
    """jnp.extract/compress under jit with a size= array and a fill_value that does not
    broadcast to the selected slices: JAX fails on its traced size check
    (TracerBoolConversionError); stablax reads the concrete size and names the bad
    fill_value (ValueError)."""
    return (
        call["fn"] in ("jnp.extract", "jnp.compress")
        and call["mode"] != "eager"
        and _error(ours)
        and _error(theirs)
        and ours["type"] == "ValueError"
        and "fill_value of shape" in ours["message"]
        and theirs["type"] == "TracerBoolConversionError"
    )


def _compress_fill_value_of_more_axes(call, ours, theirs, difference) -> bool:
    """jnp.extract/compress with a fill_value of more axes than the selected slices: JAX's where
    broadcasts the fill with the whole array before it picks the rows, so its result gains the
    fill's leading axes and the rows are picked (clamped) along the fill's first axis:
    extract([True, False, True], arange(3), size=2, fill_value=[[9]]) is [[0, 9, 2], [0, 9, 2]]
    (an empty (0, 1) for size=0). stablax refuses such a fill (ValueError)."""
    found = _error(ours) and re.search(
        r"fill_value of shape (\([\d, ]*\)) does not broadcast to the selected slices, of shape "
        r"(\([\d, ]*\))",
        ours["message"],
    )
    return (
        call["fn"] in ("jnp.extract", "jnp.compress")
        and bool(found)
        and theirs["kind"] == "value"
        and len(re.findall(r"\d+", found[1])) > len(re.findall(r"\d+", found[2]))
    )


def _intersect1d_empty_padding_indices(call, ours, theirs, difference) -> bool:
    """intersect1d with return_indices and a size, of two empty arrays: JAX's index arrays come
    back empty (it skips its gather when nothing is sorted), breaking its own `size` contract;
    stablax gives `size` padding slots, as for every other input (JAX fails with a gather error
    when only one array is empty)."""
    return (
        call["fn"] == "jnp.intersect1d"
        and difference[0] == "diverge-shape"
        and bool(re.match(r"\[[12]\]: stablax \[\d+\] vs JAX \[0\]$", difference[1]))
    )


def _put_into_0d(call, ours, theirs, difference) -> bool:
    """jnp.put into a 0-d array: stablax writes its one element, as NumPy's np.put does (or
    checks the indices' type first); JAX 0.10.2 unravels the flat indices into the empty shape
    and fails there ("Cannot broadcast to shape with fewer dimensions ... shape=()")."""
    return (
        call["fn"] == "jnp.put"
        and _error(theirs)
        and bool(
            re.search(
                r"Cannot broadcast to shape with fewer dimensions.*shape=\(\)$", theirs["message"]
            )
        )
        and (
            ours["kind"] == "value"
            or (_error(ours) and "indices must be of integer type" in ours["message"])
        )
    )


RULES: list[Rule] = [
    ("put-into-0d", _put_into_0d, _put_into_0d.__doc__),
    ("unique-of-nothing", _unique_of_nothing, _unique_of_nothing.__doc__),
    ("insert-static-indices", _insert_static_indices, _insert_static_indices.__doc__),
    ("unique-weak-type", _unique_weak_type, _unique_weak_type.__doc__),
    ("put-along-axis-checks", _put_along_axis_checks, _put_along_axis_checks.__doc__),
    ("searchsorted-sorter-shape", _searchsorted_sorter_shape, _searchsorted_sorter_shape.__doc__),
    ("repeat-checks", _repeat_checks, _repeat_checks.__doc__),
    ("take-checks", _take_checks, _take_checks.__doc__),
    ("tri-k-overflow", _tri_k_overflow, _tri_k_overflow.__doc__),
    ("set-fill-shape", _set_fill_shape, _set_fill_shape.__doc__),
    ("put-of-nothing", _put_of_nothing, _put_of_nothing.__doc__),
    (
        "unique-grad-without-size",
        _unique_grad_without_size,
        _unique_grad_without_size.__doc__,
    ),
    (
        "unique-size-of-empty-rows",
        _unique_size_of_empty_rows,
        _unique_size_of_empty_rows.__doc__,
    ),
    ("delete-bool-scalar-obj", _delete_bool_scalar_obj, _delete_bool_scalar_obj.__doc__),
    (
        "delete-unique-indices-out-of-bounds",
        _delete_unique_indices_out_of_bounds,
        _delete_unique_indices_out_of_bounds.__doc__,
    ),
    (
        "take-along-axis-mode-of-nothing",
        _take_along_axis_mode_of_nothing,
        _take_along_axis_mode_of_nothing.__doc__,
    ),
    (
        "compress-fill-value-traced-size",
        _compress_fill_value_traced_size,
        _compress_fill_value_traced_size.__doc__,
    ),
    (
        "compress-fill-value-of-more-axes",
        _compress_fill_value_of_more_axes,
        _compress_fill_value_of_more_axes.__doc__,
    ),
    (
        "intersect1d-empty-padding-indices",
        _intersect1d_empty_padding_indices,
        _intersect1d_empty_padding_indices.__doc__,
    ),
]
