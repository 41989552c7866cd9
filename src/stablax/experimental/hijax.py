"""`jax.experimental.hijax`'s hi-primitives: operations with their own autodiff and vmap rules
(`VJPHiPrimitive`). stablax has no high-level types (`HiType`, boxes)."""

from __future__ import annotations

from stablax._src.avals import ShapedArray
from stablax._src.transforms.hijax import AxisData, GradAccum, VJPHiPrimitive

__all__ = ["AxisData", "GradAccum", "ShapedArray", "VJPHiPrimitive"]
