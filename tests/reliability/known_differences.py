"""Where stablax deliberately differs from JAX 0.10.2, with the reason: each rule says which
calls it covers; the comparison counts a covered difference as explained, not as a finding.

A rule is (name, predicate(call, ours, theirs, difference), reason). `ours` and `theirs` are the
outcomes of fuzz_worker.py; `difference` is (category, detail) from fuzz_compare.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np

from tests.reliability import fuzz_values

Rule = tuple[str, Callable[[dict, dict, dict, tuple[str, str]], bool], str]

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
            r"^unhashable type: 'numpy\.ndarray'$",
            r"reshape dimensions must be a permutation of operand dimensions",
        ]
    )
)


def _error(outcome: dict) -> bool:
    return outcome["kind"] == "error"


def _jax_internal(call: dict, ours: dict, theirs: dict, difference: tuple[str, str]) -> bool:
    """JAX failed inside its own code; stablax raised a documented error (checked before)."""
    if not _error(theirs) or theirs.get("user_raised"):
        return False
    return theirs["type"] in _JAX_INTERNAL_TYPES or bool(
        _JAX_INTERNAL_MESSAGE.search(theirs["message"])
    )


def _list_input(call: dict, ours: dict, theirs: dict, difference: tuple[str, str]) -> bool:
    """JAX rejects a list or tuple passed for an array (jnp and lax alike; under its own jit, a
    list is a pytree of traced scalars that it then converts to NumPy); stablax converts it
    with asarray's rules, as NumPy does."""
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


_BROADCAST = re.compile(r"(?i)incompatible shapes for broadcasting|cannot broadcast|broadcast")


def _both_broadcast(call: dict, ours: dict, theirs: dict, difference: tuple[str, str]) -> bool:
    """Both reject shapes that do not broadcast; the class JAX raises depends on which of its
    primitives meets the shapes first (TypeError in lax, ValueError in jnp helpers)."""
    return (
        _error(ours)
        and _error(theirs)
        and bool(_BROADCAST.search(ours["message"]))
        and bool(_BROADCAST.search(theirs["message"]))
    )


_NEGATIVE = re.compile(r"(?i)negative dimension|nonnegative|non-negative")


def _both_negative_dimensions(call, ours, theirs, difference) -> bool:
    """Both reject a negative dimension: stablax with NumPy's ValueError, JAX with whichever
    primitive sees it (a TypeError from iota or broadcast_in_dim)."""
    return (
        _error(ours)
        and _error(theirs)
        and bool(_NEGATIVE.search(ours["message"]))
        and bool(_NEGATIVE.search(theirs["message"]))
    )


def _fn(*names: str) -> Callable[[dict], bool]:
    wanted = set(names)
    return lambda call: call["fn"] in wanted


def _arrays(call: dict) -> list[dict]:
    from tests.reliability.fuzz_values import array_specs

    specs = []
    for spec in [*call["args"], *call["kwargs"].values(), *[b["spec"] for b in call["batch"]]]:
        specs.extend(array_specs(spec))
    return specs


def _has_dtype(call: dict, *kinds: str) -> bool:
    return any(s["dtype"].startswith(kinds) for s in _arrays(call))


def _special_values(call: dict) -> bool:
    return any(s.get("fill") in ("special", "zeros") for s in _arrays(call)) or any(
        isinstance(s.get("py"), float) or "complex" in s for s in call["args"]
    )


def _value_difference(difference: tuple[str, str]) -> bool:
    return difference[0] in ("diverge-value",)


def _numpy_values(call, ours, theirs, difference) -> bool:
    """Where JAX's value is an artefact of XLA's arithmetic, stablax gives NumPy's: modf and
    spacing at infinities and negatives, fmod/floor_divide/remainder of integers by zero,
    integer powers with exponents of 64 or more (JAX reads 6 bits) or negative ones, integer
    geomspace whose first element is the exact start (as NumPy; JAX's passes through exp/log),
    the condition number of a matrix with infinite or singular entries (inf, as NumPy; JAX's
    SVD of infinities gives NaN)."""
    numpy_fns = _fn(
        "jnp.modf",
        "jnp.spacing",
        "jnp.fmod",
        "jnp.floor_divide",
        "jnp.remainder",
        "jnp.mod",
        "jnp.divmod",
        "jnp.power",
        "jnp.pow",
        "jnp.geomspace",
        "jnp.linalg.cond",
    )
    return numpy_fns(call) and _value_difference(difference)


def _array_api_special_values(call, ours, theirs, difference) -> bool:
    """Complex exp/log/sqrt/hyperbolic/inverse functions at infinities, NaNs and signed zeros
    follow C99 and the Array API (XLA's kernels do not); floor_divide with one infinite operand
    is the Array API's quotient (NumPy and JAX give NaN and -1)."""
    special = _fn(
        "jnp.exp",
        "jnp.expm1",
        "jnp.log",
        "jnp.log1p",
        "jnp.sqrt",
        "jnp.sinh",
        "jnp.cosh",
        "jnp.tanh",
        "jnp.arccos",
        "jnp.arccosh",
        "jnp.arcsinh",
        "jnp.arctanh",
        "jnp.acos",
        "jnp.acosh",
        "jnp.asinh",
        "jnp.atanh",
        "jnp.log2",
        "jnp.log10",
        "jnp.floor_divide",
        "jnp.divmod",
        "jnp.logaddexp",
        "jnp.logaddexp2",
        "jnp.exp2",
    )
    return special(call) and _value_difference(difference) and _special_values(call)


def _half_precision_linalg(call, ours, theirs, difference) -> bool:
    """stablax computes float16/bfloat16 factorizations and real FFTs in float32 and casts
    back, where JAX raises (LAPACK and its RFFT have no half precision); for the determinants of
    matrices with infinite or NaN entries, that LU (LAPACK's, as NumPy's) pivots differently
    from JAX's half-precision one, and stablax gives NumPy's sign and logarithm. stablax's QR
    rejects half precision whatever the size; JAX returns the empty factors of an empty matrix
    without reaching LAPACK (and raises NotImplementedError for any other)."""
    fn = call["fn"]
    linalg = fn.startswith(("jnp.linalg.", "lax.linalg.", "jnp.fft.")) or fn in ("lax.fft",)
    half = _has_dtype(call, "float16", "bfloat16")
    if fn == "jnp.linalg.qr" and half and _error(ours):  # JAX: empty factors of an empty one
        return (
            "lax.linalg.qr: expected float32, float64, complex64 or complex128" in ours["message"]
        )
    if fn in ("jnp.linalg.slogdet", "jnp.linalg.det") and half and _special_values(call):
        return _value_difference(difference)
    return linalg and half and difference[0] == "diverge-accepts"


def _monoid_reduce(call, ours, theirs, difference) -> bool:
    """stablax's lax.reduce and lax.reduce_window take monoid computations only (lax.add, mul,
    max, min and the bitwise ones) and raise NotImplementedError for other callables."""
    return (
        call["fn"] in ("lax.reduce", "lax.reduce_window")
        and ours["kind"] == "error"
        and ours["type"] == "NotImplementedError"
    )


def _numpy_errors(call, ours, theirs, difference) -> bool:
    """stablax raises NumPy's error where JAX computes something (or raises another class):
    FFTs of zero points, linspace/logspace axes out of bounds, multi_dot of one array,
    array_split into no sections, complex quantiles, geomspace through zero, vsplit/dsplit of
    arrays of too few dimensions,
    unravel_index of float indices or into a shape of float dimensions (NumPy's TypeError; JAX
    truncates the indices and divides by the float dimensions) or into a shape with
    a negative dimension or of size 0 (NumPy's ValueError: no index is in bounds; JAX's clipping
    gives -1 or 0, and its divmod by zero the rest),
    pad with a non-integer pad_width (NumPy's TypeError; JAX truncates it), histogram bins of 0
    or of an N-D array, h/v/dsplit into negative sections, choose among no choices, interp
    with no sample points, lexsort of scalar keys along an axis they do not have, an ndmin
    that is no integer; rounding
    integers to negative decimals works (JAX raises NotImplementedError)."""
    fn = call["fn"]
    numpy_messages = {
        # NumPy: "Invalid number of FFT data points (0) specified."; JAX returns an empty array.
        "jnp.fft.": "invalid number of data points",
        # NumPy's AxisError from moveaxis; JAX ignores the axis of a 1-D result.
        "jnp.linspace": "out of bounds for array of dimension",
        "jnp.logspace": "out of bounds for array of dimension",
        "jnp.geomspace": "out of bounds for array of dimension",
        # NumPy: "Expecting at least two arrays."; JAX returns something for one.
        "jnp.linalg.multi_dot": "expected at least two arrays",
        # NumPy: "number sections must be larger than 0."; JAX returns []. NumPy's ValueError
        # for v/dsplit of too few dimensions; JAX splits along the only axis.
        "jnp.array_split": "number of sections must be larger than 0",
        "jnp.hsplit": "number of sections must be larger than 0",
        "jnp.vsplit": ("number of sections must be larger than 0", "only works on arrays of 2 or"),
        "jnp.dsplit": ("number of sections must be larger than 0", "only works on arrays of 3 or"),
        # NumPy: "0-length sequence."; JAX fails indexing the stack of no choices.
        "jnp.choose": "choices must not be empty",
        # NumPy: "array of sample points is empty"; JAX fails indexing the empty xp.
        "jnp.interp": "the array of sample points is empty",
        # NumPy's ValueError from its concatenate; JAX's TypeError from lax.concatenate.
        "jnp.cov": "must have the same number of observations",
        "jnp.corrcoef": "must have the same number of observations",
        # NumPy: "Quantiles must be in the range [0, 1]" (ValueError); JAX's floor(complex).
        "jnp.nanquantile": "does not support complex input",
        "jnp.quantile": "does not support complex input",
        "jnp.percentile": "does not support complex input",
        "jnp.nanpercentile": "does not support complex input",
        # NumPy: "mode 'bogus' is not supported" (ValueError); JAX's NotImplementedError.
        "jnp.pad": "unimplemented padding mode",
        # NumPy's TypeError for a non-integer ndmin; JAX compares it with the rank.
        "jnp.array": "ndmin must be an integer",
        # NumPy's AxisError for scalar keys and an axis other than 0/-1; JAX returns 0.
        "jnp.lexsort": "out of bounds for keys of dimension 0",
    }
    for prefix, messages in numpy_messages.items():
        messages = (messages,) if isinstance(messages, str) else messages
        if fn.startswith(prefix) and _error(ours) and any(m in ours["message"] for m in messages):
            return True
    if fn == "jnp.unravel_index":  # NumPy: "only int indices permitted", "out of bounds"
        return ours["kind"] == "error" and bool(
            re.search(
                r"indices must be of integer type|shape must be non-negative"
                r"|every index is out of bounds for shape"
                r"|shape must be a sequence of integers, got .*(?:\d\.\d|\dj|nan|inf)",
                ours["message"],
            )
        )
    if fn == "jnp.pad":
        return ours["kind"] == "error" and "pad_width must be of integral type" in ours["message"]
    if fn == "jnp.geomspace":
        return ours["kind"] == "error" and "cannot include zero" in ours["message"]
    if fn.startswith("jnp.histogram"):  # NumPy: "`bins` must be positive, when an integer",
        # "`bins` must be 1d, when an array"; JAX makes one edge, or fails in operator.index.
        return _error(ours) and bool(
            re.search(
                r"bins must be a positive integer, got"
                r"|bins must be an integer or a 1-D array of edges, got shape",
                ours["message"],
            )
        )
    if fn in ("jnp.round", "jnp.around"):
        return theirs["kind"] == "error" and "decimals < 0" in theirs["message"]
    return False


_SAME_DTYPES = re.compile(r"requires arguments to have the same dtypes, got")


def _lax_python_scalars(call, ours, theirs, difference) -> bool:
    """In stablax.lax's binary ops a Python scalar takes the dtype of an array operand of its
    kind (lax._elementwise_common._prepare; stablax's own compositions rely on it) and one out
    of that dtype's range raises OverflowError as in jnp; JAX 0.10.2 gives it the default
    dtype and raises TypeError whenever that differs from the other operand's (OverflowError
    where it does not fit the default dtype: 2**63 against a uint64 array)."""
    has_scalar = any(
        ("py" in a and isinstance(a["py"], (int, float)))
        or "complex" in a
        or ("array" in a and a.get("as") == "list" and a["array"] == [])  # a 0-d .tolist()
        for a in call["args"]
    )
    # jnp.apply_over_axes(lax.add, a, axes) adds the Python int axis to `a`.
    lax_callable = call["fn"] == "jnp.apply_over_axes" and call["args"][0] == {"fn": "add"}
    if not ((call["fn"].startswith("lax.") and has_scalar or lax_callable) and _error(theirs)):
        return False
    jax_overflow = theirs["type"] == "OverflowError" and "too large to convert" in theirs["message"]
    if not (_SAME_DTYPES.search(theirs["message"]) or jax_overflow):
        return False
    return ours["kind"] == "value" or (
        ours["type"] == "OverflowError"
        and bool(re.search(r"out of bounds for|too large to convert to", ours["message"]))
    )


def _integer_select_predicate(call, ours, theirs, difference) -> bool:
    """lax.select documents a boolean predicate and stablax enforces it (TypeError); JAX 0.10.2
    passes an integer one on to select_n, where it is a case index (out-of-range values pick
    an undefined case)."""
    return (
        call["fn"] == "lax.select"
        and ours["kind"] == "error"
        and "predicate must be boolean" in ours["message"]
    )


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


def _integer_quantiles(call, ours, theirs, difference) -> bool:
    """jnp.quantile/percentile with integer or boolean q: JAX applies lax.floor (or lax.mul) to
    q in its own dtype and raises TypeError; stablax (like NumPy) computes the quantile."""
    return (
        call["fn"] in ("jnp.quantile", "jnp.nanquantile", "jnp.percentile", "jnp.nanpercentile")
        and ours["kind"] == "value"
        and _error(theirs)
        and bool(
            re.search(
                r"floor does not accept dtype u?int|(?:mul|sub) does not accept dtype bool",
                theirs["message"],
            )
        )
    )


_NUMPY_INDEX_ERROR = re.compile(
    r"index -?\d+ is out of bounds for axis \d+ with size \d+"
    r"|only integers, slices \(`:`\), ellipsis"
    r"|list assignment index out of range"
    r"|arrays used as indices must be of integer \(or boolean\) type"
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


def _fft_through_pad(call, ours, theirs, difference) -> bool:
    """jnp.fft.*n with s=() (no axes): JAX fails in the jnp.pad it calls internally; stablax
    returns the input as the complex transform over no axes."""
    return (
        call["fn"].startswith("jnp.fft.")
        and _error(theirs)
        and theirs["message"].startswith("jnp.pad: pad_width with nd=")
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


def _non_square_hermitian(call, ours, theirs, difference) -> bool:
    """eigh/eigvalsh/cholesky (and pinv/svd with hermitian=True) of a non-square (..., m, 1)
    or (..., 1, n) input: JAX's symmetrize_input adds the input to its transpose, which
    broadcasts to a square matrix, and decomposes that; stablax rejects the input, as NumPy
    (LinAlgError)."""
    hermitian = call["fn"] in ("jnp.linalg.pinv", "jnp.linalg.svd") and bool(
        call["kwargs"].get("hermitian", {}).get("py")
    )
    return (
        (
            hermitian
            or call["fn"] in ("jnp.linalg.eigh", "jnp.linalg.eigvalsh", "jnp.linalg.cholesky")
        )
        and _error(ours)
        and "must have shape [..., n, n]" in ours["message"]
        and theirs["kind"] == "value"
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
    (issue #15, C5: b'ab' is no shape); JAX iterates the bytes as the integers 97, 98."""
    has_bytes = any("bytes" in a for a in [*call["args"], *call["kwargs"].values()])
    return (
        has_bytes
        and _error(ours)
        and ours["type"] == "TypeError"
        and bool(re.search(r"got b'|got bytes|bytes|dtype \|S\d", ours["message"]))
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
    reduce_window init_value (which stablax batches), and raises NotImplementedError before it
    looks at the arguments; stablax checks them and raises its documented error."""
    return (
        _error(ours)
        and _error(theirs)
        and theirs["type"] == "NotImplementedError"
        and bool(
            re.search(
                r"(?:Batching|Differentiation) rule for '\w+' not implemented"
                r"|^\w+ JVP not implemented"
                r"|^ragged_dot vmap over any dim but 0 - NYI"
                r"|^reduce_window batching is not implemented for initial values$",
                theirs["message"],
            )
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


def _single_shape_unchecked(call, ours, theirs, difference) -> bool:
    """lax.broadcast_shapes with one argument: JAX returns it unchecked (even an int);
    stablax checks that it is a shape (TypeError)."""
    return (
        call["fn"] == "lax.broadcast_shapes"
        and len(call["args"]) == 1
        and _error(ours)
        and "must be a sequence of integers" in ours["message"]
        and theirs["kind"] == "value"
    )


def _empty_default_dtype(call, ours, theirs, difference) -> bool:
    """lax.empty with x64 off: JAX returns a 64-bit array (its dtype argument is not
    canonicalized, so None gives float64 and uint64 stays uint64); stablax gives the canonical
    32-bit dtype, as every other constructor does in that mode."""
    return (
        call["fn"] == "lax.empty"
        and not call["x64"]
        and difference[0] == "diverge-dtype"
        and bool(re.search(r"vs JAX \w+64$", difference[1]))
    )


def _numpy_accepts(call, ours, theirs, difference) -> bool:
    """histogram_bin_edges (and histogram) of an empty array: stablax gives NumPy's bins over
    [0, 1]; JAX takes the min and max of nothing (ValueError)."""
    return (
        call["fn"] in ("jnp.histogram_bin_edges", "jnp.histogram")
        and ours["kind"] == "value"
        and _error(theirs)
        and "zero-size array to reduction operation" in theirs["message"]
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


_UNIQUE_FNS = ("jnp.unique_values", "jnp.unique_all", "jnp.unique_counts", "jnp.unique_inverse")
_SET_FNS = ("jnp.setxor1d", "jnp.union1d", "jnp.intersect1d", "jnp.setdiff1d")
_QUANTILE_FNS = (
    "jnp.quantile",
    "jnp.nanquantile",
    "jnp.percentile",
    "jnp.nanpercentile",
    "jnp.median",
    "jnp.nanmedian",
)


def _jax_value_artefacts(call, ours, theirs, difference) -> bool:
    """Values where JAX's answer is an artefact of its implementation: ldexp's gradient (2**n
    everywhere; JAX differentiates its bit manipulation: 1 at 0 and infinities, NaN where the
    result overflows), unique_values' gradient without `size` (JAX computes the values from
    the concrete input with NumPy, so no gradient reaches them; with `size` both give it to
    each value's first occurrence; unique_all, unique_counts, unique_inverse and the set
    operations alike),
    polydiv's eliminated remainder coefficients (exact zeros in stablax; JAX leaves the
    rounding residue of u[k] - (u[k] / v[0]) * v[0]), array_repr's text (JAX names its class
    ArrayImpl; stablax writes the repr of the array, `Array(...)`), the cross product of
    16-bit floats (NumPy's and stablax's products cancel exactly in cross(a, a); XLA's CPU
    rounding of JAX's leaves residues of about 1e-4)."""
    fn, detail = call["fn"], difference[1]
    if not _value_difference(difference):
        return False
    if fn == "jnp.ldexp" and call["mode"] == "grad":
        return True
    if fn in (*_UNIQUE_FNS, *_SET_FNS) and call["mode"] == "grad":
        return "size" not in call["kwargs"]
    if fn == "jnp.polydiv":
        return bool(re.match(r"\[1\]: \w+ element \d+: -?0\.0 vs JAX", detail))
    if fn in ("jnp.cross", "jnp.linalg.cross"):
        return bool(re.search(r"\bb?float16 element \d+: -?0\.0 vs JAX", detail))
    return fn == "jnp.array_repr" and "JAX {'scalar': 'ArrayImpl(" in detail


def _zero_d_keepdims(call, ours, theirs, difference) -> bool:
    """median/quantile of a 0-d array with keepdims: stablax keeps NumPy's 0-d shape; JAX
    flattens the input to 1-D first and keeps that dimension, shape (1,)."""
    return (
        call["fn"]
        in (
            "jnp.median",
            "jnp.nanmedian",
            "jnp.quantile",
            "jnp.nanquantile",
            "jnp.percentile",
            "jnp.nanpercentile",
        )
        and difference[0] == "diverge-shape"
        and bool(call["kwargs"].get("keepdims", {}).get("py"))
    )


def _non_integer_axis(call, ours, theirs, difference) -> bool:
    """An axis given as None, a tuple or a float: stablax raises TypeError naming the function
    (NumPy raises TypeError too); JAX indexes a NumPy permutation with it, which adds a
    dimension (None), indexes several entries (a tuple) or fails inside NumPy, and lax's
    argmax reports a float axis as out of bounds (ValueError)."""
    return (
        _error(ours)
        and ours["type"] == "TypeError"
        and bool(
            re.search(
                r"axis must be an integer, got "
                r"|axes must be a sequence of integers, got \([^)]*\d\.\d",
                ours["message"],
            )
        )
    )


def _polynomial_rank(call, ours, theirs, difference) -> bool:
    """Polynomial coefficients of rank above 1: stablax raises ValueError (NumPy documents them
    as rank-1); JAX (and NumPy) push N-D arrays through their formulas by broadcasting, which
    computes no polynomial operation."""
    return (
        call["fn"].startswith(("jnp.poly", "jnp.roots"))
        and _error(ours)
        and ours["type"] == "ValueError"
        and bool(
            re.search(r"input must be 1-D|only supports 1-dimensional inputs", ours["message"])
        )
    )


def _lstsq_numpy_residuals(call, ours, theirs, difference) -> bool:
    """lstsq's empty residuals: JAX's are jnp.asarray([]) in the default float type, stablax's
    have the solution's real dtype (as NumPy's); and with numpy_resid under jit, JAX needs a
    concrete rank even when a has no more rows than columns, where the residuals are empty
    whatever the rank (stablax needs it only for overdetermined systems)."""
    if call["fn"] != "jnp.linalg.lstsq" or ours["kind"] != "value":
        return False
    empty_residuals = ours["value"]["seq"][1]["shape"] == [0]
    if difference[0] == "diverge-dtype":
        return empty_residuals and difference[1].startswith("[1]:")
    return (
        empty_residuals
        and _error(theirs)
        and theirs["type"] == "TracerBoolConversionError"
        and bool(call["kwargs"].get("numpy_resid", {}).get("py"))
    )


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


def _fft_backward_scaling(call, ours, theirs, difference) -> bool:
    """JAX multiplies a norm="backward" forward transform by a complex 1, which turns the zero
    imaginary part beside a NaN into NaN; stablax leaves it unscaled, as NumPy and norm=None."""
    return (
        call["fn"].startswith("jnp.fft.")
        and call["kwargs"].get("norm", {}).get("py") == "backward"
        and _value_difference(difference)
        and _special_values(call)
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


def _eig_of_a_vector(call, ours, theirs, difference) -> bool:
    """eig of a per-example vector: stablax refuses it (TypeError, as JAX's eig outside
    transforms); JAX's eig under vmap takes the batch axis for a matrix axis and returns the
    eigenpairs of the whole batch, and under grad its JVP rule refuses eigenvector
    derivatives (NotImplementedError) before it looks at the shape."""
    if call["fn"] != "jnp.linalg.eig" or not _error(ours):
        return False
    if "argument must have shape [..., n, n]" not in ours["message"]:
        return False
    if call["mode"] == "vmap" and theirs["kind"] == "value":
        return True
    return _error(theirs) and "Derivatives of non-symmetric eigenvectors" in theirs["message"]


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


def _zero_derivative(call, ours, theirs, difference) -> bool:
    """grad of nextafter (and spacing, built on it): stablax differentiates it as piecewise
    constant (zero derivative, as floor and round; chlo.next_after is in
    lax._elementwise_ad.ZERO_DERIVATIVE); JAX has no differentiation rule for it."""
    return (
        call["mode"] == "grad"
        and call["fn"] in ("jnp.nextafter", "lax.nextafter", "jnp.spacing")
        and ours["kind"] == "value"
        and _error(theirs)
        and "Differentiation rule for 'nextafter' not implemented" in theirs["message"]
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


def _var_mean_shape(call, ours, theirs, difference) -> bool:
    """var/std with a mean= that does not broadcast to the input's shape (NumPy documents the
    keepdims mean): stablax raises TypeError, as JAX's lax.sub does for an input of rank 1 or
    more; for a 0-d input JAX (and NumPy) broadcast the input to the mean's shape and divide
    the sum of those deviations by one element."""
    return (
        call["fn"] in ("jnp.var", "jnp.std", "jnp.nanvar", "jnp.nanstd")
        and _error(ours)
        and "does not broadcast against the input of shape ()" in ours["message"]
        and theirs["kind"] == "value"
    )


def _unique_weak_type(call, ours, theirs, difference) -> bool:
    """unique_* of a Python scalar: JAX's values lose the weak type for a complex scalar (its
    NaN rewrite of complex input, a jnp.where) and keep it for size=0 with a fill_value (its
    full_like of the empty result, where size > 0 goes through a where() that drops it);
    stablax keeps the input's weak type, and a fill_value makes the values strong."""
    if call["fn"] not in _UNIQUE_FNS or difference[0] != "diverge-weak-type":
        return False
    first = call["args"][0]
    return "complex" in first or (
        "fill_value" in call["kwargs"] and ours["value"]["seq"][0]["shape"] == [0]
    )


def _quantile_of_nothing(call, ours, theirs, difference) -> bool:
    """Quantiles and medians over an empty axis: stablax gives NumPy's NaN (trapezoid: NumPy's
    zeros); JAX gathers from the empty axis (TypeError from its gather's slice sizes,
    IndexError from its indexing)."""
    return (
        call["fn"] in (*_QUANTILE_FNS, "jnp.trapezoid")
        and ours["kind"] == "value"
        and _error(theirs)
        and bool(
            re.search(
                r"Slice size at index \d+ in gather op is out of range"
                r"|^index is out of bounds for axis \d+ with size 0",
                theirs["message"],
            )
        )
    )


def _quantile_outside_range(call, ours, theirs, difference) -> bool:
    """Quantiles at q outside [0, 1] (percentiles outside [0, 100]) or not finite: NumPy raises
    ValueError; JAX and stablax both interpolate past the ends, with infinities in the data
    giving different NaN/inf patterns."""
    if call["fn"] not in _QUANTILE_FNS or not _value_difference(difference):
        return False
    spec = call["kwargs"].get("q", call["args"][1] if len(call["args"]) > 1 else None)
    if not isinstance(spec, dict):
        return False
    if "array" in spec:
        q = fuzz_values.host_data(spec["array"], spec["dtype"], spec["seed"], spec.get("fill"))
    elif isinstance(spec.get("py"), (int, float)):
        q = spec["py"]
    else:
        return False
    top = 100 if "percentile" in call["fn"] else 1
    q = np.asarray(q, np.float64)
    return bool(np.any(~np.isfinite(q) | (q < 0) | (q > top)))


def _quantile_weights(call, ours, theirs, difference) -> bool:
    """Weighted quantiles (method 'inverted_cdf' only, in JAX): not implemented in stablax yet
    (NotImplementedError, after JAX's checks of the method and of complex weights)."""
    return (
        call["fn"] in _QUANTILE_FNS
        and _error(ours)
        and ours["type"] == "NotImplementedError"
        and "the 'weights' argument is not supported yet" in ours["message"]
    )


def _scalar_cumulative(call, ours, theirs, difference) -> bool:
    """Cumulative sums and products of a 0-d input along axis 0 or -1: stablax follows NumPy
    (the input counts as 1-d, as JAX does for Python scalars); JAX raises for a 0-d array and
    for nancumsum/nancumprod of a NumPy scalar (its NaN rewrite makes it an array first)."""
    return (
        call["fn"] in ("jnp.cumsum", "jnp.cumprod", "jnp.nancumsum", "jnp.nancumprod")
        and ours["kind"] == "value"
        and _error(theirs)
        and bool(
            re.match(r"axis -?\d+ is out of bounds for array of dimension 0", theirs["message"])
        )
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


def _jax_narrow_int_kind(call, ours, theirs, difference) -> bool:
    """Reductions of int4/uint4 (nanprod, prod, sum, nanstd): JAX promotes integers by NumPy's
    dtype kind, which is 'V' for ml_dtypes' narrow integers (ValueError) before any other
    check; stablax reduces them (or reports the arguments' own errors)."""
    return _error(theirs) and theirs["message"].startswith("Invalid integer data type 'V'")


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


def _jax_vdot_preferred_type(call, ours, theirs, difference) -> bool:
    """vdot of a small integer array and a Python int: JAX asks its dot for a result type
    narrower than the one it promotes to (TypeError); stablax computes it."""
    return (
        call["fn"] == "jnp.vdot"
        and ours["kind"] == "value"
        and _error(theirs)
        and "`preferred_element_type` must not be narrower" in theirs["message"]
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


def _trapezoid_specials(call, ours, theirs, difference) -> bool:
    """trapezoid of infinities: stablax sums NumPy's terms d * (y[i] + y[i+1]) / 2; JAX's
    constant-spacing path computes dx * (sum(y) - (y[0] + y[-1]) / 2), where an infinite end
    point gives inf - inf = NaN."""
    return (
        call["fn"] == "jnp.trapezoid"
        and _value_difference(difference)
        and _special_values(call)
        and "vs JAX nan" in difference[1]
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


def _complex_clamp(call, ours, theirs, difference) -> bool:
    """lax.clamp of complex numbers: stablax rejects them (TypeError), as jnp.clip does in JAX
    (complex numbers have no order); JAX's lax.clamp returns what XLA gives, which follows
    neither NumPy's lexicographic order (clamping 2+3j to [2-1j, 2+2j] gives 2-1j, NumPy 2+2j)
    nor any other."""
    return (
        call["fn"] == "lax.clamp"
        and _error(ours)
        and bool(re.match(r"lax\.clamp does not accept dtype complex", ours["message"]))
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


def _negative_map_batch(call, ours, theirs, difference) -> bool:
    """lax.map with a negative batch_size: stablax raises ValueError naming it; JAX reshapes the
    input to (-1, batch_size, ...) and reshape's TypeError (or a wrong value) comes out."""
    return (
        call["fn"] == "lax.map"
        and _error(ours)
        and ours["message"].startswith("lax.map: batch_size must be non-negative, got -")
    )


def _reduce_non_scalar_init(call, ours, theirs, difference) -> bool:
    """lax.reduce with a non-scalar init value: stablax raises its ValueError in every mode, as
    JAX does eagerly ("reduce found non-scalar initial value"); under grad JAX's JVP rule skips
    that check and returns a value, and under vmap its batching rule has no case for a batched
    init value (a bare NotImplementedError)."""
    return (
        call["fn"] == "lax.reduce"
        and call["mode"] in ("grad", "vmap")
        and _error(ours)
        and ours["message"].startswith("lax.reduce: init_values must be scalars, got shape")
    )


def _unsorted_take_axes(call, ours, theirs, difference) -> bool:
    """lax.index_take with axes not in increasing order: stablax takes along them in the order
    given (its documented `src[idxs[0], idxs[1], ...]` along `axes`); JAX passes them unsorted
    to gather as collapsed_slice_dims, which must be sorted (TypeError)."""
    return (
        call["fn"] == "lax.index_take"
        and ours["kind"] == "value"
        and _error(theirs)
        and "collapsed_slice_dims in gather op must be sorted" in theirs["message"]
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


def _select_broadcasts_cases(call, ours, theirs, difference) -> bool:
    """lax.select_n broadcasts rank-0 and size-1 cases as stablax's other lax elementwise ops do
    (a Python scalar case adopting an array case's dtype, OverflowError when it does not fit;
    stablax's own compositions rely on it); JAX's select_n requires equal case shapes."""
    return (
        call["fn"] in ("lax.select_n", "lax.select")
        and (ours["kind"] == "value" or ours["type"] == "OverflowError")
        and _error(theirs)
        and theirs["message"].startswith("select cases must have the same shapes")
    )


def _out_sharding_unsupported(call, ours, theirs, difference) -> bool:
    """stablax arrays live on one device: any out_sharding (or axis_index_groups of a
    collective) raises NotImplementedError; JAX first rejects a value that is no
    NamedSharding or PartitionSpec (TypeError), or groups that do not cover the axis
    (ValueError)."""
    return (
        _error(ours)
        and ours["type"] == "NotImplementedError"
        and bool(
            re.search(
                r"out_sharding is not supported|axis_index_groups not supported", ours["message"]
            )
        )
        and _error(theirs)
        and bool(
            re.search(r"`out_sharding` argument of|axis_index_groups must cover", theirs["message"])
        )
    )


def _integer_axis_name(call, ours, theirs, difference) -> bool:
    """A collective outside vmap with an axis name that is no str (an int, a bool, None, any
    object): stablax raises NameError (no enclosing vmap binds it), as JAX does for a str name;
    JAX first checks the other arguments (axis out of bounds, an operand that is no array), or
    maps over an empty pytree (x None) without looking at the name."""
    no_leaves = bool(call["args"]) and call["args"][0].get("py", 0) is None
    args = call["args"]
    name = call["kwargs"].get("axis_name", args[1] if len(args) > 1 else {})
    return (
        call["fn"].startswith("lax.")
        and _error(ours)
        and ours["type"] == "NameError"
        and ours["message"].startswith("unbound axis name: ")
        and not isinstance(name.get("py"), str)
        and (_error(theirs) or (no_leaves and theirs["kind"] == "value"))
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


def _conv_dilation_length(call, ours, theirs, difference) -> bool:
    """A convolution's rhs_dilation (or lhs_dilation) with the wrong number of entries: stablax
    rejects it with the strides (ValueError naming them); JAX leaves it to XLA's verifier and
    first raises about another argument (the preferred_element_type, say)."""
    return (
        call["fn"] in ("lax.conv_general_dilated", "lax.conv_with_general_padding", "lax.conv")
        and _error(ours)
        and ours["type"] == "ValueError"
        and bool(
            re.search(r"dilation \S.* must have one entry per spatial dimension", ours["message"])
        )
        and _error(theirs)
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


def _eig_grad_first(call, ours, theirs, difference) -> bool:
    """lax.linalg.eig under grad of a bad input: stablax checks the input (or the unsupported
    implementation) first; JAX's JVP rule first refuses eigenvector derivatives without
    enable_eigvec_derivs (NotImplementedError)."""
    return (
        call["fn"] == "lax.linalg.eig"
        and call["mode"] == "grad"
        and _error(ours)
        and ours["type"] in ("TypeError", "ValueError")
        and _error(theirs)
        and theirs["message"].startswith("Derivatives of non-symmetric eigenvectors")
    )


def _bool_add_mul(call, ours, theirs, difference) -> bool:
    """lax.add and lax.mul of bools: stablax computes them (XLA's add and multiply of pred are
    OR and AND; the op-record table tests both), and so do scatter_add/scatter_mul (which
    then check their other arguments); JAX's dtype rules accept numbers only."""
    return (
        call["fn"] in ("lax.add", "lax.mul", "lax.scatter_add", "lax.scatter_mul")
        and _error(theirs)
        and bool(re.match(r"(?:add|mul) does not accept dtype bool", theirs["message"]))
    )


def _stateful_rng_values(call, ours, theirs, difference) -> bool:
    """lax.rng_uniform draws from the backend's stateful generator: its values change from call
    to call in either library, so only dtypes and shapes compare."""
    return call["fn"] == "lax.rng_uniform" and _value_difference(difference)


def _complex_correlation_infinities(call, ours, theirs, difference) -> bool:
    """Complex correlate/convolve of infinite entries: stablax's sum of products keeps NumPy's
    infinite imaginary part beside a NaN real one (nan-infj); XLA's batched convolution under
    JAX's vmap turns both parts into NaN."""
    return (
        call["fn"] in ("jnp.correlate", "jnp.convolve")
        and _has_dtype(call, "complex")
        and _value_difference(difference)
        and _special_values(call)
    )


def _kron_of_booleans(call, ours, theirs, difference) -> bool:
    """kron of boolean arrays: stablax gives NumPy's boolean product (logical and); JAX's
    kron multiplies with lax.mul, which refuses bool."""
    return (
        call["fn"] == "jnp.kron"
        and ours["kind"] == "value"
        and _error(theirs)
        and "mul does not accept dtype bool" in theirs["message"]
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


def _array_equiv_unbroadcastable(call, ours, theirs, difference) -> bool:
    """array_equiv of shapes that do not broadcast is False, NumPy's answer; JAX's comparison
    of shapes of which one is empty raises its broadcasting TypeError."""
    return (
        call["fn"] == "jnp.array_equiv"
        and ours["kind"] == "value"
        and _error(theirs)
        and "incompatible shapes for broadcasting" in theirs["message"]
    )


def _two_bit_concatenate(call, ours, theirs, difference) -> bool:
    """Concatenating 2-bit integers aborts XLA:CPU (JAX's process dies): stablax's concatenate
    raises TypeError in its shape rule instead, also where JAX avoids the op (it reshapes the
    rows of a single array in vstack and friends)."""
    return _error(ours) and bool(
        re.search(r"concatenate: does not accept dtype u?int2 \(XLA's limit\)", ours["message"])
    )


def _pad_width_broadcast(call, ours, theirs, difference) -> bool:
    """jnp.pad with a pad_width of shape (1, 1) for a 2-D array (or another shape that
    broadcasts to (ndim, 2)): stablax broadcasts it as NumPy does; JAX accepts only its listed
    shapes (ValueError)."""
    return (
        call["fn"] == "jnp.pad"
        and ours["kind"] == "value"
        and _error(theirs)
        and bool(
            re.match(r"jnp\.pad: pad_width with nd=\d+ has unsupported shape", theirs["message"])
        )
    )


def _piecewise_checks(call, ours, theirs, difference) -> bool:
    """jnp.piecewise: stablax rejects conditions that do not broadcast to x's shape (JAX
    broadcasts x against them), checks its extra arguments before counting the functions,
    and gives NumPy's result for no conditions (JAX takes the argmax of nothing)."""
    if call["fn"] != "jnp.piecewise":
        return False
    if ours["kind"] == "value":
        return _error(theirs) and "attempt to get argmax of an empty sequence" in theirs["message"]
    return "do not broadcast to x's shape" in ours["message"] or (
        "piecewise requires ndarray or scalar arguments" in ours["message"]
        and _error(theirs)
        and "functions are expected" in theirs["message"]
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


_VARIANCE_FNS = ("jnp.var", "jnp.std", "jnp.nanvar", "jnp.nanstd")


def _variance_checks(call, ours, theirs, difference) -> bool:
    """var/std: ddof=None is rejected as NumPy does (JAX treats it as 0 under vmap); and both
    reject a list argument or a bad dtype, in another order (stablax's list check comes first,
    JAX's dtype and ddof checks). (N - ddof <= 0 gives NaN in both: no value rule.)"""
    if call["fn"] not in _VARIANCE_FNS:
        return False
    if not _error(ours):
        return False
    if "ddof must be a number, got None" in ours["message"]:
        return True
    return _error(theirs) and (
        "requires ndarray or scalar arguments, got <class 'list'>" in ours["message"]
        or (
            "dtype must be inexact" in ours["message"] and "expected ArrayLike" in theirs["message"]
        )
    )


def _lenient_jax_slice(call, ours, theirs, difference) -> bool:
    """lax.slice with indices past the operand's dimensions or with too few of them: stablax
    raises TypeError (XLA's slice needs 0 <= start <= limit <= size, one per dimension);
    JAX 0.10.2's eager path clamps or truncates them and returns a (possibly empty) slice."""
    return (
        call["fn"] == "lax.slice"
        and _error(ours)
        and ours["type"] == "TypeError"
        and bool(
            re.search(r"invalid slice|must each have one entry per dimension", ours["message"])
        )
        and theirs["kind"] == "value"
    )


def _dce_sink_flag(call, ours, theirs, difference) -> bool:
    """lax.dce_sink with a truthy prevent_mlir_dce: stablax refuses it (NotImplementedError; it
    has no side-effecting call to keep the computation alive, and a flag given as an array of
    several elements has no truth value); JAX accepts any value, and eagerly does nothing."""
    return (
        call["fn"] == "lax.dce_sink"
        and _error(ours)
        and bool(
            re.search(
                r"prevent_mlir_dce=True is not supported"
                r"|truth value of an array with more than one element is ambiguous",
                ours["message"],
            )
        )
        and theirs["kind"] == "value"
    )


def _index_take_clamps(call, ours, theirs, difference) -> bool:
    """lax.index_take of out-of-range indices: stablax clamps them (XLA's gather), JAX wraps
    them modulo the axis size. Wrapping needs an integer remainder, whose zero-divisor guard
    is emitted again each time a rewrite re-emits the function (the re-emission must be exact);
    left for a remainder that knows a constant divisor."""
    return call["fn"] == "lax.index_take" and _value_difference(difference)


def _broadcast_dimensions_order(call, ours, theirs, difference) -> bool:
    """lax.broadcast_in_dim with broadcast_dimensions that are not strictly increasing, or
    empty for an operand of the target's rank: stablax raises TypeError; JAX 0.10.2 emits a
    transposing broadcast (its transpose rule ignores the permutation, so gradients are wrong)
    and returns the operand untouched, dimensions unread, when the shapes are equal."""
    return (
        call["fn"] == "lax.broadcast_in_dim"
        and _error(ours)
        and bool(re.search(r"must be strictly increasing|must have one entry per", ours["message"]))
        and theirs["kind"] == "value"
    )


def _array_as_shape(call, ours, theirs, difference) -> bool:
    """lax.broadcast_shapes of shapes given as arrays: JAX returns the first argument as it is
    when all are one shape or there is one (an Array, or under vmap a tracer); stablax reads
    each as a shape, a tuple of ints, and refuses an array that is not 1-D."""
    return (
        call["fn"] == "lax.broadcast_shapes"
        and any("array" in a for a in call["args"])
        and (difference[0] == "diverge-structure" or _error(ours))
    )


def _padtype_to_pads_checks(call, ours, theirs, difference) -> bool:
    """lax.padtype_to_pads with in_shape, window_shape and window_strides of different lengths,
    or a stride that is not positive: stablax raises ValueError; JAX 0.10.2 broadcasts the
    lengths through NumPy and divides by the stride, returning pads for whatever that gives."""
    return (
        call["fn"] == "lax.padtype_to_pads"
        and _error(ours)
        and ours["type"] == "ValueError"
        and bool(re.search(r"must have the same length|must be positive", ours["message"]))
        and theirs["kind"] == "value"
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


def _eigh_integer_symmetrize(call, ours, theirs, difference) -> bool:
    """lax.linalg.eigh of an integer matrix: JAX symmetrizes (x + x^H) / 2 adding in the
    integer dtype, which wraps around (int16 -31239 + -8729), and decomposes that; stablax
    converts to float first, giving the eigenpairs of the matrix converted to float (JAX's own
    answer for the float matrix)."""
    return (
        call["fn"] == "lax.linalg.eigh"
        and _value_difference(difference)
        and call["kwargs"].get("symmetrize_input", {}).get("py", True) is not False
        and call["args"][0].get("dtype", "").startswith(("int", "uint"))
    )


def _gradient_edge_order_one(call, ours, theirs, difference) -> bool:
    """jnp.gradient with edge_order=1: stablax accepts it (NumPy's default, the one-sided edge
    differences it computes); JAX 0.10.2 refuses any edge_order with NotImplementedError."""
    return (
        call["fn"] == "jnp.gradient"
        and call["kwargs"].get("edge_order") == {"py": 1}
        and _error(theirs)
        and theirs["type"] == "NotImplementedError"
        and "'edge_order' argument to jnp.gradient is not supported" in theirs["message"]
    )


def _cov_no_observations_dtype(call, ours, theirs, difference) -> bool:
    """jnp.cov of variables with no observations, given a dtype: stablax returns NaNs in that
    dtype, as NumPy does; JAX 0.10.2 returns them early in the inputs' promoted dtype, the
    requested one unread."""
    values = [outcome.get("value", {}).get("values", {}).get("flat") for outcome in (ours, theirs)]
    return (
        call["fn"] == "jnp.cov"
        and difference[0] == "diverge-dtype"
        and call["kwargs"].get("dtype") is not None
        and all(flat is not None and all(v == "nan" for v in flat) for flat in values)
    )


def _fromfunction_negative_shape(call, ours, theirs, difference) -> bool:
    """jnp.fromfunction of a shape with a negative size: stablax raises TypeError (as JAX's
    zeros and indices do, NumPy a ValueError); JAX 0.10.2 calls the function on the empty
    indices of arange(-1), an array of no elements along that axis."""
    return (
        call["fn"] == "jnp.fromfunction"
        and _error(ours)
        and "shape must have every element be nonnegative" in ours["message"]
        and theirs["kind"] == "value"
    )


def _fftfreq_non_integer_n(call, ours, theirs, difference) -> bool:
    """jnp.fft.fftfreq/rfftfreq of a non-integer n: stablax raises TypeError, as NumPy
    refuses it ("n should be an integer"); JAX 0.10.2 builds its frequencies from arange(n)
    of the float, e.g. fftfreq(1.5) = [0, 0.667]."""
    return (
        call["fn"] in ("jnp.fft.fftfreq", "jnp.fft.rfftfreq")
        and _error(ours)
        and "n must be an integer" in ours["message"]
        and theirs["kind"] == "value"
    )


def _power_python_int_overflow(call, ours, theirs, difference) -> bool:
    """jnp.pow/power of a Python int base outside the integer type it takes (2**63 with x64,
    2**40 without) and a concrete integer exponent: stablax raises OverflowError, as every
    other jnp function and JAX's own pow with a float exponent do; JAX 0.10.2's integer_pow
    path wraps the base modulo 2**bits and returns a number."""
    return (
        call["fn"] in ("jnp.pow", "jnp.power")
        and _error(ours)
        and ours["type"] == "OverflowError"
        and bool(re.search(r"Python int -?\d+ too large to convert to u?int", ours["message"]))
        and theirs["kind"] == "value"
    )


def _cov_ddof_beyond_count(call, ours, theirs, difference) -> bool:
    """jnp.cov with ddof at or beyond the number of observations (or their weight): stablax
    divides by max(N - ddof, 0) as NumPy does (inf, or NaN for a zero sum); JAX 0.10.2
    divides by the negative count, a negative or -0.0 covariance."""
    return (
        call["fn"] == "jnp.cov"
        and "ddof" in call["kwargs"]
        and _value_difference(difference)
        and bool(re.search(r"element \d+: -?(?:nan|inf) vs JAX", difference[1]))
    )


def _partition_bool_kth(call, ours, theirs, difference) -> bool:
    """jnp.partition/argpartition with a bool kth: stablax raises TypeError, as NumPy refuses
    it ("Booleans unacceptable as partition index"); JAX 0.10.2 reads True as 1."""
    return (
        call["fn"] in ("jnp.partition", "jnp.argpartition")
        and _error(ours)
        and bool(re.search(r"kth must be an integer, got (?:True|False)\b", ours["message"]))
        and theirs["kind"] == "value"
    )


def _split_list_operand(call, ours, theirs, difference) -> bool:
    """lax.split of a list operand: stablax converts it with asarray's rules, as every other
    stablax lax function does (see list-input); JAX 0.10.2's split calls its asarray first,
    which refuses a list (TypeError "expected ArrayLike")."""
    return (
        call["fn"] == "lax.split"
        and any(a.get("as") == "list" for a in call["args"])
        and ours["kind"] == "value"
        and _error(theirs)
        and theirs["type"] == "TypeError"
        and theirs["message"].startswith("asarray: expected ArrayLike, got ")
    )


def _polyfit_exact_x(call, ours, theirs, difference) -> bool:
    """jnp.polyfit with integer or bool x and no rcond: stablax fits in the default float type
    as NumPy does (x is promoted to inexact first); JAX 0.10.2 takes finfo of x's own dtype for
    the default rcond and raises "data type ... not inexact", an accident of its order (so
    stablax may instead reach its later check of the weights' shape, JAX's TypeError)."""
    return (
        call["fn"] == "jnp.polyfit"
        and _error(theirs)
        and theirs["type"] == "ValueError"
        and bool(re.search(r"^data type <class 'numpy\.\w+'> not inexact", theirs["message"]))
        and (
            ours["kind"] == "value"
            or ours["type"] == "TypeError"
            and ours["message"].startswith("jnp.polyfit: expected 1-D weights")
        )
    )


def _logspace_integer_rounding(call, ours, theirs, difference) -> bool:
    """Integer logspace of exact powers: stablax gives base**y exactly (100000, as NumPy's
    power of the float samples); JAX 0.10.2's XLA pow lands a hair below some of them, which
    its conversion to the integer dtype truncates to one less (99999)."""
    found = re.search(r"u?int\d+ values differ: element \d+: (\d+) vs JAX (\d+)", difference[1])
    return (
        call["fn"] == "jnp.logspace"
        and _value_difference(difference)
        and found is not None
        and int(found[2]) == int(found[1]) - 1
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


def _variance_mean_rank(call, ours, theirs, difference) -> bool:
    """var/nanvar with an axis out of range and a `mean` of another rank: both refuse them;
    stablax reports the axis (ValueError), JAX the rank mismatch its subtraction meets first
    (TypeError)."""
    return (
        call["fn"] in _VARIANCE_FNS
        and "mean" in call["kwargs"]
        and _error(ours)
        and "is out of bounds for array of dimension" in ours["message"]
        and _error(theirs)
        and "arrays must have the same number of dimensions" in theirs["message"]
    )


def _apply_along_axis_extra_args(call, ours, theirs, difference) -> bool:
    """jnp.apply_along_axis(jnp.sum, axis, arr, *args) passes the extra arrays on as sum's
    axis, dtype and out: both refuse them, stablax's sum naming `out` (NotImplementedError,
    checked first), JAX's failing to read the traced axis (ConcretizationTypeError)."""
    return (
        call["fn"] == "jnp.apply_along_axis"
        and _error(ours)
        and "the 'out' argument is not supported" in ours["message"]
        and _error(theirs)
        and theirs["type"] == "ConcretizationTypeError"
    )


def _vector_norm_integer_orders(call, ours, theirs, difference) -> bool:
    """jnp.linalg.vector_norm of an integer or bool input with ord 0 or a p other than 1 and 2:
    stablax computes in the float type, as NumPy (a count for ord=0, (sum |x|**p)**(1/p)
    otherwise); JAX 0.10.2 takes finfo of the integer type for ord=0 (ValueError "not
    inexact") and raises to the powers p and 1/p in the integer type, 1/p truncated to 0, so
    every norm is 1 (or TypeError for negative p, OverflowError for unsigned ones)."""
    arg = call["args"][0]
    integer = arg.get("dtype", "").startswith(("int", "uint", "bool")) or (
        isinstance(arg.get("py"), (bool, int)) and "dtype" not in arg
    )
    order = call["kwargs"].get("ord", {}).get("py")
    jax_artefact = (
        _error(theirs)
        and (
            "not inexact" in theirs["message"]
            or "Integers cannot be raised to negative powers" in theirs["message"]
            or bool(re.search(r"Python integer -\d+ out of bounds for uint", theirs["message"]))
        )
    ) or (difference[0] == "diverge-dtype" and "int" in theirs["value"]["dtype"])
    return (
        call["fn"] == "jnp.linalg.vector_norm"
        and integer
        and isinstance(order, int)
        and order not in (1, 2)
        and jax_artefact
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


def _unique_grad_without_size(call, ours, theirs, difference) -> bool:
    """Gradients through jnp.unique without size: JAX's come out all zeros, though the values
    are elements of the input and its own size= path gives them a gradient of one each (an
    accident of its concrete boolean-mask path); stablax gives the gradient of the selection
    (one per distinct value at its first occurrence) with or without size."""
    flat = theirs.get("value", {}).get("values", {}).get("flat", [1])
    return (
        call["fn"] == "jnp.unique"
        and call["mode"] == "grad"
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


def _vectorize_checks_at_definition(call, ours, theirs, difference) -> bool:
    """jnp.vectorize with a pyfunc that is not callable, excluded not a collection, or a
    signature that does not parse: stablax rejects them when the vectorized function is made,
    as NumPy (TypeError, ValueError); JAX defines the function and fails only when (or if) it
    is called."""
    return (
        call["fn"] == "jnp.vectorize"
        and _error(ours)
        and (
            "jnp.vectorize: pyfunc must be callable" in ours["message"]
            or "jnp.vectorize: excluded must be a sequence" in ours["message"]
            or ours["message"].startswith("not a valid gufunc signature")
        )
        and (
            theirs["kind"] == "value"
            or (
                _error(theirs)
                and "returned a value of type <class 'function'>" in theirs["message"]
            )
        )
    )


def _split_negative_sections_of_nothing(call, ours, theirs, difference) -> bool:
    """jnp.split (and its kin) of an axis of length 0 into a negative number of sections:
    divmod(0, -2) leaves no rest, so JAX returns -2 copies of the empty piece (an empty list);
    stablax rejects a count below one, as NumPy (ValueError), whatever the axis's length."""
    return (
        call["fn"] in ("jnp.split", "jnp.array_split", "jnp.hsplit", "jnp.vsplit", "jnp.dsplit")
        and _error(ours)
        and "number of sections must be larger than 0" in ours["message"]
        and theirs["kind"] == "value"
    )


def _partition_complex_checks(call, ours, theirs, difference) -> bool:
    """jnp.partition/argpartition of a complex array with a bad axis or kth: stablax partitions
    complex arrays (lexicographic order, as NumPy), so its own check of axis or kth fires
    (ValueError, TypeError); JAX implements no complex partition and raises
    NotImplementedError before looking at them."""
    return (
        call["fn"] in ("jnp.partition", "jnp.argpartition")
        and _error(ours)
        and ours["type"] in ("ValueError", "TypeError")
        and _error(theirs)
        and theirs["type"] == "NotImplementedError"
        and "for complex dtype is not implemented" in theirs["message"]
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


def _broadcast_shapes_of_arrays(call, ours, theirs, difference) -> bool:
    """jnp.broadcast_shapes given integer arrays as shapes: JAX passes their elements through
    as 0-d Arrays; stablax gives the broadcast shape as Python ints (what a shape holds)."""

    def ints(value):
        return [v.get("scalar") if "scalar" in v else None for v in value.get("seq", [])]

    def array_ints(value):
        return [
            v["values"]["ints"][0]
            if v.get("shape") == [] and "ints" in v.get("values", {})
            else None
            for v in value.get("seq", [])
        ]

    return (
        call["fn"] == "jnp.broadcast_shapes"
        and ours["kind"] == "value"
        and theirs["kind"] == "value"
        and None not in ints(ours["value"])
        and ints(ours["value"]) == array_ints(theirs["value"])
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


def _index_in_dim_negative_static_index(call, ours, theirs, difference) -> bool:
    """dynamic_(update_)index_in_dim with a negative Python int index and a falsy
    allow_negative_indices (False, None): JAX's jit wrapper traces the index, so it misses its
    own static check and XLA silently clamps -1 to 0 (the first element, not the last);
    stablax raises the ValueError that JAX's dynamic_slice_in_dim raises for the same call."""
    return (
        call["fn"] in ("lax.dynamic_index_in_dim", "lax.dynamic_update_index_in_dim")
        and not call["kwargs"]["allow_negative_indices"].get("py", True)
        and _error(ours)
        and ours["type"] == "ValueError"
        and "allow_negative_indices is False" in ours["message"]
        and theirs["kind"] == "value"
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


def _jit_folded_float_to_uint64(call, ours, theirs, difference) -> bool:
    """astype of a Python float at or beyond 2**64 to uint64 under jit: XLA folds the constant
    conversion to 0, while JAX's eager call (and its jit of the same value as an argument)
    saturates to the largest uint64, as stablax does everywhere."""
    value = call["args"][0]
    return (
        call["fn"] == "jnp.astype"
        and call["mode"] == "jit"
        and isinstance(value, dict)
        and isinstance(value.get("py"), float)
        and value["py"] >= 2.0**64
        and ours["value"]["values"]["ints"] == [2**64 - 1]
        and theirs["value"]["values"]["ints"] == [0]
    )


def _numpy_passthrough_result(call, ours, theirs, difference) -> bool:
    """apply_along_axis with a func1d that returns its argument, and reshape of a NumPy array
    with order=None: JAX hands back a NumPy array (its vmap returns the unbatched input object
    as is; its reshape forwards to ndarray.reshape, where None means 'C'); stablax returns an
    Array, as JAX documents, with the same values (and refuses order=None, as JAX does for
    its own arrays)."""
    if call["fn"] == "jnp.apply_along_axis":
        return (
            difference[0] == "diverge-structure"
            and "ndarray" in theirs["value"]
            and ours["value"]["values"] == theirs["value"]["values"]
        )
    return (
        call["fn"] == "jnp.reshape"
        and call["args"][0].get("as") == "numpy"
        and call["kwargs"].get("order") == {"py": None}
        and _error(ours)
        and "Unexpected value for 'order' argument: None" in ours["message"]
        and "ndarray" in theirs["value"]
    )


def _lstsq_empty_complex_singular_values(call, ours, theirs, difference) -> bool:
    """lstsq of an empty complex matrix: JAX's singular values take the matrix's complex dtype
    (its empty shortcut), while its nonempty ones, NumPy's and stablax's are real."""
    return (
        call["fn"] == "jnp.linalg.lstsq"
        and difference[0] == "diverge-dtype"
        and bool(re.match(r"\[3\]: stablax float(32|64) vs JAX complex(64|128)$", difference[1]))
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


def _tensorsolve_axes_order(call, ours, theirs, difference) -> bool:
    """tensorsolve with `axes` out of ascending order: JAX's moveaxis to one repeated
    destination moves them to the end in ascending order, NumPy (and stablax) in the order
    given, so JAX may refuse a system NumPy solves."""
    axes = call["kwargs"].get("axes", {}).get("tuple")
    values = [a.get("py") for a in axes or []]
    return (
        call["fn"] == "jnp.linalg.tensorsolve"
        and bool(values)
        and values != sorted(values)
        and _error(theirs)
        and "After moving axes to end" in theirs["message"]
        and not _error(ours)
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


def _bool_add_mul_reduce(call, ours, theirs, difference) -> bool:
    """lax.reduce of bools with lax.add or lax.mul: as stablax's lax.add and lax.mul compute on
    bools (the bool-add-mul rule), so does a reduction with them (OR and AND), and a non-scalar
    init value is then what is wrong (stablax's ValueError); JAX refuses bool in reduce_sum or
    reduce_prod (an identity init) or in the computation it traces (any other init)."""
    computation = call["args"][2] if len(call["args"]) > 2 else None
    return (
        call["fn"] == "lax.reduce"
        and computation in ({"fn": "add"}, {"fn": "mul"})
        and _error(theirs)
        and bool(
            re.match(
                r"(?:reduce_sum|reduce_prod|add|mul) does not accept dtype bool", theirs["message"]
            )
        )
        and (
            ours["kind"] == "value"
            or ours["message"].startswith("lax.reduce: init_values must be scalars, got shape")
        )
    )


def _logspace_equal_ends_negative_base(call, ours, theirs, difference) -> bool:
    """logspace with equal ends and a negative base: stablax's samples are the end exactly,
    as NumPy's (so (-1.0)**5 is -1 everywhere); JAX 0.10.2's blend start*(1-t) + stop*t lands a
    hair off the end at some t, and a negative base to a non-integer power is NaN there."""
    found = re.search(r"element \d+: (\S+) vs JAX nan$", difference[1])
    given = [*call["args"][:2], call["kwargs"].get("start"), call["kwargs"].get("stop")]
    ends = [a for a in given if a is not None][:2]
    start, stop = (a.get("py") if isinstance(a, dict) else None for a in (ends + [{}, {}])[:2])
    return (
        call["fn"] == "jnp.logspace"
        and _value_difference(difference)
        and found is not None
        and found[1] != "nan"
        and start is not None
        and start == stop
    )


def _roll_float_shift(call, ours, theirs, difference) -> bool:
    """jnp.roll with a non-integer shift (1.5, a complex, NaN): stablax raises TypeError, as
    NumPy does; JAX 0.10.2 casts the shift to an integer (truncating 1.5 to 1, dropping an
    imaginary part, NaN to 0) and rolls, which the fuzz sees on arrays whose roll is invisible
    (empty or constant)."""
    return (
        call["fn"] == "jnp.roll"
        and _error(ours)
        and ours["type"] == "TypeError"
        and bool(
            re.search(
                r"shift must be a sequence of integers, got .*(?:\d\.\d|\dj|nan|inf)",
                ours["message"],
            )
        )
        and theirs["kind"] == "value"
    )


def _rfft_narrow_float_input(call, ours, theirs, difference) -> bool:
    """A real FFT (rfft, ihfft, rfftn, rfft2) of a float16, bfloat16 or float8 input: stablax
    computes it in float32, as it does the complex transforms and as NumPy upcasts; JAX 0.10.2
    passes the narrow type to XLA's RFFT, which takes only float32 or float64 (a ValueError)."""
    return (
        call["fn"] in ("jnp.fft.rfft", "jnp.fft.ihfft", "jnp.fft.rfftn", "jnp.fft.rfft2")
        and ours["kind"] == "value"
        and _error(theirs)
        and bool(
            re.match(
                r"RFFT input must be float32 or float64, got (?:b?float16|float8_\w+)$",
                theirs["message"],
            )
        )
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


def _given(call: dict, position: int, name: str) -> Any:
    """The spec of an argument given at `position` or by keyword `name`, or None."""
    args = call["args"]
    return args[position] if len(args) > position else call["kwargs"].get(name)


def _scan_forwarded_carry_object(call, ours, theirs, difference) -> bool:
    """lax.scan run eagerly, whose body returns a Python scalar carry unchanged: JAX 0.10.2
    moves a forwarded carry out of the loop and hands back the init object itself (True, 1.0);
    stablax returns it as a rank-0 Array, as JAX itself does under jit, with the same value."""
    init = _given(call, 1, "init")
    if not (isinstance(init, dict) and "py" in init) or isinstance(init["py"], (str, complex)):
        return False
    mine, jax_carry = ours["value"]["seq"][0], theirs["value"]["seq"][0]
    values = mine.get("values", {})
    flat = values.get("ints", values.get("flat"))
    return (
        call["fn"] == "lax.scan"
        and call["mode"] == "eager"
        and difference[0] == "diverge-structure"
        and jax_carry == {"scalar": init["py"]}
        and mine.get("shape") == []
        and flat is not None
        and flat[0] == init["py"]
        and ours["value"]["seq"][1:] == theirs["value"]["seq"][1:]
    )


def _integer_pow_float_exponent(call, ours, theirs, difference) -> bool:
    """lax.integer_pow with a float exponent equal to -1, 0, 1, 2 or 3: stablax raises
    TypeError (y is a static integer, as JAX documents); JAX 0.10.2 never checks y's type and
    its lowering special-cases those values, so they compute (3.5, or 4.0 through its
    repeated squaring's y & 1, raise TypeError in JAX too)."""
    y = _given(call, 1, "y")
    return (
        call["fn"] == "lax.integer_pow"
        and isinstance(y, dict)
        and isinstance(y.get("py"), float)
        and y["py"] in (-1.0, 0.0, 1.0, 2.0, 3.0)
        and _error(ours)
        and ours["type"] == "TypeError"
        and "lax.integer_pow: y must be an integer" in ours["message"]
        and theirs["kind"] == "value"
    )


RULES: list[Rule] = [
    ("polynomial-rank", _polynomial_rank, _polynomial_rank.__doc__),
    ("jax-value-artefacts", _jax_value_artefacts, _jax_value_artefacts.__doc__),
    ("non-integer-axis", _non_integer_axis, _non_integer_axis.__doc__),
    ("zero-d-keepdims", _zero_d_keepdims, _zero_d_keepdims.__doc__),
    ("numpy-accepts", _numpy_accepts, _numpy_accepts.__doc__),
    ("jax-lax-error-in-jnp", _jax_lax_error_in_jnp, _jax_lax_error_in_jnp.__doc__),
    ("checked-arguments", _checked_arguments, _checked_arguments.__doc__),
    ("empty-default-dtype", _empty_default_dtype, _empty_default_dtype.__doc__),
    ("single-shape-unchecked", _single_shape_unchecked, _single_shape_unchecked.__doc__),
    ("both-need-concrete", _both_need_concrete, _both_need_concrete.__doc__),
    ("non-square-hermitian", _non_square_hermitian, _non_square_hermitian.__doc__),
    ("static-error-first", _static_error_first, _static_error_first.__doc__),
    ("bytes-argument", _bytes_argument, _bytes_argument.__doc__),
    ("jax-missing-rule", _jax_missing_rule, _jax_missing_rule.__doc__),
    ("jax-traced-to-numpy", _jax_traced_to_numpy, _jax_traced_to_numpy.__doc__),
    ("unique-of-nothing", _unique_of_nothing, _unique_of_nothing.__doc__),
    ("bad-axis-index-error", _bad_axis_index_error, _bad_axis_index_error.__doc__),
    ("vmap-rank-broadcast", _vmap_rank_broadcast, _vmap_rank_broadcast.__doc__),
    ("fft-through-pad", _fft_through_pad, _fft_through_pad.__doc__),
    ("lax-python-scalars", _lax_python_scalars, _lax_python_scalars.__doc__),
    ("integer-select-predicate", _integer_select_predicate, _integer_select_predicate.__doc__),
    ("grad-of-integer-op", _grad_of_integer_op, _grad_of_integer_op.__doc__),
    ("integer-quantiles", _integer_quantiles, _integer_quantiles.__doc__),
    ("numpy-values", _numpy_values, _numpy_values.__doc__),
    ("array-api-special-values", _array_api_special_values, _array_api_special_values.__doc__),
    ("half-precision-linalg", _half_precision_linalg, _half_precision_linalg.__doc__),
    ("monoid-reduce", _monoid_reduce, _monoid_reduce.__doc__),
    ("numpy-errors", _numpy_errors, _numpy_errors.__doc__),
    ("jax-internal-error", _jax_internal, _jax_internal.__doc__),
    ("list-for-array", _list_input, _list_input.__doc__),
    ("broadcast-error-class", _both_broadcast, _both_broadcast.__doc__),
    ("negative-dimension-class", _both_negative_dimensions, _both_negative_dimensions.__doc__),
    ("lstsq-numpy-residuals", _lstsq_numpy_residuals, _lstsq_numpy_residuals.__doc__),
    ("jax-dot-weak-complex", _jax_dot_weak_complex, _jax_dot_weak_complex.__doc__),
    ("fft-backward-scaling", _fft_backward_scaling, _fft_backward_scaling.__doc__),
    ("insert-static-indices", _insert_static_indices, _insert_static_indices.__doc__),
    ("eig-of-a-vector", _eig_of_a_vector, _eig_of_a_vector.__doc__),
    ("constants-under-jit", _constants_under_jit, _constants_under_jit.__doc__),
    ("zero-derivative", _zero_derivative, _zero_derivative.__doc__),
    ("jax-unsigned-constant", _jax_unsigned_constant, _jax_unsigned_constant.__doc__),
    ("var-mean-shape", _var_mean_shape, _var_mean_shape.__doc__),
    ("unique-weak-type", _unique_weak_type, _unique_weak_type.__doc__),
    ("quantile-of-nothing", _quantile_of_nothing, _quantile_of_nothing.__doc__),
    ("quantile-weights", _quantile_weights, _quantile_weights.__doc__),
    ("scalar-cumulative", _scalar_cumulative, _scalar_cumulative.__doc__),
    ("none-for-array", _none_for_array, _none_for_array.__doc__),
    ("jax-narrow-int-kind", _jax_narrow_int_kind, _jax_narrow_int_kind.__doc__),
    ("repeat-checks", _repeat_checks, _repeat_checks.__doc__),
    ("take-checks", _take_checks, _take_checks.__doc__),
    ("jax-vdot-preferred-type", _jax_vdot_preferred_type, _jax_vdot_preferred_type.__doc__),
    ("tri-k-overflow", _tri_k_overflow, _tri_k_overflow.__doc__),
    ("set-fill-shape", _set_fill_shape, _set_fill_shape.__doc__),
    ("trapezoid-specials", _trapezoid_specials, _trapezoid_specials.__doc__),
    ("put-of-nothing", _put_of_nothing, _put_of_nothing.__doc__),
    ("complex-clamp", _complex_clamp, _complex_clamp.__doc__),
    ("callable-checked-first", _callable_checked_first, _callable_checked_first.__doc__),
    ("negative-map-batch", _negative_map_batch, _negative_map_batch.__doc__),
    ("reduce-non-scalar-init", _reduce_non_scalar_init, _reduce_non_scalar_init.__doc__),
    ("unsorted-take-axes", _unsorted_take_axes, _unsorted_take_axes.__doc__),
    ("rank-before-overflow", _rank_before_overflow, _rank_before_overflow.__doc__),
    ("select-broadcasts-cases", _select_broadcasts_cases, _select_broadcasts_cases.__doc__),
    ("out-sharding-unsupported", _out_sharding_unsupported, _out_sharding_unsupported.__doc__),
    ("accuracy-argument", _accuracy_argument, _accuracy_argument.__doc__),
    ("str-for-sequence", _str_for_sequence, _str_for_sequence.__doc__),
    ("vmap-slice-as-gather", _vmap_slice_as_gather, _vmap_slice_as_gather.__doc__),
    ("integer-axis-name", _integer_axis_name, _integer_axis_name.__doc__),
    ("conv-dilation-length", _conv_dilation_length, _conv_dilation_length.__doc__),
    ("vmap-linalg-rank", _vmap_linalg_rank, _vmap_linalg_rank.__doc__),
    ("zero-derivative-nextafter", _zero_derivative_nextafter, _zero_derivative_nextafter.__doc__),
    ("eig-grad-first", _eig_grad_first, _eig_grad_first.__doc__),
    ("bool-add-mul", _bool_add_mul, _bool_add_mul.__doc__),
    ("stateful-rng-values", _stateful_rng_values, _stateful_rng_values.__doc__),
    ("kron-of-booleans", _kron_of_booleans, _kron_of_booleans.__doc__),
    ("overflow-before-shape", _overflow_before_shape, _overflow_before_shape.__doc__),
    (
        "complex-correlation-infinities",
        _complex_correlation_infinities,
        _complex_correlation_infinities.__doc__,
    ),
    (
        "array-equiv-unbroadcastable",
        _array_equiv_unbroadcastable,
        _array_equiv_unbroadcastable.__doc__,
    ),
    ("two-bit-concatenate", _two_bit_concatenate, _two_bit_concatenate.__doc__),
    ("pad-width-broadcast", _pad_width_broadcast, _pad_width_broadcast.__doc__),
    ("piecewise-checks", _piecewise_checks, _piecewise_checks.__doc__),
    ("numpy-reshape", _numpy_reshape, _numpy_reshape.__doc__),
    ("variance-checks", _variance_checks, _variance_checks.__doc__),
    ("lenient-jax-slice", _lenient_jax_slice, _lenient_jax_slice.__doc__),
    ("dce-sink-flag", _dce_sink_flag, _dce_sink_flag.__doc__),
    ("index-take-clamps", _index_take_clamps, _index_take_clamps.__doc__),
    (
        "broadcast-dimensions-order",
        _broadcast_dimensions_order,
        _broadcast_dimensions_order.__doc__,
    ),
    ("array-as-shape", _array_as_shape, _array_as_shape.__doc__),
    ("padtype-to-pads-checks", _padtype_to_pads_checks, _padtype_to_pads_checks.__doc__),
    ("quantile-outside-range", _quantile_outside_range, _quantile_outside_range.__doc__),
    ("gradient-edge-order-one", _gradient_edge_order_one, _gradient_edge_order_one.__doc__),
    ("reshape-empty-batch", _reshape_empty_batch, _reshape_empty_batch.__doc__),
    (
        "update-slice-vmap-float-index",
        _update_slice_vmap_float_index,
        _update_slice_vmap_float_index.__doc__,
    ),
    ("random-gamma-grad-reverse", _random_gamma_grad_reverse, _random_gamma_grad_reverse.__doc__),
    ("eigh-integer-symmetrize", _eigh_integer_symmetrize, _eigh_integer_symmetrize.__doc__),
    (
        "cov-no-observations-dtype",
        _cov_no_observations_dtype,
        _cov_no_observations_dtype.__doc__,
    ),
    (
        "fromfunction-negative-shape",
        _fromfunction_negative_shape,
        _fromfunction_negative_shape.__doc__,
    ),
    ("fftfreq-non-integer-n", _fftfreq_non_integer_n, _fftfreq_non_integer_n.__doc__),
    (
        "power-python-int-overflow",
        _power_python_int_overflow,
        _power_python_int_overflow.__doc__,
    ),
    ("cov-ddof-beyond-count", _cov_ddof_beyond_count, _cov_ddof_beyond_count.__doc__),
    ("partition-bool-kth", _partition_bool_kth, _partition_bool_kth.__doc__),
    ("split-list-operand", _split_list_operand, _split_list_operand.__doc__),
    ("polyfit-exact-x", _polyfit_exact_x, _polyfit_exact_x.__doc__),
    (
        "logspace-integer-rounding",
        _logspace_integer_rounding,
        _logspace_integer_rounding.__doc__,
    ),
    ("str-axis-name", _str_axis_name, _str_axis_name.__doc__),
    ("variance-mean-rank", _variance_mean_rank, _variance_mean_rank.__doc__),
    (
        "apply-along-axis-extra-args",
        _apply_along_axis_extra_args,
        _apply_along_axis_extra_args.__doc__,
    ),
    (
        "vector-norm-integer-orders",
        _vector_norm_integer_orders,
        _vector_norm_integer_orders.__doc__,
    ),
    (
        "reduce-vmap-negative-axes",
        _reduce_vmap_negative_axes,
        _reduce_vmap_negative_axes.__doc__,
    ),
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
    (
        "vectorize-checks-at-definition",
        _vectorize_checks_at_definition,
        _vectorize_checks_at_definition.__doc__,
    ),
    (
        "split-negative-sections-of-nothing",
        _split_negative_sections_of_nothing,
        _split_negative_sections_of_nothing.__doc__,
    ),
    (
        "partition-complex-checks",
        _partition_complex_checks,
        _partition_complex_checks.__doc__,
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
        "broadcast-shapes-of-arrays",
        _broadcast_shapes_of_arrays,
        _broadcast_shapes_of_arrays.__doc__,
    ),
    (
        "compress-fill-value-traced-size",
        _compress_fill_value_traced_size,
        _compress_fill_value_traced_size.__doc__,
    ),
    (
        "index-in-dim-negative-static-index",
        _index_in_dim_negative_static_index,
        _index_in_dim_negative_static_index.__doc__,
    ),
    (
        "sort-unbatched-operand-of-other-shape",
        _sort_unbatched_operand_of_other_shape,
        _sort_unbatched_operand_of_other_shape.__doc__,
    ),
    (
        "pruned-overflowing-int",
        _pruned_overflowing_int,
        _pruned_overflowing_int.__doc__,
    ),
    (
        "intersect1d-empty-padding-indices",
        _intersect1d_empty_padding_indices,
        _intersect1d_empty_padding_indices.__doc__,
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
        "lstsq-empty-complex-singular-values",
        _lstsq_empty_complex_singular_values,
        _lstsq_empty_complex_singular_values.__doc__,
    ),
    (
        "tile-rep-beyond-int64",
        _tile_rep_beyond_int64,
        _tile_rep_beyond_int64.__doc__,
    ),
    (
        "tensorsolve-axes-order",
        _tensorsolve_axes_order,
        _tensorsolve_axes_order.__doc__,
    ),
    (
        "einsum-array-as-subscripts",
        _einsum_array_as_subscripts,
        _einsum_array_as_subscripts.__doc__,
    ),
    ("bool-add-mul-reduce", _bool_add_mul_reduce, _bool_add_mul_reduce.__doc__),
    (
        "logspace-equal-ends-negative-base",
        _logspace_equal_ends_negative_base,
        _logspace_equal_ends_negative_base.__doc__,
    ),
    ("roll-float-shift", _roll_float_shift, _roll_float_shift.__doc__),
    ("rfft-narrow-float-input", _rfft_narrow_float_input, _rfft_narrow_float_input.__doc__),
    ("interp-narrow-xp-finfo", _interp_narrow_xp_finfo, _interp_narrow_xp_finfo.__doc__),
    ("spacing-float8-signbit", _spacing_float8_signbit, _spacing_float8_signbit.__doc__),
    (
        "scan-forwarded-carry-object",
        _scan_forwarded_carry_object,
        _scan_forwarded_carry_object.__doc__,
    ),
    (
        "integer-pow-float-exponent",
        _integer_pow_float_exponent,
        _integer_pow_float_exponent.__doc__,
    ),
]


def explain(call: dict, ours: dict, theirs: dict, difference: tuple[str, str]) -> str | None:
    """The name of the first rule covering this difference, or None."""
    for name, applies, _reason in RULES:
        try:
            if applies(call, ours, theirs, difference):
                return name
        except (KeyError, IndexError, TypeError):
            continue
    return None


def _any(*args: Any) -> bool:
    return any(args)
