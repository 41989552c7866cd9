"""The early `minmax` interface to the optimizers: `(init_fun, update_fun)` pairs and a
module-level `get_params`, as the first JAX README used them (`jax.experimental.minmax`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from stablax._src import tree_util
from stablax._src.example_libraries import optimizers


class MinmaxState:
    """An optimizer's state that remembers how to read its parameters (for `get_params`).

    A pytree whose one child is the `OptimizerState`; the parameter reader is static.
    """

    __slots__ = ("opt_state", "params_fn")

    def __init__(self, opt_state: Any, params_fn: Callable):
        self.opt_state = opt_state
        self.params_fn = params_fn

    def __repr__(self) -> str:
        return f"MinmaxState({self.opt_state!r})"


tree_util.register_pytree_node(
    MinmaxState,
    lambda s: ((s.opt_state,), s.params_fn),
    lambda params_fn, children: MinmaxState(children[0], params_fn),
)


def as_pair(factory: Callable[..., optimizers.Optimizer]) -> Callable:
    """Turns an optimizer factory's triple into minmax's `(init_fun, update_fun)` pair.

    Args:
      factory: one of `stablax.example_libraries.optimizers`' optimizers, or any function
        returning an `(init, update, get_params)` triple over pytrees.

    Returns:
      A function with the factory's arguments returning `(init_fun, update_fun)`, whose states
      `minmax.get_params` reads.
    """

    @functools.wraps(factory)
    def make(*args: Any, **kwargs: Any) -> tuple[Callable, Callable]:
        init, update, params_fn = factory(*args, **kwargs)

        def init_fun(params):
            return MinmaxState(init(params), params_fn)

        def update_fun(i, grads, state):
            return MinmaxState(update(i, grads, _checked(state, "update_fun").opt_state), params_fn)

        return init_fun, update_fun

    return make


def _checked(state: Any, where: str) -> MinmaxState:
    if not isinstance(state, MinmaxState):
        raise TypeError(
            f"minmax.{where}: expected the state made by a minmax optimizer's init_fun or "
            f"update_fun, got {type(state).__name__} (for the states of "
            "stablax.example_libraries.optimizers use that optimizer's own get_params)"
        )
    return state


def get_params(opt_state: MinmaxState) -> Any:
    """The parameters held by a minmax optimizer state.

    Args:
      opt_state: a state returned by a minmax optimizer's `init_fun` or `update_fun`.

    Returns:
      The parameter pytree.
    """
    state = _checked(opt_state, "get_params")
    return state.params_fn(state.opt_state)


def optimizer(opt_maker: Callable) -> Callable:
    """minmax's decorator: lifts a single-array `(init, update, get_params)` maker to pytrees.

    Args:
      opt_maker: as for `optimizers.optimizer`.

    Returns:
      A function returning minmax's `(init_fun, update_fun)` pair.
    """
    return as_pair(optimizers.optimizer(opt_maker))
