"""stablax.experimental.ode: JAX's jax.experimental.ode (odeint, adaptive dopri5 with adjoints).

The module also carries the helpers and names jax.experimental.ode exposes.
"""

from collections.abc import Callable
from functools import partial

from stablax._src.flatten_util import ravel_pytree
from stablax._src.numpy._promotion import promote_dtypes_inexact
from stablax._src.ode import (
    abs2,
    fit_4th_order_polynomial,
    initial_step_size,
    interp_fit_dopri,
    mean_error_ratio,
    odeint,
    optimal_step_size,
    ravel_first_arg,
    ravel_first_arg_,
    runge_kutta_step,
    safe_map,
    safe_zip,
)
from stablax._src.tree_util import tree_leaves, tree_map

map = safe_map  # noqa: A001 (jax.experimental.ode's names)
zip = safe_zip  # noqa: A001

__all__ = [
    "Callable",
    "abs2",
    "fit_4th_order_polynomial",
    "initial_step_size",
    "interp_fit_dopri",
    "map",
    "mean_error_ratio",
    "odeint",
    "optimal_step_size",
    "partial",
    "promote_dtypes_inexact",
    "ravel_first_arg",
    "ravel_first_arg_",
    "ravel_pytree",
    "runge_kutta_step",
    "safe_map",
    "safe_zip",
    "tree_leaves",
    "tree_map",
    "zip",
]
