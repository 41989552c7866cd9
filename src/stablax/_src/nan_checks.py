"""`jax_debug_nans`: the check run on an executable's outputs, eager ops and jitted calls alike."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from stablax._src import dtypes, runtime


def check_nans(name: str, buffers: Sequence[Any], avals: Sequence[Any]) -> None:
    """Raises FloatingPointError if an inexact output holds a NaN."""
    for buf, aval in zip(buffers, avals, strict=True):
        if dtypes.issubdtype(aval.dtype, np.inexact) and np.isnan(runtime.to_host(buf)).any():
            raise FloatingPointError(f"invalid value (nan) encountered in {name}")
