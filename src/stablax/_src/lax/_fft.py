"""Fast Fourier transforms: `lax.fft` (`stablehlo.fft`, types FFT/IFFT/RFFT/IRFFT over the 1 to 3
trailing dimensions).

All four are linear. FFT and IFFT matrices are symmetric, so they are their own transposes;
RFFT and IRFFT transpose through the full complex transform and the Hermitian half-spectrum.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any

import numpy as np

from stablax._src import dtypes
from stablax._src import ir as mlir
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.dispatch import bind
from stablax._src.interpreters.batching import moveaxis
from stablax._src.ir import ir, stablehlo
from stablax._src.lax import _elementwise as ew
from stablax._src.lax import _elementwise_unary as unary
from stablax._src.lax._argcheck import int_sequence
from stablax._src.lax._shapes import broadcast_in_dim, convert_element_type, full
from stablax._src.lax._slice_pad import (
    concatenate,
    pad,
)
from stablax._src.op_rules import def_op


class FftType(enum.IntEnum):
    """The kind of transform `lax.fft` computes (JAX's `lax.FftType`)."""

    FFT = 0  # complex -> complex, forward
    IFFT = 1  # complex -> complex, inverse (scaled by 1/n)
    RFFT = 2  # real -> complex, the non-negative frequencies only
    IRFFT = 3  # complex half-spectrum -> real, inverse of RFFT


_COMPLEX_OF = {
    np.dtype(np.float32): np.dtype(np.complex64),
    np.dtype(np.float64): np.dtype(np.complex128),
}
_REAL_OF = {c: r for r, c in _COMPLEX_OF.items()}


def _fft_rule(x: ShapedArray, *, fft_type: FftType, fft_lengths: tuple[int, ...]) -> ShapedArray:
    where = mlir.where_suffix()
    name = fft_type.name
    if not 1 <= len(fft_lengths) <= 3:
        raise ValueError(f"lax.fft: {name} takes 1 to 3 fft_lengths, got {fft_lengths}{where}")
    if len(fft_lengths) > x.ndim:
        raise ValueError(
            f"lax.fft: {name} input {x.str_short()} must have at least as many dimensions as "
            f"fft_lengths {fft_lengths}{where}"
        )
    # The half-spectrum of length n has n // 2 + 1 entries, so n = 0 has no real transform; but
    # an IRFFT to zero samples is an empty result, as in JAX (from a last dimension of 0 or 1).
    if fft_type == FftType.RFFT and fft_lengths[-1] <= 0:
        raise ValueError(f"lax.fft: {name} needs a positive length, got {fft_lengths}{where}")
    if fft_type == FftType.IRFFT and fft_lengths[-1] < 0:
        raise ValueError(f"lax.fft: {name} needs a non-negative length, got {fft_lengths}{where}")
    if fft_type == FftType.RFFT:
        if x.dtype not in _COMPLEX_OF:
            raise ValueError(
                f"lax.fft: RFFT input must be float32 or float64, got {x.dtype.name}{where}"
            )
    elif x.dtype not in _REAL_OF:
        raise ValueError(
            f"lax.fft: {name} input must be complex64 or complex128, got {x.dtype.name}{where}"
        )
    minor = x.shape[x.ndim - len(fft_lengths) :]
    expected = fft_lengths
    if fft_type == FftType.IRFFT:
        expected = (*fft_lengths[:-1], fft_lengths[-1] // 2 + 1)
        if fft_lengths[-1] == 0 and minor[-1:] == (0,):
            expected = (*fft_lengths[:-1], 0)
    if minor != expected:
        raise ValueError(
            f"lax.fft: {name} input {x.str_short()} must end in dimensions {expected} for "
            f"fft_lengths {fft_lengths}{where}"
        )
    batch = x.shape[: x.ndim - len(fft_lengths)]
    if fft_type == FftType.RFFT:
        shape = (*batch, *fft_lengths[:-1], fft_lengths[-1] // 2 + 1)
        return ShapedArray(shape, _COMPLEX_OF[x.dtype])
    if fft_type == FftType.IRFFT:
        return ShapedArray((*batch, *fft_lengths), _REAL_OF[x.dtype])
    return ShapedArray(x.shape, x.dtype)


def _fft_lowering(operands, in_avals, out_avals, *, fft_type, fft_lengths):
    attrs = {
        "fft_type": stablehlo.FftTypeAttr.get(fft_type.name),
        "fft_length": mlir.i64_array(fft_lengths),
    }
    op = mlir.emit("stablehlo.fft", operands, [mlir.aval_type(out_avals[0])], attrs)
    return list(op.results)


def _fft_decode(op: Any) -> dict[str, Any]:
    return {
        "fft_type": FftType[stablehlo.FftTypeAttr(op.attributes["fft_type"]).value],
        "fft_lengths": tuple(int(v) for v in ir.DenseI64ArrayAttr(op.attributes["fft_length"])),
    }


def _fft_jvp(primals, tangents, *, fft_type, fft_lengths):
    params = {"fft_type": fft_type, "fft_lengths": fft_lengths}
    return bind("stablehlo.fft", primals[0], **params), bind("stablehlo.fft", tangents[0], **params)


def _fft_transpose(ct, x, *, fft_type, fft_lengths):
    if fft_type in (FftType.FFT, FftType.IFFT):
        return [bind("stablehlo.fft", ct, fft_type=fft_type, fft_lengths=fft_lengths)]
    if fft_type == FftType.RFFT:
        return [_rfft_transpose(ct, fft_lengths)]
    if fft_lengths[-1] == 0:  # no samples: nothing flows back to the (empty or 1-wide) input
        return [full(x.aval.shape, 0, x.aval.dtype)]
    return [_irfft_transpose(ct, fft_lengths)]


def _rfft_transpose(ct, fft_lengths):
    # RFFT = (keep the first n//2+1 frequencies) . FFT . (real -> complex). Transposed: zero-pad
    # the dropped frequencies, FFT (symmetric), keep the real part.
    aval = aval_of(ct)
    missing = fft_lengths[-1] - aval.shape[-1]
    config = [(0, 0, 0)] * (aval.ndim - 1) + [(0, missing, 0)]
    full_spectrum = pad(ct, full((), 0, aval.dtype), config)
    transformed = bind(
        "stablehlo.fft", full_spectrum, fft_type=FftType.FFT, fft_lengths=fft_lengths
    )
    return unary.real(transformed)


def _irfft_transpose(ct, fft_lengths):
    # x[n] = (1/N) sum_k w_k Re(z_k e^{2 pi i k n / N}) over the half-spectrum, where w_k is 2
    # for the frequencies that stand for a conjugate pair and 1 for DC (and Nyquist, N even).
    # Under the bilinear pairing Re(sum ct_z * dz) this gives ct_z = w/N * conj(RFFT(ct_x)).
    spectrum = bind("stablehlo.fft", ct, fft_type=FftType.RFFT, fft_lengths=fft_lengths)
    aval = aval_of(spectrum)
    half = aval.shape[-1]
    real_dtype = _REAL_OF[aval.dtype]
    paired = half - 2 + fft_lengths[-1] % 2  # frequencies with a mirror image
    pieces = [full((1,), 1.0, real_dtype), full((paired,), 2.0, real_dtype)]
    if fft_lengths[-1] % 2 == 0:
        pieces.append(full((1,), 1.0, real_dtype))
    weights = concatenate(pieces, 0)
    scale = ew.mul(weights, full((), 1.0 / np.prod(fft_lengths), real_dtype))
    scale = broadcast_in_dim(scale, aval.shape, (aval.ndim - 1,))
    return ew.mul(ew.conj(spectrum), convert_element_type(scale, aval.dtype))


def _fft_batch(values, dims, *, axis_size, fft_type, fft_lengths):
    # The transform reads the trailing dimensions: the batch dimension goes to the front.
    x = moveaxis(values[0], dims[0], 0)
    return bind("stablehlo.fft", x, fft_type=fft_type, fft_lengths=fft_lengths), 0


def_op(
    "stablehlo.fft",
    _fft_rule,
    _fft_lowering,
    decode=_fft_decode,
    jvp=_fft_jvp,
    transpose=_fft_transpose,
    batch=_fft_batch,
)


def _fft_type(fft_type: Any) -> FftType:
    # As JAX: an FftType, or its name in lower or upper case (ValueError for another string);
    # anything else, a plain int included, is a TypeError.
    if isinstance(fft_type, FftType):
        return fft_type
    if isinstance(fft_type, str):
        if (
            fft_type in FftType.__members__
            or fft_type.upper() in FftType.__members__
            and (fft_type == fft_type.lower())
        ):
            return FftType[fft_type.upper()]
        raise ValueError(f"lax.fft: unknown FFT type {fft_type!r}{mlir.where_suffix()}")
    raise TypeError(
        f"lax.fft: fft_type must be an FftType or its name, got {fft_type!r}{mlir.where_suffix()}"
    )


def fft(x: Any, fft_type: FftType | str, fft_lengths: Sequence[int]) -> Any:
    """A 1 to 3 dimensional FFT over the trailing dimensions of `x` (`stablehlo.fft`).

    Args:
      x: the input. FFT and IFFT convert it to complex; IRFFT to complex; RFFT needs float32
        or float64.
      fft_type: `FftType` or its name ("fft", "ifft", "rfft", "irfft").
      fft_lengths: the transform's length along each trailing dimension. For IRFFT these are
        the output lengths: the input's last dimension is `fft_lengths[-1] // 2 + 1`.

    Returns:
      The transform: complex for FFT, IFFT, RFFT (last dimension `n // 2 + 1` for RFFT); real
      for IRFFT. IFFT and IRFFT are scaled by 1/prod(fft_lengths).
    """
    fft_type = _fft_type(fft_type)
    dtype = aval_of(x).dtype
    # As JAX: 64-bit inputs transform in double precision, narrower ones in single.
    real = np.dtype(np.float64 if dtype.itemsize >= 8 and dtype.kind != "c" else np.float32)
    if fft_type == FftType.RFFT:
        if dtype.kind == "c":
            raise ValueError(
                f"lax.fft: RFFT needs a real input, got {dtype.name}{mlir.where_suffix()}"
            )
        x = convert_element_type(x, dtypes.to_inexact_dtype(dtype))  # uint4 too, as JAX
    else:
        x = convert_element_type(x, dtype if dtype.kind == "c" else _COMPLEX_OF[real])
    # (always converted, as JAX: a weak input, a Python scalar, comes back strongly typed)
    # The lengths after the input's dtype, in JAX's order.
    _check_non_integer_lengths(aval_of(x), fft_type, fft_lengths)
    fft_lengths = int_sequence(fft_lengths, "fft_lengths", "lax.fft")
    if any(n >= 2**63 for n in fft_lengths):  # an extent XLA cannot hold (even of no data)
        raise ValueError(
            f"lax.fft: fft_lengths {fft_lengths} do not fit in a signed 64-bit integer"
            f"{mlir.where_suffix()}"
        )
    if not fft_lengths:
        return x
    return bind("stablehlo.fft", x, fft_type=fft_type, fft_lengths=fft_lengths)


def _check_non_integer_lengths(x: ShapedArray, fft_type: FftType, lengths: Any) -> None:
    """JAX compares the input's minor dimensions with the lengths before it reads them as
    integers, so a length of 1.5 or None there is a shape mismatch (ValueError); IRFFT
    computes with the last length first (TypeError, from `int_sequence`)."""
    if fft_type == FftType.IRFFT or not isinstance(lengths, (list, tuple)):
        return
    if all(type(v) is int for v in lengths) or not 0 < len(lengths) <= x.ndim:
        return
    if any(not isinstance(v, (int, float, str, type(None))) for v in lengths):
        return  # arrays and other objects: left to `int_sequence`
    minor = x.shape[x.ndim - len(lengths) :]
    if minor != tuple(lengths):
        raise ValueError(
            f"lax.fft: input {x.str_short()} must end in dimensions equal to fft_lengths "
            f"{tuple(lengths)}{mlir.where_suffix()}"
        )


__all__ = ["FftType", "fft"]
