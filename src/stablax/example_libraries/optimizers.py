"""stablax.example_libraries.optimizers: JAX's example optimizers.

An optimizer is an `(init_fun, update_fun, get_params)` triple: `init_fun(params)` makes the
state, `update_fun(step, grads, opt_state)` the next state, `get_params(opt_state)` the
parameters; parameters may be any pytree of arrays. The module carries the helper names
`jax.example_libraries.optimizers` exposes too.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable
from functools import partial
from typing import Any, NamedTuple

from stablax._src.example_libraries.optimizers import (
    Array,
    InitFn,
    JoinPoint,
    Optimizer,
    OptimizerState,
    Params,
    ParamsFn,
    State,
    Step,
    UpdateFn,
    Updates,
    adagrad,
    adam,
    adamax,
    clip_grads,
    l2_norm,
    momentum,
    nesterov,
    optimizer,
    pack_optimizer_state,
    rmsprop,
    rmsprop_momentum,
    safe_map,
    safe_zip,
    sgd,
    sm3,
    unpack_optimizer_state,
    unzip2,
)
from stablax._src.example_libraries.schedules import (
    Schedule,
    constant,
    exponential_decay,
    inverse_time_decay,
    make_schedule,
    piecewise_constant,
    polynomial_decay,
)

map = safe_map  # noqa: A001 (JAX's module shadows map and zip with their strict versions)
zip = safe_zip  # noqa: A001

__all__ = [
    "Any",
    "Array",
    "Callable",
    "InitFn",
    "JoinPoint",
    "NamedTuple",
    "Optimizer",
    "OptimizerState",
    "Params",
    "ParamsFn",
    "Schedule",
    "State",
    "Step",
    "UpdateFn",
    "Updates",
    "adagrad",
    "adam",
    "adamax",
    "clip_grads",
    "constant",
    "exponential_decay",
    "inverse_time_decay",
    "l2_norm",
    "make_schedule",
    "map",
    "momentum",
    "namedtuple",
    "nesterov",
    "optimizer",
    "pack_optimizer_state",
    "partial",
    "piecewise_constant",
    "polynomial_decay",
    "rmsprop",
    "rmsprop_momentum",
    "safe_map",
    "safe_zip",
    "sgd",
    "sm3",
    "unpack_optimizer_state",
    "unzip2",
    "zip",
]
