"""Rules for quantiles, medians, var/std, cov and histograms: empty axes, out-of-range q,
integer inputs and the checks NumPy makes.
"""

from __future__ import annotations

import re

import numpy as np

from tests.reliability import fuzz_values
from tests.reliability.known_differences._shared import Rule, _error, _value_difference

_QUANTILE_FNS = (
    "jnp.quantile",
    "jnp.nanquantile",
    "jnp.percentile",
    "jnp.nanpercentile",
    "jnp.median",
    "jnp.nanmedian",
)


_VARIANCE_FNS = ("jnp.var", "jnp.std", "jnp.nanvar", "jnp.nanstd")


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


def _numpy_accepts(call, ours, theirs, difference) -> bool:
    """histogram_bin_edges (and histogram) of an empty array: stablax gives NumPy's bins over
    [0, 1]; JAX takes the min and max of nothing (ValueError)."""
    return (
        call["fn"] in ("jnp.histogram_bin_edges", "jnp.histogram")
        and ours["kind"] == "value"
        and _error(theirs)
        and "zero-size array to reduction operation" in theirs["message"]
    )


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


def _cov_no_observations_dtype(call, ours, theirs, difference) -> bool:
    """jnp.cov of variables with no observations, given a dtype: stablax returns NaNs in that
    dtype, as NumPy does; JAX 0.10.2 returns them early in the inputs' promoted dtype, the
    requested one unread."""
    if call["fn"] != "jnp.cov" or difference[0] != "diverge-dtype":
        return False
    values = [
        ((outcome.get("value") or {}).get("values") or {}).get("flat") for outcome in (ours, theirs)
    ]
    return call["kwargs"].get("dtype") is not None and all(
        flat is not None and all(v == "nan" for v in flat) for flat in values
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


def _histogram_numpy_counts(call, ours, theirs, difference) -> bool:
    """jnp.histogram counts where stablax's equal NumPy's: JAX 0.10.2's fused linspace puts
    interior bin edges an ulp above the exact value (2.0000000000000004 for 2), so data lying
    on such an edge (integers, mostly) falls one bin lower than in NumPy."""
    if not (
        call["fn"] == "jnp.histogram"
        and call["mode"] in ("eager", "jit")
        and difference[0] == "diverge-value"
        and difference[1].startswith("[0]:")
        and call["args"]
        and "array" in call["args"][0]
        and ours["kind"] == "value"
    ):
        return False
    kwargs = {k: v for k, v in call["kwargs"].items() if k in ("bins", "density")}
    if any(not isinstance(v, dict) or "py" not in v for v in kwargs.values()):
        return False
    spec = call["args"][0]
    fill = spec.get("fill", "normal")
    a = fuzz_values.host_data(spec["array"], spec["dtype"], spec["seed"], fill)
    kwargs = {k: v["py"] for k, v in kwargs.items()}
    if kwargs.get("bins") is None:
        kwargs.pop("bins", None)
    try:
        expected = np.histogram(np.asarray(a, np.float64).ravel(), **kwargs)[0]
    except (TypeError, ValueError):
        return False
    counts = ours["value"]["seq"][0]["values"]
    flat = counts.get("flat", counts.get("ints"))
    return flat is not None and np.allclose(np.asarray(flat, np.float64), expected)


RULES: list[Rule] = [
    (
        "histogram-numpy-counts",
        _histogram_numpy_counts,
        _histogram_numpy_counts.__doc__,
    ),
    ("zero-d-keepdims", _zero_d_keepdims, _zero_d_keepdims.__doc__),
    ("numpy-accepts", _numpy_accepts, _numpy_accepts.__doc__),
    ("integer-quantiles", _integer_quantiles, _integer_quantiles.__doc__),
    ("var-mean-shape", _var_mean_shape, _var_mean_shape.__doc__),
    ("quantile-of-nothing", _quantile_of_nothing, _quantile_of_nothing.__doc__),
    ("quantile-weights", _quantile_weights, _quantile_weights.__doc__),
    ("variance-checks", _variance_checks, _variance_checks.__doc__),
    ("quantile-outside-range", _quantile_outside_range, _quantile_outside_range.__doc__),
    (
        "cov-no-observations-dtype",
        _cov_no_observations_dtype,
        _cov_no_observations_dtype.__doc__,
    ),
    ("cov-ddof-beyond-count", _cov_ddof_beyond_count, _cov_ddof_beyond_count.__doc__),
    ("variance-mean-rank", _variance_mean_rank, _variance_mean_rank.__doc__),
]
