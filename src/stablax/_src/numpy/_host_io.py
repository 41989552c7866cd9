"""Host-side conveniences NumPy users expect: printing options, repr/str, and .npy/.npz files.

Printing goes through NumPy's formatter (an Array's repr does too), so NumPy's print options are
stablax's; files are read and written by NumPy on host copies.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax._src.numpy._asarray import asarray

printoptions = np.printoptions
get_printoptions = np.get_printoptions
set_printoptions = np.set_printoptions
array_str = np.array_str


def array_repr(
    arr: Any,
    max_line_width: int | None = None,
    precision: int | None = None,
    suppress_small: bool | None = None,
) -> str:
    """`np.array_repr` of the array's values, named `Array` as stablax (and JAX) print arrays.

    NumPy arrays and scalars keep NumPy's own repr (`array(...)`, `float16(...)`), as in JAX,
    whose `array_repr` is NumPy's.
    """
    if isinstance(arr, (np.ndarray, np.generic)):
        return np.array_repr(arr, max_line_width, precision, suppress_small)
    text = np.array_repr(np.asarray(arr), max_line_width, precision, suppress_small)
    # "array(" and "Array(" have one length: NumPy's line continuations stay aligned.
    return "Array(" + text[len("array(") :] if text.startswith("array(") else text


save = np.save
savez = np.savez


def load(file: Any, *args: Any, **kwargs: Any) -> Any:
    """`np.load`, with a plain array result moved to the device (`.npz` archives stay lazy)."""
    out = np.load(file, *args, **kwargs)
    if isinstance(out, np.ndarray) and out.dtype != object:
        return asarray(out)
    return out
