"""Step-size schedules of JAX's example optimizers: functions from the step index to a scalar."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from stablax import numpy as jnp

Schedule = Callable[[int], Any]


def constant(step_size: Any) -> Schedule:
    """A schedule returning `step_size` at every step.

    Args:
      step_size: the scalar to return.

    Returns:
      A function of the step index.
    """

    def schedule(i):
        return step_size

    return schedule


def exponential_decay(step_size: Any, decay_steps: Any, decay_rate: Any) -> Schedule:
    """`step_size * decay_rate ** (i / decay_steps)`.

    Args:
      step_size: the initial step size.
      decay_steps: the number of steps over which the size shrinks by `decay_rate`.
      decay_rate: the factor per `decay_steps` steps.

    Returns:
      A function of the step index.
    """

    def schedule(i):
        return step_size * decay_rate ** (i / decay_steps)

    return schedule


def inverse_time_decay(
    step_size: Any, decay_steps: Any, decay_rate: Any, staircase: bool = False
) -> Schedule:
    """`step_size / (1 + decay_rate * i / decay_steps)`, with `floor(i / decay_steps)` if staircase.

    Args:
      step_size: the initial step size.
      decay_steps: the step scale of the decay.
      decay_rate: the decay coefficient.
      staircase: decay in whole multiples of `decay_steps`.

    Returns:
      A function of the step index.
    """
    if staircase:

        def schedule(i):
            return step_size / (1 + decay_rate * jnp.floor(i / decay_steps))

    else:

        def schedule(i):
            return step_size / (1 + decay_rate * i / decay_steps)

    return schedule


def polynomial_decay(
    step_size: Any, decay_steps: Any, final_step_size: Any, power: float = 1.0
) -> Schedule:
    """Decays from `step_size` to `final_step_size` over `decay_steps` as `(1 - t)**power`.

    Args:
      step_size: the initial step size.
      decay_steps: the number of steps to reach `final_step_size` (constant afterwards).
      final_step_size: the final step size.
      power: the exponent of the decay.

    Returns:
      A function of the step index.
    """

    def schedule(step_num):
        step_num = jnp.minimum(step_num, decay_steps)
        multiplier = (1 - step_num / decay_steps) ** power
        return multiplier * (step_size - final_step_size) + final_step_size

    return schedule


def piecewise_constant(boundaries: Any, values: Any) -> Schedule:
    """`values[k]` where `k` is the number of boundaries the step index has passed.

    Args:
      boundaries: increasing step indices (a sequence of n).
      values: the n + 1 step sizes.

    Returns:
      A function of the step index.

    Raises:
      ValueError: if the arguments are not sequences or their lengths do not fit.
    """
    boundaries = jnp.array(boundaries)
    values = jnp.array(values)
    if not boundaries.ndim == values.ndim == 1:
        raise ValueError("boundaries and values must be sequences")
    if not boundaries.shape[0] == values.shape[0] - 1:
        raise ValueError("boundaries length must be one shorter than values length")

    def schedule(i):
        return values[jnp.sum(i > boundaries)]

    return schedule


def make_schedule(scalar_or_schedule: Any) -> Schedule:
    """A schedule from a scalar (a constant schedule) or a schedule (returned as is).

    Args:
      scalar_or_schedule: a scalar step size or a function of the step index.

    Returns:
      A function of the step index.

    Raises:
      TypeError: for anything else (e.g. an array of step sizes).
    """
    if callable(scalar_or_schedule):
        return scalar_or_schedule
    if jnp.ndim(scalar_or_schedule) == 0:
        return constant(scalar_or_schedule)
    raise TypeError(type(scalar_or_schedule))
