"""stablax.experimental.minmax: the first JAX README's optimizer module.

Every optimizer of `stablax.example_libraries.optimizers` (with today's update rules) returns
an `(init_fun, update_fun)` pair here, and `get_params` (or `iterate`) reads the parameters of
any state they make:

    opt_init, opt_update = minmax.momentum(step_size=1e-3, mass=0.9)
    opt_state = opt_init(params)
    opt_state = opt_update(i, grads, opt_state)
    params = minmax.get_params(opt_state)
"""

from stablax._src.example_libraries import optimizers as _optimizers
from stablax._src.example_libraries.minmax import MinmaxState, as_pair, get_params, optimizer
from stablax._src.example_libraries.optimizers import clip_grads, l2_norm
from stablax._src.example_libraries.schedules import (
    constant,
    exponential_decay,
    inverse_time_decay,
    make_schedule,
    piecewise_constant,
    polynomial_decay,
)

sgd = as_pair(_optimizers.sgd)
momentum = as_pair(_optimizers.momentum)
nesterov = as_pair(_optimizers.nesterov)
adagrad = as_pair(_optimizers.adagrad)
rmsprop = as_pair(_optimizers.rmsprop)
rmsprop_momentum = as_pair(_optimizers.rmsprop_momentum)
adam = as_pair(_optimizers.adam)
adamax = as_pair(_optimizers.adamax)
sm3 = as_pair(_optimizers.sm3)
iterate = get_params

__all__ = [
    "MinmaxState",
    "adagrad",
    "adam",
    "adamax",
    "clip_grads",
    "constant",
    "exponential_decay",
    "get_params",
    "inverse_time_decay",
    "iterate",
    "l2_norm",
    "make_schedule",
    "momentum",
    "nesterov",
    "optimizer",
    "piecewise_constant",
    "polynomial_decay",
    "rmsprop",
    "rmsprop_momentum",
    "sgd",
    "sm3",
]
