"""Host-side conveniences NumPy users expect: printing options, repr/str, and .npy/.npz files.

Printing goes through NumPy's formatter (an Array's repr does too), so NumPy's print options are
stablax's; files are read and written by NumPy on host copies.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from stablax._src.numpy._creation import asarray

printoptions = np.printoptions
get_printoptions = np.get_printoptions
set_printoptions = np.set_printoptions
array_repr = np.array_repr
array_str = np.array_str
save = np.save
savez = np.savez


def load(file: Any, *args: Any, **kwargs: Any) -> Any:
    """`np.load`, with a plain array result moved to the device (`.npz` archives stay lazy)."""
    out = np.load(file, *args, **kwargs)
    if isinstance(out, np.ndarray) and out.dtype != object:
        return asarray(out)
    return out
