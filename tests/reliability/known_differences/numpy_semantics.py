"""Rules where stablax follows NumPy's values, errors or leniency (and the Array API's special
values) and JAX 0.10.2 does not.
"""

from __future__ import annotations

import re

import numpy as np

from tests.reliability import fuzz_values
from tests.reliability.known_differences._shared import (
    Rule,
    _error,
    _fn,
    _given,
    _has_dtype,
    _special_values,
    _value_difference,
)


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
    with no sample points, an ndmin that is no integer, a reduction's where= mask of more
    dimensions than the array (NumPy's ValueError; JAX reduces the array's own axes and returns
    the mask's leftover shape); rounding
    integers to negative decimals works (JAX raises NotImplementedError)."""
    fn = call["fn"]
    numpy_messages = {
        # NumPy: "Invalid number of FFT data points (0) specified."; JAX returns an empty array.
        "jnp.fft.": "invalid number of data points",
        # NumPy's AxisError from moveaxis; JAX ignores the axis of a 1-D result.
        "jnp.linspace": "out of bounds for array of dimension",
        "jnp.logspace": "out of bounds for array of dimension",
        "jnp.geomspace": "out of bounds for array of dimension",
        # NumPy: "input operand has more dimensions than allowed by the axis remapping".
        "jnp.": "does not broadcast to the array's shape",
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


def _scalar_cumulative(call, ours, theirs, difference) -> bool:
    """Cumulative sums and products of a 0-d input along axis 0 or -1: stablax follows NumPy
    (the input counts as 1-d, as JAX does for Python scalars); JAX raises for a 0-d array and
    for nancumsum/nancumprod of a NumPy scalar (its NaN rewrite makes it an array first). Past
    that axis, stablax checks the dtype next (a bad one is its TypeError)."""
    bad_dtype = _error(ours) and ours["type"] == "TypeError" and "as a dtype" in ours["message"]
    return (
        call["fn"] in ("jnp.cumsum", "jnp.cumprod", "jnp.nancumsum", "jnp.nancumprod")
        and (ours["kind"] == "value" or bad_dtype)
        and _error(theirs)
        and bool(
            re.match(r"axis -?\d+ is out of bounds for array of dimension 0", theirs["message"])
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


def _array_equiv_unbroadcastable(call, ours, theirs, difference) -> bool:
    """array_equiv of shapes that do not broadcast is False, NumPy's answer; JAX's comparison
    of shapes of which one is empty raises its broadcasting TypeError."""
    return (
        call["fn"] == "jnp.array_equiv"
        and ours["kind"] == "value"
        and _error(theirs)
        and "incompatible shapes for broadcasting" in theirs["message"]
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


def _partition_bool_kth(call, ours, theirs, difference) -> bool:
    """jnp.partition/argpartition with a bool kth: stablax raises TypeError, as NumPy refuses
    it ("Booleans unacceptable as partition index"); JAX 0.10.2 reads True as 1."""
    return (
        call["fn"] in ("jnp.partition", "jnp.argpartition")
        and _error(ours)
        and bool(re.search(r"kth must be an integer, got (?:True|False)\b", ours["message"]))
        and theirs["kind"] == "value"
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


def _broadcast_shapes_echoes_dims(call, ours, theirs, difference) -> bool:
    """jnp.broadcast_shapes under jit of bool dims (`broadcast_shapes(False, False)`): JAX
    hands back the given objects, so its shape holds a bool and the jitted output is a bool
    array; stablax's shape holds Python ints (NumPy's answer), an int32 output, equal in value."""

    def dims(value):
        return [v.get("values", {}).get("ints") for v in value.get("seq", [])]

    return (
        call["fn"] == "jnp.broadcast_shapes"
        and difference[0] in ("diverge-dtype", "diverge-weak-type")
        and ours["kind"] == "value"
        and theirs["kind"] == "value"
        and None not in dims(ours["value"])
        and dims(ours["value"]) == dims(theirs["value"])
        and all(v.get("dtype") == "bool" for v in theirs["value"].get("seq", []))
    )


def _cross_with_itself(call, ours, theirs, difference) -> bool:
    """The cross product of an array with itself: stablax's products cancel exactly (zeros,
    NumPy's answer); XLA fuses JAX's a*b - c*d into a multiply-add that leaves a rounding
    residue of about 1e-9."""
    args = call["args"]
    flat = ((ours.get("value") or {}).get("values") or {}).get("flat") or []
    return (
        call["fn"] in ("jnp.cross", "jnp.linalg.cross")
        and len(args) >= 2
        and args[0] == args[1]
        and _value_difference(difference)
        and all(v == 0.0 for v in flat)
    )


def _nan_extremum_complex_nan_initial(call, ours, theirs, difference) -> bool:
    """nanmax/nanmin of complex values with initial=NaN: stablax keeps the NaN initial value, as
    JAX (and stablax) do for real values; JAX's complex path drops it and returns the
    extremum of the data."""
    initial = call["kwargs"].get("initial")
    return (
        call["fn"] in ("jnp.nanmax", "jnp.nanmin")
        and _has_dtype(call, "complex")
        and isinstance(initial, dict)
        and isinstance(initial.get("py"), float)
        and initial["py"] != initial["py"]
        and _value_difference(difference)
    )


def _polyfit_integer_x(call, ours, theirs, difference) -> bool:
    """polyfit of integer x with rcond given (without it JAX refuses integers): JAX builds the
    Vandermonde matrix and its column norms in x's own integer type (uint8 squares wrap) and
    divides into the default float; stablax fits in x's inexact type, as NumPy fits floats."""
    x = _given(call, 0, "x")
    return (
        call["fn"] == "jnp.polyfit"
        and isinstance(x, dict)
        and x.get("dtype", "").startswith(("int", "uint"))
        and _given(call, 3, "rcond") is not None
        and difference[0] in ("diverge-dtype", "diverge-value")
    )


def _triangle_offset_past_int(call, ours, theirs, difference) -> bool:
    """tril/triu and tril_indices/triu_indices with an offset k outside the default integer
    type: stablax compares with the Python int, giving NumPy's answer; JAX converts k to int32
    (int64 with x64) first and raises OverflowError."""
    k = _given(call, 1, "k")
    return (
        call["fn"] in ("jnp.tril", "jnp.triu", "jnp.tril_indices", "jnp.triu_indices")
        and ours["kind"] == "value"
        and _error(theirs)
        and theirs["type"] == "OverflowError"
        and isinstance(k, dict)
        and isinstance(k.get("py"), int)
    )


def _equal_ends(call: dict) -> bool:
    """Whether a linspace/logspace call's start and stop are the same Python scalar."""
    given = [*call["args"][:2], call["kwargs"].get("start"), call["kwargs"].get("stop")]
    ends = [a for a in given if a is not None][:2]
    start, stop = (a.get("py") if isinstance(a, dict) else None for a in (ends + [{}, {}])[:2])
    return start is not None and start == stop


def _logspace_equal_ends_negative_base(call, ours, theirs, difference) -> bool:
    """logspace with equal ends and a negative base: stablax's samples are the end exactly,
    as NumPy's (so (-1.0)**5 is -1 everywhere); JAX 0.10.2's blend start*(1-t) + stop*t lands a
    hair off the end at some t, and a negative base to a non-integer power is NaN there."""
    found = re.search(r"element \d+: (\S+) vs JAX nan$", difference[1])
    return (
        call["fn"] == "jnp.logspace"
        and _value_difference(difference)
        and found is not None
        and found[1] != "nan"
        and _equal_ends(call)
    )


def _linspace_equal_ends_integer(call, ours, theirs, difference) -> bool:
    """Integer linspace with equal ends: every stablax sample is the end exactly, as NumPy's;
    JAX 0.10.2's blend start*(1-t) + stop*t lands a hair below the end at some t (2.9999...
    for 3), and the cast to the integer dtype truncates those samples to one less."""
    return (
        call["fn"] == "jnp.linspace"
        and difference[0] == "diverge-value"
        and "values differ" in difference[1]
        and _equal_ends(call)
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


def _digitize_unordered_bins(call, ours, theirs, difference) -> bool:
    """jnp.digitize with bins that are neither increasing nor decreasing (a NaN among them, or
    complex bins, which have no order): NumPy refuses them, so no answer is right; JAX 0.10.2
    and stablax each return where their binary search happens to stop."""
    if call["fn"] != "jnp.digitize" or not _value_difference(difference):
        return False
    given = [*call["args"][:2], call["kwargs"].get("bins")]
    bins = [b for b in given[1:] if isinstance(b, dict) and "array" in b][:1]
    if not bins:
        return False
    spec = bins[0]
    fill = spec.get("fill", "normal")
    values = fuzz_values.host_data(spec["array"], spec["dtype"], spec["seed"], fill)
    values = np.asarray(values).ravel()
    if values.dtype.kind == "c" or np.isnan(values.astype(np.float64)).any():
        return True
    steps = np.diff(values.astype(np.float64))
    return not (np.all(steps >= 0) or np.all(steps <= 0))


RULES: list[Rule] = [
    ("digitize-unordered-bins", _digitize_unordered_bins, _digitize_unordered_bins.__doc__),
    ("polynomial-rank", _polynomial_rank, _polynomial_rank.__doc__),
    ("non-integer-axis", _non_integer_axis, _non_integer_axis.__doc__),
    ("numpy-values", _numpy_values, _numpy_values.__doc__),
    ("array-api-special-values", _array_api_special_values, _array_api_special_values.__doc__),
    ("numpy-errors", _numpy_errors, _numpy_errors.__doc__),
    ("scalar-cumulative", _scalar_cumulative, _scalar_cumulative.__doc__),
    ("trapezoid-specials", _trapezoid_specials, _trapezoid_specials.__doc__),
    ("kron-of-booleans", _kron_of_booleans, _kron_of_booleans.__doc__),
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
    ("pad-width-broadcast", _pad_width_broadcast, _pad_width_broadcast.__doc__),
    ("piecewise-checks", _piecewise_checks, _piecewise_checks.__doc__),
    ("gradient-edge-order-one", _gradient_edge_order_one, _gradient_edge_order_one.__doc__),
    (
        "fromfunction-negative-shape",
        _fromfunction_negative_shape,
        _fromfunction_negative_shape.__doc__,
    ),
    (
        "power-python-int-overflow",
        _power_python_int_overflow,
        _power_python_int_overflow.__doc__,
    ),
    ("partition-bool-kth", _partition_bool_kth, _partition_bool_kth.__doc__),
    ("polyfit-exact-x", _polyfit_exact_x, _polyfit_exact_x.__doc__),
    (
        "logspace-integer-rounding",
        _logspace_integer_rounding,
        _logspace_integer_rounding.__doc__,
    ),
    (
        "apply-along-axis-extra-args",
        _apply_along_axis_extra_args,
        _apply_along_axis_extra_args.__doc__,
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
    (
        "broadcast-shapes-of-arrays",
        _broadcast_shapes_of_arrays,
        _broadcast_shapes_of_arrays.__doc__,
    ),
    ("cross-with-itself", _cross_with_itself, _cross_with_itself.__doc__),
    (
        "nan-extremum-complex-nan-initial",
        _nan_extremum_complex_nan_initial,
        _nan_extremum_complex_nan_initial.__doc__,
    ),
    ("polyfit-integer-x", _polyfit_integer_x, _polyfit_integer_x.__doc__),
    ("triangle-offset-past-int", _triangle_offset_past_int, _triangle_offset_past_int.__doc__),
    (
        "broadcast-shapes-echoes-dims",
        _broadcast_shapes_echoes_dims,
        _broadcast_shapes_echoes_dims.__doc__,
    ),
    (
        "logspace-equal-ends-negative-base",
        _logspace_equal_ends_negative_base,
        _logspace_equal_ends_negative_base.__doc__,
    ),
    (
        "linspace-equal-ends-integer",
        _linspace_equal_ends_integer,
        _linspace_equal_ends_integer.__doc__,
    ),
    ("roll-float-shift", _roll_float_shift, _roll_float_shift.__doc__),
]
