"""Rules for jnp.fft: transforms over no axes, scaling, narrow float inputs and frequencies."""

from __future__ import annotations

import re

from tests.reliability.known_differences._shared import (
    Rule,
    _error,
    _special_values,
    _value_difference,
)


def _fft_through_pad(call, ours, theirs, difference) -> bool:
    """jnp.fft.*n with s=() (no axes): JAX fails in the jnp.pad it calls internally; stablax
    returns the input as the complex transform over no axes."""
    return (
        call["fn"].startswith("jnp.fft.")
        and _error(theirs)
        and theirs["message"].startswith("jnp.pad: pad_width with nd=")
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


def _more_lengths_than_dimensions(call, ours, theirs, difference) -> bool:
    """fftn-style transforms given s with one length more than the input has dimensions and
    no axes: NumPy refuses (axis -len(s) is out of bounds), as stablax does (ValueError);
    JAX 0.10.2 wraps that axis around to the last and returns a transform of the wrong rank
    (with two or more extra lengths it raises too)."""
    return (
        call["fn"].startswith("jnp.fft.")
        and _error(ours)
        and "has more lengths than the input has dimensions" in ours["message"]
        and theirs["kind"] == "value"
    )


RULES: list[Rule] = [
    (
        "more-lengths-than-dimensions",
        _more_lengths_than_dimensions,
        _more_lengths_than_dimensions.__doc__,
    ),
    ("fft-through-pad", _fft_through_pad, _fft_through_pad.__doc__),
    ("fft-backward-scaling", _fft_backward_scaling, _fft_backward_scaling.__doc__),
    ("fftfreq-non-integer-n", _fftfreq_non_integer_n, _fftfreq_non_integer_n.__doc__),
    ("rfft-narrow-float-input", _rfft_narrow_float_input, _rfft_narrow_float_input.__doc__),
]
