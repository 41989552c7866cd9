"""scipy.integrate.trapezoid: the composite trapezoidal rule."""

from __future__ import annotations

from typing import Any

from stablax import numpy as jnp
from stablax._src.jit import jit


@jit(static_argnames=("axis",))
def trapezoid(y: Any, x: Any = None, dx: Any = 1.0, axis: int = -1) -> Any:
    """Integrates y along `axis` by the trapezoidal rule (scipy.integrate.trapezoid).

    Args:
      y: the samples.
      x: their positions (default: spacing `dx`).
      dx: the spacing when x is None.
      axis: the axis to integrate along.
    """
    return jnp.trapezoid(y, x, dx, axis)
