"""Rules for differences caused by JAX's own internals: errors escaping its implementation,
missing batching or differentiation rules, and artefacts of how it computes.
"""

from __future__ import annotations

import re

import numpy as np

from tests.reliability.known_differences._shared import (
    _SET_FNS,
    _UNIQUE_FNS,
    Rule,
    _error,
    _given,
    _value_difference,
)

# Exception classes JAX lets escape from its internals on bad input (never documented API errors).
_JAX_INTERNAL_TYPES = {
    "AttributeError",
    "KeyError",
    "AssertionError",
    "ZeroDivisionError",
    "RuntimeError",
    "MLIRError",
    "JaxRuntimeError",
    "XlaRuntimeError",
    "UnboundLocalError",
    "RecursionError",
    "StopIteration",
}


# Messages of JAX's internals rather than of its API checks.
_JAX_INTERNAL_MESSAGE = re.compile(
    "|".join(
        [
            r"safe_(?:zip|map)\(\) argument",
            r"safe_zip requires at least 1 argument",
            r"Non-hashable static arguments",
            r"Invalid argument to dtype",
            r"got an unexpected keyword argument",
            r"len\(\) of unsized object",
            r"has no len\(\)",
            r"Error interpreting argument to <function",
            r"object is not (?:iterable|subscriptable|callable)",
            r"(?:tuple|list) indices must be integers",
            r"cannot unpack non-iterable",
            r"unsupported operand type",
            r"incompatible function arguments",
            r"XLA operations do not allow negative axes",
            r"transpose permutation isn't a permutation",
            r"(?:rev|iota|broadcast_in_dim) (?:dimensions|shape) must",
            r"Only integer scalar arrays can be converted to a scalar index",
            r"object cannot be interpreted as an integer",
            r"argument must be a string or a real number",
            r"not supported between instances of",
            r"invalid literal for int\(\)",
            r"\bjaxlib\b|_src\.",
            r"(?:tuple|list)(?: assignment)? index out of range",
            r"An overflow was encountered while parsing an argument to a jitted computation",
            r"Python int too large to convert to C",
            r"cannot convert float infinity to integer",
            r"Too many leaves for PyTreeDef",
            r"operands could not be broadcast together with shapes",
            r"KeyError\(<class",
            r"Value after \* must be an iterable",
            r"setting an array element with a sequence",
            r"too many indices for array",
            r"The truth value of an empty array is ambiguous",
            r"(?:not enough|too many) values to unpack",
            r"zero-size array to reduction operation (?:max|min) which has no identity",
            r"must have __hash__ and __eq__ methods",
            r"Cannot lower jaxpr with verifier errors",
            r"The truth value of an array with more than one element is ambiguous",
            r"Slice size at index \d+ in gather op is out of range",
            r"^index is out of bounds for axis \d+ with size 0$",
            r"cannot fit 'int' into an index-sized integer",
            r"`out_sharding` argument of jnp\.broadcast_to",
            r"slice limit_indices must be greater than or equal to start_indices",
            r"^unhashable type: '(?:numpy\.ndarray|jaxlib\._jax\.ArrayImpl)'$",
            r"reshape dimensions must be a permutation of operand dimensions",
        ]
    )
)


_NUMPY_INDEX_ERROR = re.compile(
    r"index -?\d+ is out of bounds for axis \d+ with size \d+"
    r"|only integers, slices \(`:`\), ellipsis"
    r"|list assignment index out of range"
    r"|arrays used as indices must be of integer \(or boolean\) type"
)


def _jax_internal(call: dict, ours: dict, theirs: dict, difference: tuple[str, str]) -> bool:
    """JAX failed inside its own code; stablax raised a documented error (checked before)."""
    if not _error(theirs) or theirs.get("user_raised"):
        return False
    return theirs["type"] in _JAX_INTERNAL_TYPES or bool(
        _JAX_INTERNAL_MESSAGE.search(theirs["message"])
    )


def _bad_axis_index_error(call, ours, theirs, difference) -> bool:
    """A bad axis: JAX indexes a shape tuple or a NumPy permutation with it and lets the
    IndexError of NumPy or Python escape; stablax checks the axis and raises ValueError naming
    it (NumPy's AxisError is a ValueError too), or TypeError for a non-integer axis (as NumPy)."""
    return (
        _error(ours)
        and ours["type"] in ("ValueError", "TypeError")
        and bool(
            re.search(r"\baxis\b|\baxes\b|cannot be interpreted as an integer", ours["message"])
        )
        and _error(theirs)
        and theirs["type"] == "IndexError"
        and bool(_NUMPY_INDEX_ERROR.search(theirs["message"]))
    )


def _jax_traced_to_numpy(call, ours, theirs, difference) -> bool:
    """JAX converts a traced argument to NumPy inside its own implementation
    (TracerArrayConversionError) where stablax checks the arguments and raises its documented
    error."""
    return (
        _error(ours)
        and _error(theirs)
        and theirs["type"] == "TracerArrayConversionError"
        and ours["type"] != "TracerArrayConversionError"
    )


def _jax_missing_rule(call, ours, theirs, difference) -> bool:
    """JAX has no batching (or differentiation) rule for the op, or none for a batched
    reduce_window init_value (which stablax batches) or a non-scalar lax.reduce init value
    under vmap (a bare NotImplementedError), and raises NotImplementedError before it looks at
    the arguments; stablax checks them and raises its documented error."""
    return (
        _error(ours)
        and _error(theirs)
        and theirs["type"] == "NotImplementedError"
        and bool(
            re.search(
                r"(?:Batching|Differentiation) rule for '\w+' not implemented"
                r"|^\w+ JVP not implemented"
                r"|^ragged_dot vmap over any dim but 0 - NYI"
                r"|^reduce_window batching is not implemented for initial values$"
                # a bare NotImplementedError: lax.reduce's batching of non-scalar init values
                r"|^$",
                theirs["message"],
            )
        )
    )


def _jax_lax_error_in_jnp(call, ours, theirs, difference) -> bool:
    """A jnp function of JAX passes operands of different ranks to a lax op of its own
    (TypeError "sub: arrays must have the same number of dimensions", nanvar with a `mean`);
    stablax broadcasts them as NumPy does."""
    return (
        call["fn"].startswith("jnp.")
        and ours["kind"] == "value"
        and _error(theirs)
        and bool(
            re.match(r"\w+: arrays must have the same number of dimensions", theirs["message"])
        )
    )


def _jax_value_artefacts(call, ours, theirs, difference) -> bool:
    """Values where JAX's answer is an artefact of its implementation: ldexp's gradient (2**n
    everywhere; JAX differentiates its bit manipulation: 1 at 0 and infinities, NaN where the
    result overflows), unique_values' gradient without `size` (JAX computes the values from
    the concrete input with NumPy, so no gradient reaches them; with `size` both give it to
    each value's first occurrence; unique_all, unique_counts, unique_inverse and the set
    operations alike),
    polydiv's eliminated remainder coefficients (exact zeros in stablax; JAX leaves the
    rounding residue of u[k] - (u[k] / v[0]) * v[0]; and where v[0] is 0, NaN from inf * 0, as
    NumPy and JAX's own eager polydiv, where JAX's jit of bool operands leaves u[k]),
    array_repr's text (JAX names its class ArrayImpl; stablax writes the repr of the array,
    `Array(...)`), the cross product of 16-bit floats (NumPy's and stablax's products cancel
    exactly in cross(a, a); XLA's CPU rounding of JAX's leaves residues of about 1e-4)."""
    fn, detail = call["fn"], difference[1]
    if not _value_difference(difference):
        return False
    if fn == "jnp.ldexp" and call["mode"] == "grad":
        return True
    if fn in (*_UNIQUE_FNS, *_SET_FNS) and call["mode"] == "grad":
        return "size" not in call["kwargs"]
    if fn == "jnp.polydiv":
        return bool(re.match(r"\[1\]: \w+ element \d+: (?:-?0\.0|nan) vs JAX", detail))
    if fn in ("jnp.cross", "jnp.linalg.cross"):
        return bool(re.search(r"\bb?float16 element \d+: -?0\.0 vs JAX", detail))
    return fn == "jnp.array_repr" and "JAX {'scalar': 'ArrayImpl(" in detail


def _jax_dot_weak_complex(call, ours, theirs, difference) -> bool:
    """With x64, JAX's jnp.dot of a complex64 array and a Python complex asks lax.dot_general for
    a complex64 result of its complex128 operand and then rejects its own request; stablax
    multiplies in complex64, the weak scalar's promotion."""
    return (
        call["fn"] == "jnp.dot"
        and ours["kind"] == "value"
        and _error(theirs)
        and "`preferred_element_type` must not be narrower than the original type"
        in theirs["message"]
        and call["kwargs"].get("preferred_element_type", {"py": None}).get("py") is None
    )


def _jax_unsigned_constant(call, ours, theirs, difference) -> bool:
    """vander with N=0 of an unsigned array: JAX forms its exponent constant N - 1 = -1 in the
    unsigned dtype (OverflowError); NumPy and stablax return the (n, 0) result."""
    return (
        call["fn"] == "jnp.vander"
        and ours["kind"] == "value"
        and _error(theirs)
        and bool(re.match(r"Python integer -1 out of bounds for uint", theirs["message"]))
    )


def _jax_narrow_int_kind(call, ours, theirs, difference) -> bool:
    """Reductions of int4/uint4 (nanprod, prod, sum, nanstd): JAX promotes integers by NumPy's
    dtype kind, which is 'V' for ml_dtypes' narrow integers (ValueError) before any other
    check; stablax reduces them (or reports the arguments' own errors)."""
    return _error(theirs) and theirs["message"].startswith("Invalid integer data type 'V'")


def _jax_vdot_preferred_type(call, ours, theirs, difference) -> bool:
    """vdot of a small integer array and a Python int: JAX asks its dot for a result type
    narrower than the one it promotes to (TypeError); stablax computes it."""
    return (
        call["fn"] == "jnp.vdot"
        and ours["kind"] == "value"
        and _error(theirs)
        and "`preferred_element_type` must not be narrower" in theirs["message"]
    )


def _two_bit_concatenate(call, ours, theirs, difference) -> bool:
    """Concatenating 2-bit integers aborts XLA:CPU (JAX's process dies): stablax's concatenate
    raises TypeError in its shape rule instead, also where JAX avoids the op (it reshapes the
    rows of a single array in vstack and friends)."""
    return _error(ours) and bool(
        re.search(r"concatenate: does not accept dtype u?int2 \(XLA's limit\)", ours["message"])
    )


def _numpy_reshape(call, ours, theirs, difference) -> bool:
    """jnp.reshape of a NumPy array into a shape of another size: JAX hands NumPy input to
    np.reshape (NumPy's ValueError); stablax raises the TypeError JAX raises for its arrays."""
    return (
        call["fn"] == "jnp.reshape"
        and _error(ours)
        and ours["type"] == "TypeError"
        and "cannot reshape array of shape" in ours["message"]
        and _error(theirs)
        and theirs["message"].startswith("cannot reshape array of size")
    )


def _pruned_overflowing_int(call, ours, theirs, difference) -> bool:
    """logspace/geomspace of no samples (num=0) from a Python int outside int32: JAX's jit drops
    the arguments its empty result does not use before it converts them, so it never sees the
    overflow; stablax converts start and stop first and raises the OverflowError that JAX
    raises for any other num."""
    num = call["kwargs"].get("num", call["args"][2] if len(call["args"]) > 2 else None)
    return (
        call["fn"] in ("jnp.logspace", "jnp.geomspace")
        and isinstance(num, dict)
        and num.get("py") == 0
        and _error(ours)
        and ours["type"] == "OverflowError"
        and theirs["kind"] == "value"
    )


def _jit_folded_float_to_uint64(call, ours, theirs, difference) -> bool:
    """astype of a Python float outside the target integer type's range under jit (2**64 to
    uint64, -2.5 to uint32): XLA folds the constant conversion (to 0, or wrapping -2 to
    2**32 - 2), while JAX's eager call (and its jit of the same value as an argument)
    saturates, as stablax does everywhere."""
    if call["fn"] != "jnp.astype" or call["mode"] != "jit" or not call["args"]:
        return False
    value = call["args"][0]
    dtype = ((ours.get("value") or {}).get("dtype")) or ""
    if not isinstance(value, dict) or not isinstance(value.get("py"), float):
        return False
    if not dtype.startswith(("int", "uint")) or dtype not in np.sctypeDict:
        return False
    info = np.iinfo(dtype)
    return not info.min <= value["py"] < info.max + 1 and theirs["kind"] == "value"


def _jax_attribute_overflow(call, ours, theirs, difference) -> bool:
    """A slice stride of 2**63 or more: JAX hands it to MLIR's 64-bit attribute builder, which
    fails with nanobind's "incompatible function arguments" (an internal TypeError), or under
    jit its shape rule fails to read the Python ints as integers ("slice strides must have
    every element be an integer type, got (<class 'int'>, ...)"); stablax takes the first
    element, as NumPy's x[lo:hi:stride] does."""
    return (
        call["fn"] in ("lax.slice", "lax.slice_in_dim")
        and ours["kind"] == "value"
        and _error(theirs)
        and bool(
            re.search(
                r"get\(\): incompatible function arguments"
                r"|slice strides must have every element be an integer type, got \(<class 'int'>",
                theirs["message"],
            )
        )
    )


def _pad_grad_unsigned_widths(call, ours, theirs, difference) -> bool:
    """The gradient of a constant jnp.pad of a bfloat16 array with pad widths given as an
    unsigned integer array: every input element appears once in the output, so the slope of
    its sum is 1, stablax's answer; JAX 0.10.2 returns zeros (its own float32 and int-width
    cases give 1)."""

    def flat(outcome):
        return ((outcome.get("value") or {}).get("values") or {}).get("flat")

    widths = _given(call, 1, "pad_width")
    return (
        call["fn"] == "jnp.pad"
        and call["mode"] == "grad"
        and isinstance(widths, dict)
        and widths.get("dtype", "").startswith("uint")
        and bool(flat(ours))
        and set(flat(ours)) == {1.0}
        and set(flat(theirs) or []) == {0.0}
    )


def _numpy_passthrough_result(call, ours, theirs, difference) -> bool:
    """apply_along_axis with a func1d that returns its argument, and reshape of a NumPy array
    with order=None: JAX hands back a NumPy array (its vmap returns the unbatched input object
    as is; its reshape forwards to ndarray.reshape, where None means 'C'); stablax returns an
    Array, as JAX documents, with the same values (and refuses order=None, as JAX does for
    its own arrays). With copy=False JAX's reshape hands back the reshaped NumPy array too."""
    if call["fn"] in ("jnp.apply_along_axis", "jnp.reshape") and ours["kind"] == "value":
        return (
            difference[0] == "diverge-structure"
            and "ndarray" in theirs["value"]
            and ours["value"].get("values") == theirs["value"].get("values")
        )
    return (
        call["fn"] == "jnp.reshape"
        and call["args"][0].get("as") == "numpy"
        and call["kwargs"].get("order") == {"py": None}
        and _error(ours)
        and "Unexpected value for 'order' argument: None" in ours["message"]
        and "ndarray" in theirs["value"]
    )


def _tile_rep_beyond_int64(call, ours, theirs, difference) -> bool:
    """tile with a repetition count of 2**63 or more: JAX multiplies the counts into a float64
    shape and fails with a TypeError about it; stablax says the result is too large."""
    return (
        call["fn"] == "jnp.tile"
        and _error(ours)
        and ours["type"] == "ValueError"
        and "is too large" in ours["message"]
        and _error(theirs)
        and "Shapes must be 1D sequences of concrete values of integer type" in theirs["message"]
    )


def _einsum_array_as_subscripts(call, ours, theirs, difference) -> bool:
    """einsum/einsum_path in the interleaved form with an array where a subscript list belongs:
    opt_einsum iterates the array as a list of subscripts (an empty one is none at all) and
    then fails on the operands; stablax wants a list of integer subscripts (TypeError)."""
    args = call["args"]
    return (
        call["fn"] in ("jnp.einsum", "jnp.einsum_path")
        and len(args) > 1
        and isinstance(args[1], dict)
        and "array" in args[1]
        and _error(ours)
        and "each operand must be followed by a list of integer subscripts" in ours["message"]
    )


def _interp_narrow_xp_finfo(call, ours, theirs, difference) -> bool:
    """jnp.interp with xp of an ml_dtypes float (bfloat16, float8): stablax interpolates; JAX
    0.10.2 takes its epsilon from NumPy's own np.finfo(xp.dtype), which does not know the
    ml_dtypes types ("data type <class 'ml_dtypes.bfloat16'> not inexact"): an artefact, as
    float16 xp works in JAX."""
    return (
        call["fn"] == "jnp.interp"
        and ours["kind"] == "value"
        and _error(theirs)
        and theirs["type"] == "ValueError"
        and bool(
            re.match(
                r"data type <class 'ml_dtypes\.(?:bfloat16|float8_\w+|float4_\w+|float6_\w+)'> "
                r"not inexact$",
                theirs["message"],
            )
        )
    )


def _spacing_float8_signbit(call, ours, theirs, difference) -> bool:
    """jnp.spacing of an 8-bit float (float8_e4m3fn, ...): stablax gives ml_dtypes' np.spacing;
    JAX 0.10.2 builds it on its own copysign, whose signbit takes only 16-, 32- and 64-bit
    types (NotImplementedError), though jnp.spacing itself has no such limit."""
    return (
        call["fn"] == "jnp.spacing"
        and ours["kind"] == "value"
        and _error(theirs)
        and theirs["type"] == "NotImplementedError"
        and theirs["message"] == "jax.numpy.signbit only supports 16, 32, and 64-bit types."
    )


def _signbit_narrow_float(call, ours, theirs, difference) -> bool:
    """jnp.signbit of a float narrower than 16 bits (float8_*, float4_e2m1fn): stablax gives the
    sign bit, as NumPy's np.signbit on ml_dtypes (False throughout for the unsigned
    float8_e8m0fnu); JAX 0.10.2 has no integer type to bitcast such widths to and refuses them
    (NotImplementedError)."""
    return (
        call["fn"] == "jnp.signbit"
        and ours["kind"] == "value"
        and _error(theirs)
        and theirs["type"] == "NotImplementedError"
        and theirs["message"] == "jax.numpy.signbit only supports 16, 32, and 64-bit types."
    )


def _stop_gradient_literal(call, ours, theirs, difference) -> bool:
    """lax.stop_gradient of a NumPy integer or bool scalar, outside any transformation:
    stablax returns the object itself (there is no derivative to stop); JAX 0.10.2 returns it
    wrapped in its internal literal class (TypedNdArray, a 0-d ndarray), of the same value."""
    if call["fn"] != "lax.stop_gradient" or difference[0] != "diverge-structure":
        return False
    mine, jax_value = ours.get("value", {}), theirs.get("value", {})
    values = (jax_value.get("values") if isinstance(jax_value, dict) else None) or {}
    flat = values.get("ints", values.get("flat"))
    return (
        "scalar" in mine
        and "ndarray" in jax_value
        and jax_value.get("shape") == []
        and flat is not None
        and flat[0] == mine["scalar"]
    )


def _map_of_no_output_in_whole_batches(call, ours, theirs, difference) -> bool:
    """lax.map with batch_size dividing the data and an f that returns nothing (None): stablax
    returns None, as JAX does without batch_size or with a remainder; JAX 0.10.2's whole-batch
    path vmaps f over the (empty) outputs and raises vmap's ValueError."""
    return (
        call["fn"] == "lax.map"
        and ours["kind"] == "value"
        and ours["value"] == {"scalar": None}
        and _error(theirs)
        and "vmap wrapped function must be passed at least one argument" in theirs["message"]
    )


def _repeat_numpy_bool_count(call, ours, theirs, difference) -> bool:
    """jnp.repeat of a scalar with a NumPy bool repeat count (np.True_): stablax counts it as
    1, as NumPy and JAX's own Python-bool and array paths do; JAX 0.10.2's scalar path puts
    the NumPy bool into a shape tuple, which its shape check refuses."""
    return (
        call["fn"] == "jnp.repeat"
        and ours["kind"] == "value"
        and _error(theirs)
        and "Shapes must be 1D sequences of concrete values of integer type" in theirs["message"]
        and bool(re.search(r"np\.(?:True|False)_", theirs["message"]))
    )


RULES: list[Rule] = [
    ("jax-attribute-overflow", _jax_attribute_overflow, _jax_attribute_overflow.__doc__),
    ("pad-grad-unsigned-widths", _pad_grad_unsigned_widths, _pad_grad_unsigned_widths.__doc__),
    (
        "map-of-no-output-in-whole-batches",
        _map_of_no_output_in_whole_batches,
        _map_of_no_output_in_whole_batches.__doc__,
    ),
    ("repeat-numpy-bool-count", _repeat_numpy_bool_count, _repeat_numpy_bool_count.__doc__),
    ("stop-gradient-literal", _stop_gradient_literal, _stop_gradient_literal.__doc__),
    ("jax-value-artefacts", _jax_value_artefacts, _jax_value_artefacts.__doc__),
    ("jax-lax-error-in-jnp", _jax_lax_error_in_jnp, _jax_lax_error_in_jnp.__doc__),
    ("jax-missing-rule", _jax_missing_rule, _jax_missing_rule.__doc__),
    ("jax-traced-to-numpy", _jax_traced_to_numpy, _jax_traced_to_numpy.__doc__),
    ("bad-axis-index-error", _bad_axis_index_error, _bad_axis_index_error.__doc__),
    ("jax-internal-error", _jax_internal, _jax_internal.__doc__),
    ("jax-dot-weak-complex", _jax_dot_weak_complex, _jax_dot_weak_complex.__doc__),
    ("jax-unsigned-constant", _jax_unsigned_constant, _jax_unsigned_constant.__doc__),
    ("jax-narrow-int-kind", _jax_narrow_int_kind, _jax_narrow_int_kind.__doc__),
    ("jax-vdot-preferred-type", _jax_vdot_preferred_type, _jax_vdot_preferred_type.__doc__),
    ("two-bit-concatenate", _two_bit_concatenate, _two_bit_concatenate.__doc__),
    ("numpy-reshape", _numpy_reshape, _numpy_reshape.__doc__),
    (
        "pruned-overflowing-int",
        _pruned_overflowing_int,
        _pruned_overflowing_int.__doc__,
    ),
    (
        "jit-folded-float-to-uint64",
        _jit_folded_float_to_uint64,
        _jit_folded_float_to_uint64.__doc__,
    ),
    (
        "numpy-passthrough-result",
        _numpy_passthrough_result,
        _numpy_passthrough_result.__doc__,
    ),
    (
        "tile-rep-beyond-int64",
        _tile_rep_beyond_int64,
        _tile_rep_beyond_int64.__doc__,
    ),
    (
        "einsum-array-as-subscripts",
        _einsum_array_as_subscripts,
        _einsum_array_as_subscripts.__doc__,
    ),
    ("interp-narrow-xp-finfo", _interp_narrow_xp_finfo, _interp_narrow_xp_finfo.__doc__),
    ("spacing-float8-signbit", _spacing_float8_signbit, _spacing_float8_signbit.__doc__),
    ("signbit-narrow-float", _signbit_narrow_float, _signbit_narrow_float.__doc__),
]
