"""Op records for lax.fft: the four transform types over one to three trailing dimensions."""

from __future__ import annotations

import numpy as np

from stablax import lax
from tests.op_record import C64, C128, F32, F64, OpRecord


def _complex_fft(kind, lengths):
    axes = tuple(range(-len(lengths), 0))
    numpy_fn = {"fft": np.fft.fftn, "ifft": np.fft.ifftn}[kind]
    return lambda x: numpy_fn(x, s=lengths, axes=axes)


def _irfft_reference(lengths):
    return lambda x: np.fft.irfftn(x, s=lengths, axes=tuple(range(-len(lengths), 0)))


def _rfft_reference(lengths):
    return lambda x: np.fft.rfftn(x, s=lengths, axes=tuple(range(-len(lengths), 0)))


def _record(name, kind, lengths, shapes, dtypes, x64_dtypes, reference):
    return OpRecord(
        name,
        lambda x: lax.fft(x, kind, lengths),
        reference,
        shapes,
        dtypes,
        tol=1e-4,
        linear=True,
        x64_dtypes=x64_dtypes,
    )


RECORDS = [
    _record("fft", "fft", (8,), [((8,),), ((3, 8),)], (C64,), (C128,), _complex_fft("fft", (8,))),
    _record(
        "fft_3d",
        "fft",
        (2, 3, 4),
        [((2, 3, 4),), ((2, 2, 3, 4),)],
        (C64,),
        (C128,),
        _complex_fft("fft", (2, 3, 4)),
    ),
    _record(
        "ifft_2d",
        "ifft",
        (3, 5),
        [((3, 5),), ((2, 3, 5),)],
        (C64,),
        (C128,),
        _complex_fft("ifft", (3, 5)),
    ),
    _record("rfft", "rfft", (8,), [((8,),), ((3, 8),)], (F32,), (F64,), _rfft_reference((8,))),
    _record("rfft_odd", "rfft", (7,), [((7,),), ((2, 7),)], (F32,), (F64,), _rfft_reference((7,))),
    _record(
        "rfft_2d",
        "rfft",
        (4, 6),
        [((4, 6),), ((2, 4, 6),)],
        (F32,),
        (F64,),
        _rfft_reference((4, 6)),
    ),
    _record("irfft", "irfft", (8,), [((5,),), ((3, 5),)], (C64,), (C128,), _irfft_reference((8,))),
    _record(
        "irfft_odd", "irfft", (7,), [((4,),), ((2, 4),)], (C64,), (C128,), _irfft_reference((7,))
    ),
    _record(
        "irfft_3d",
        "irfft",
        (2, 3, 6),
        [((2, 3, 4),), ((2, 2, 3, 4),)],
        (C64,),
        (C128,),
        _irfft_reference((2, 3, 6)),
    ),
]
