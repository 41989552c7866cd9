"""Rules for the order in which arguments are checked and the exception class raised for a
bad argument (lists, None, bytes, str, shapes, concrete values).
"""

from __future__ import annotations

import re

from tests.reliability.known_differences._shared import _BROADCAST, Rule, _error

_NEGATIVE = re.compile(r"(?i)negative dimension|nonnegative|non-negative")


def _list_input(call: dict, ours: dict, theirs: dict, difference: tuple[str, str]) -> bool:
    """JAX rejects a list or tuple passed for an array (jnp and lax alike; under its own jit, a
    list is a pytree of traced scalars that it then converts to NumPy); stablax converts it
    with asarray's rules, as NumPy does. Where stablax rejects it too (jnp.average, as JAX's
    ensure_arraylike), JAX may fail first on another check: an empty list has no traced
    leaves, so its axis check runs (ValueError)."""
    if (
        _error(theirs)
        and _error(ours)
        and "requires ndarray or scalar arguments, got <class 'list'>" in ours["message"]
        and any(a.get("as") == "list" for a in call["args"])
    ):
        return True
    if (
        _error(theirs)
        and theirs["type"] == "TracerArrayConversionError"
        and any(a.get("as") == "list" for a in call["args"])
    ):
        return True
    return _error(theirs) and bool(
        re.search(
            r"requires ndarray or scalar arguments, got <class '(?:list|tuple)'>"
            r"|Cannot determine dtype of \[(?:JitTracer|BatchTracer)"
            r"|Error interpreting argument to \w+ as a JAX value\. The problematic value is of "
            r"type <class '(?:list|tuple)'>"
            r"|^Cannot determine dtype of [\[(]"
            r"|of type '<class '(?:list|tuple)'>' is not a valid JAX type"
            # lax.unstack's asarray (lax's own, which takes arrays and scalars only)
            r"|^asarray: expected ArrayLike, got .* of type <class '(?:list|tuple)'>",
            theirs["message"],
        )
    )


def _both_broadcast(call: dict, ours: dict, theirs: dict, difference: tuple[str, str]) -> bool:
    """Both reject shapes that do not broadcast; the class JAX raises depends on which of its
    primitives meets the shapes first (TypeError in lax, ValueError in jnp helpers)."""
    return (
        _error(ours)
        and _error(theirs)
        and bool(_BROADCAST.search(ours["message"]))
        and bool(_BROADCAST.search(theirs["message"]))
    )


def _both_negative_dimensions(call, ours, theirs, difference) -> bool:
    """Both reject a negative dimension: stablax with NumPy's ValueError, JAX with whichever
    primitive sees it (a TypeError from iota or broadcast_in_dim)."""
    return (
        _error(ours)
        and _error(theirs)
        and bool(_NEGATIVE.search(ours["message"]))
        and bool(_NEGATIVE.search(theirs["message"]))
    )


def _static_error_first(call, ours, theirs, difference) -> bool:
    """stablax rejects a static argument or shape (ValueError/TypeError naming it) before it
    needs a traced value to be concrete; JAX asks for the concrete value first."""
    return (
        _error(ours)
        and ours["type"] in ("ValueError", "TypeError")
        and _error(theirs)
        and theirs["type"] in ("ConcretizationTypeError", "TracerIntegerConversionError")
    )


def _bytes_argument(call, ours, theirs, difference) -> bool:
    """bytes passed for a sequence (a shape, axes, a condition list): stablax raises TypeError
    (issue #15, C5: b'ab' is no shape); JAX iterates the bytes as the integers 97, 98. Where
    stablax refuses another argument first (reduce_xor's complex operand), JAX's error is about
    those integers (an axis 98 out of bounds)."""
    has_bytes = any("bytes" in a for a in [*call["args"], *call["kwargs"].values()])
    return (
        has_bytes
        and _error(ours)
        and ours["type"] == "TypeError"
        and (
            bool(re.search(r"got b'|got bytes|bytes|dtype \|S\d", ours["message"]))
            or (_error(theirs) and bool(re.search(r"\b9[78]\b", theirs["message"])))
        )
    )


def _both_need_concrete(call, ours, theirs, difference) -> bool:
    """Both ask for concrete values: stablax with ConcretizationTypeError naming the function,
    JAX with NonConcreteBooleanIndexError (an IndexError) from the boolean mask it uses
    internally."""
    return (
        _error(ours)
        and ours["type"] == "ConcretizationTypeError"
        and _error(theirs)
        and theirs["type"] == "NonConcreteBooleanIndexError"
    )


def _checked_arguments(call, ours, theirs, difference) -> bool:
    """stablax checks an argument JAX does not look at, or looks at later: padtype_to_pads'
    window_shape (an int is no sequence; JAX zips over the empty input shape), index_take's
    index arrays (JAX fails in an internal expand_dims), a flag given as an array (JAX: an
    unhashable static argument), ragged_dot's unsupported group_offset (both raise it),
    lax.composite's name (checked when the composite is made; JAX reads it when traced), a str
    number of sections for split (JAX and NumPy read '2' with int()),
    axes given as a str (TypeError, as NumPy's reductions; JAX tries len('a')), isin's
    method (JAX reads it only when both inputs are non-empty), trim_zeros' trim (JAX returns
    a 0-d input without reading it; NumPy fails on None.lower()) and a dynamic slice's
    allow_negative_indices that is no bool (JAX takes its truth value), and the shapes given to
    conv_dimension_numbers (JAX reads only their lengths when dimension_numbers is None)."""
    if not _error(ours):
        return False
    fn, message = call["fn"], ours["message"]
    return (
        (
            fn in ("lax.padtype_to_pads", "lax.conv_dimension_numbers")
            and "must be a sequence of integers" in message
        )
        or (fn == "lax.index_take" and "needs one 1-D integer index array per axis" in message)
        or (
            "truth value of an array with more than one element is ambiguous" in message
            and _error(theirs)
            and "unhashable type" in theirs["message"]
        )
        or (fn.startswith("lax.ragged_dot") and "Unimplemented group_offset support" in message)
        or (fn == "lax.composite" and message.startswith("lax.composite: name must be"))
        or "indices_or_sections must be an integer or a sequence of integers, got '" in message
        or "allow_negative_indices must be a bool" in message
        or (
            ours["type"] == "TypeError"
            and bool(re.search(r"axes must be a sequence of integers, got '", message))
        )
        or (fn == "jnp.isin" and "must be one of ['auto', 'compare_all'" in message)
        or (fn == "jnp.trim_zeros" and "trim must be a string of 'f' and 'b'" in message)
    )


def _constants_under_jit(call, ours, theirs, difference) -> bool:
    """A function that needs concrete values (trim_zeros, mask_indices's nonzero, nonzero and
    its kin without size), under jit with no traced argument:
    stablax reads the closed-over NumPy constants, which stay concrete (as they were in JAX
    before it began tracing them); JAX 0.10.2 traces them and raises ConcretizationTypeError.
    Likewise a static integer given as a closed-over 0-d array (extract's size, array's
    ndmin): stablax reads its value; JAX fails converting it to a bool under jit."""
    static_array = call["mode"] == "jit" and any(
        isinstance(call["kwargs"].get(k), dict) and "array" in call["kwargs"][k]
        for k in ("size", "ndmin")
    )
    if static_array and call["fn"] in ("jnp.extract", "jnp.array") and ours["kind"] == "value":
        return _error(theirs) and theirs["type"] == "TracerBoolConversionError"
    return (
        call["mode"] == "jit"
        and call["fn"]
        in (
            "jnp.trim_zeros",
            "jnp.mask_indices",
            "jnp.nonzero",
            "jnp.where",
            "jnp.argwhere",
            "jnp.flatnonzero",
        )
        and ours["kind"] == "value"
        and _error(theirs)
        and theirs["type"] == "ConcretizationTypeError"
        and not any("array" in a and a.get("as") == "array" for a in call["args"])
    )


def _none_for_array(call, ours, theirs, difference) -> bool:
    """None passed where an array is expected: stablax raises TypeError (NumPy's class for a
    value that is no number; asarray's or the function's own check); JAX's jnp.array raises
    ValueError."""
    return (
        _error(ours)
        and ours["type"] == "TypeError"
        and bool(
            re.search(
                r"Value None of type NoneType is not a valid stablax array type|, got None\b",
                ours["message"],
            )
        )
        and _error(theirs)
        and theirs["message"].startswith("None is not a valid value for jnp.array")
    )


def _callable_checked_first(call, ours, theirs, difference) -> bool:
    """A function argument that is not callable, among other bad arguments: stablax checks the
    callable first (TypeError naming it); JAX looks at the others first and raises about them
    (lax.map(1.5, 1.5): scan's ValueError on the 0-d xs)."""
    return (
        _error(ours)
        and ours["type"] == "TypeError"
        and bool(re.search(r": \w+ must be callable, got ", ours["message"]))
        and _error(theirs)
    )


def _rank_before_overflow(call, ours, theirs, difference) -> bool:
    """A Python int beyond the default integer type passed as an operand where another argument
    is invalid too (lax.unstack(2**63), lax.argmin(2**31, -1, ...) without x64, ragged_dot's
    group_sizes, approx_max_k with a traced k): stablax reports the other problem before
    converting the int; JAX converts its operands first and raises OverflowError."""
    bound = 2**63 if call["x64"] else 2**31
    big = any(isinstance(a.get("py"), int) and abs(a["py"]) >= bound for a in call["args"])
    return (
        big
        and _error(ours)
        and _error(theirs)
        and theirs["type"] == "OverflowError"
        and "too large to convert" in theirs["message"]
    )


def _accuracy_argument(call, ours, theirs, difference) -> bool:
    """An accuracy= that is no AccuracyMode or Tolerance (a str, a number): stablax raises
    TypeError naming the argument; JAX raises NotImplementedError ("Accuracy a not
    supported") as if the value were a mode it lacks, or ignores it (lax.logistic)."""
    return (
        _error(ours)
        and ours["type"] == "TypeError"
        and "accuracy must be an AccuracyMode or a Tolerance" in ours["message"]
        and (
            theirs["kind"] == "value"
            or (
                theirs["type"] == "NotImplementedError"
                and bool(re.match(r"Accuracy .* not supported", theirs["message"]))
            )
        )
    )


def _str_for_sequence(call, ours, theirs, difference) -> bool:
    """A str passed for a sequence of indices or sizes (lax.dynamic_slice(x, 'ab', ...)):
    stablax raises TypeError (a str is no sequence of integers, as bytes are not); JAX takes
    its characters as the entries and fails later on their number or type."""
    has_str = any(isinstance(a.get("py"), str) for a in [*call["args"], *call["kwargs"].values()])
    return (
        has_str
        and _error(ours)
        and ours["type"] == "TypeError"
        and bool(
            re.search(r"must be a sequence(?: of integers)?, got (?:str\b|')", ours["message"])
        )
        and _error(theirs)
    )


def _overflow_before_shape(call, ours, theirs, difference) -> bool:
    """A Python int past int32/int64 given where an array of another shape is wrong: both
    refuse the call; JAX converts the int first (OverflowError), stablax checks the shape
    first (its documented ValueError or TypeError)."""
    big = any(
        isinstance(a.get("py"), int) and not isinstance(a.get("py"), bool) and abs(a["py"]) >= 2**31
        for a in [*call["args"], *call["kwargs"].values()]
        if isinstance(a, dict)
    )
    return (
        big
        and _error(ours)
        and ours["type"] in ("ValueError", "TypeError")
        and _error(theirs)
        and theirs["type"] == "OverflowError"
    )


def _str_axis_name(call, ours, theirs, difference) -> bool:
    """A reduction's axis given as a str: stablax raises TypeError (an axis is an integer, as
    NumPy's); JAX 0.10.2 takes the str for a named axis and raises NameError (unbound)."""
    return (
        _error(ours)
        and ours["type"] == "TypeError"
        and "axis must be an integer, a tuple of integers or None, got '" in ours["message"]
        and _error(theirs)
        and theirs["type"] == "NameError"
    )


def _array_too_large(call, ours, theirs, difference) -> bool:
    """An array whose size in bytes overflows int64 (fromfunction over (2**62, 4) under x64):
    stablax refuses it where it is built (ValueError naming the shape); JAX builds it lazily in
    its trace and fails first on something else (here the function's arity)."""
    return (
        _error(ours)
        and ours["type"] == "ValueError"
        and "do not fit in a signed 64-bit integer" in ours["message"]
        and _error(theirs)
    )


RULES: list[Rule] = [
    ("array-too-large", _array_too_large, _array_too_large.__doc__),
    ("checked-arguments", _checked_arguments, _checked_arguments.__doc__),
    ("both-need-concrete", _both_need_concrete, _both_need_concrete.__doc__),
    ("static-error-first", _static_error_first, _static_error_first.__doc__),
    ("bytes-argument", _bytes_argument, _bytes_argument.__doc__),
    ("list-for-array", _list_input, _list_input.__doc__),
    ("broadcast-error-class", _both_broadcast, _both_broadcast.__doc__),
    ("negative-dimension-class", _both_negative_dimensions, _both_negative_dimensions.__doc__),
    ("constants-under-jit", _constants_under_jit, _constants_under_jit.__doc__),
    ("none-for-array", _none_for_array, _none_for_array.__doc__),
    ("callable-checked-first", _callable_checked_first, _callable_checked_first.__doc__),
    ("rank-before-overflow", _rank_before_overflow, _rank_before_overflow.__doc__),
    ("accuracy-argument", _accuracy_argument, _accuracy_argument.__doc__),
    ("str-for-sequence", _str_for_sequence, _str_for_sequence.__doc__),
    ("overflow-before-shape", _overflow_before_shape, _overflow_before_shape.__doc__),
    ("str-axis-name", _str_axis_name, _str_axis_name.__doc__),
]
