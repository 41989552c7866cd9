"""`jax_debug_nans` and `jax_debug_infs`: which values they forbid, the test of a program's outputs
and JAX's error (nan_locator.py finds the op that made the value)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from stablax._src import dtypes, runtime
from stablax._src.config import config


def checked_kinds() -> tuple[str, ...]:
    """The kinds of invalid value the flags ask to catch: "nan", "inf", both or neither."""
    return ("nan",) * bool(config.jax_debug_nans) + ("inf",) * bool(config.jax_debug_infs)


def invalid_kind(buffers: Sequence[Any], avals: Sequence[Any], kinds: Sequence[str]) -> str | None:
    """The first of `kinds` that an inexact buffer holds, or None."""
    for buf, aval in zip(buffers, avals, strict=True):
        if not dtypes.issubdtype(aval.dtype, np.inexact):
            continue
        values = runtime.to_host(buf)
        for kind in kinds:
            if (np.isnan(values) if kind == "nan" else np.isinf(values)).any():
                return kind
    return None


def invalid_value_error(kind: str, where: str) -> FloatingPointError:
    """JAX's error for an invalid value: "invalid value (nan) encountered in log ..."."""
    return FloatingPointError(f"invalid value ({kind}) encountered in {where}")
