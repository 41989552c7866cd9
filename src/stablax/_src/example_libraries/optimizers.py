"""JAX's example optimizers: `(init_fun, update_fun, get_params)` triples over pytrees.

The `optimizer` decorator lifts a triple written for one array to pytrees of parameters; the
state is an `OptimizerState` holding each leaf's flattened state and the tree structures.
"""

from __future__ import annotations

import functools
from collections import namedtuple
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from stablax import numpy as jnp
from stablax._src import tree_util
from stablax._src.example_libraries.schedules import make_schedule

Array = Any
Params = Any  # a pytree of arrays
State = Any  # one parameter's optimizer state
Updates = Params  # gradients have the parameters' structure
Step = int
InitFn = Callable[[Params], "OptimizerState"]
UpdateFn = Callable[[Step, Updates, "OptimizerState"], "OptimizerState"]
ParamsFn = Callable[["OptimizerState"], Params]


def safe_map(f: Callable, *args: Iterable) -> list[Any]:
    """`list(map(f, *args))` that raises ValueError when the arguments' lengths differ."""
    return [f(*xs) for xs in safe_zip(*args)]


def safe_zip(*args: Iterable) -> list[tuple]:
    """`list(zip(*args))` that raises ValueError when the arguments' lengths differ."""
    return list(zip(*args, strict=True))


def unzip2(xys: Iterable[tuple[Any, Any]]) -> tuple[tuple, tuple]:
    """Splits `xys`, a sequence of pairs, into a tuple of firsts and a tuple of seconds."""
    firsts, seconds = [], []
    for a, b in xys:
        firsts.append(a)
        seconds.append(b)
    return tuple(firsts), tuple(seconds)


OptimizerState = namedtuple("OptimizerState", ["packed_state", "tree_def", "subtree_defs"])
OptimizerState.__doc__ = """An optimizer's state over a pytree of parameters.

`packed_state` lists each parameter's state leaves; `tree_def` is the parameters' structure and
`subtree_defs` each parameter's state structure (static: only `packed_state` is traced).
"""
tree_util.register_pytree_node(
    OptimizerState,
    lambda s: ((s.packed_state,), (s.tree_def, s.subtree_defs)),
    lambda aux, children: OptimizerState(children[0], aux[0], aux[1]),
)


class Optimizer(NamedTuple):
    """An `(init_fn, update_fn, params_fn)` triple, unpacked as `init, update, get_params`."""

    init_fn: InitFn
    update_fn: UpdateFn
    params_fn: ParamsFn


def optimizer(opt_maker: Callable[..., tuple[Callable, Callable, Callable]]) -> Callable:
    """Lifts an optimizer written for single arrays to pytrees of parameters.

    Args:
      opt_maker: returns an `(init, update, get_params)` triple where `init(x0)` returns one
        array's state (any pytree), `update(i, g, state)` the next state and
        `get_params(state)` the array.

    Returns:
      A function with `opt_maker`'s arguments returning an `Optimizer` whose functions take
      and return pytrees of parameters and `OptimizerState`s.
    """

    @functools.wraps(opt_maker)
    def tree_opt_maker(*args: Any, **kwargs: Any) -> Optimizer:
        init, update, get_params = opt_maker(*args, **kwargs)

        @functools.wraps(init)
        def tree_init(x0_tree):
            x0_flat, tree = tree_util.tree_flatten(x0_tree)
            states_flat, subtrees = unzip2(tree_util.tree_flatten(init(x0)) for x0 in x0_flat)
            return OptimizerState(states_flat, tree, subtrees)

        @functools.wraps(update)
        def tree_update(i, grad_tree, opt_state):
            states_flat, tree, subtrees = opt_state
            grad_flat, grad_tree_def = tree_util.tree_flatten(grad_tree)
            if grad_tree_def != tree:
                raise TypeError(
                    "optimizer update function was passed a gradient tree that did not match "
                    f"the parameter tree structure with which it was initialized: parameter "
                    f"tree {tree} and grad tree {grad_tree_def}."
                )
            states = safe_map(tree_util.tree_unflatten, subtrees, states_flat)
            new_states = safe_map(functools.partial(update, i), grad_flat, states)
            new_flat, new_subtrees = unzip2(safe_map(tree_util.tree_flatten, new_states))
            for before, after in safe_zip(subtrees, new_subtrees):
                if before != after:
                    raise TypeError(
                        "optimizer update function produced an output structure that did not "
                        f"match its input structure: input {before} and output {after}."
                    )
            return OptimizerState(new_flat, tree, subtrees)

        @functools.wraps(get_params)
        def tree_get_params(opt_state):
            states_flat, tree, subtrees = opt_state
            states = safe_map(tree_util.tree_unflatten, subtrees, states_flat)
            return tree_util.tree_unflatten(tree, safe_map(get_params, states))

        return Optimizer(tree_init, tree_update, tree_get_params)

    return tree_opt_maker


def _first(state: tuple) -> Any:
    return state[0]


@optimizer
def sgd(step_size: Any) -> Optimizer:
    """Stochastic gradient descent: `x <- x - step_size(i) * g`.

    Args:
      step_size: a positive scalar, or a schedule mapping the step index to one.

    Returns:
      An `(init_fun, update_fun, get_params)` triple.
    """
    step_size = make_schedule(step_size)

    def init(x0):
        return x0

    def update(i, g, x):
        return x - step_size(i) * g

    def get_params(x):
        return x

    return Optimizer(init, update, get_params)


def _momentum(step_size: Any, mass: float, nesterov: bool) -> Optimizer:
    # `v <- mass * v + g`, then a step along v, or (Nesterov) along the look-ahead mass * v + g.
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0)

    def update(i, g, state):
        x, velocity = state
        velocity = mass * velocity + g
        direction = mass * velocity + g if nesterov else velocity
        return x - step_size(i) * direction, velocity

    return Optimizer(init, update, _first)


@optimizer
def momentum(step_size: Any, mass: float) -> Optimizer:
    """SGD with momentum: `v <- mass * v + g`, `x <- x - step_size(i) * v`.

    Args:
      step_size: a positive scalar, or a schedule mapping the step index to one.
      mass: the momentum coefficient.

    Returns:
      An `(init_fun, update_fun, get_params)` triple.
    """
    return _momentum(step_size, mass, nesterov=False)


@optimizer
def nesterov(step_size: Any, mass: float) -> Optimizer:
    """SGD with Nesterov momentum: `v <- mass * v + g`, `x <- x - step_size(i) * (mass * v + g)`.

    Args:
      step_size: a positive scalar, or a schedule mapping the step index to one.
      mass: the momentum coefficient.

    Returns:
      An `(init_fun, update_fun, get_params)` triple.
    """
    return _momentum(step_size, mass, nesterov=True)


@optimizer
def adagrad(step_size: Any, momentum: float = 0.9) -> Optimizer:
    """Adagrad (Duchi et al. 2011) with momentum on the normalised gradient.

    `G <- G + g**2`, `m <- (1 - momentum) * g / sqrt(G) + momentum * m` (0 where G is 0),
    `x <- x - step_size(i) * m`.

    Args:
      step_size: a positive scalar, or a schedule mapping the step index to one.
      momentum: the momentum coefficient.

    Returns:
      An `(init_fun, update_fun, get_params)` triple.
    """
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, g_sq, m = state
        g_sq = g_sq + jnp.square(g)
        inv_sqrt = jnp.where(g_sq > 0, 1.0 / jnp.sqrt(g_sq), 0.0)
        m = (1.0 - momentum) * (g * inv_sqrt) + momentum * m
        return x - step_size(i) * m, g_sq, m

    return Optimizer(init, update, _first)


@optimizer
def rmsprop(step_size: Any, gamma: float = 0.9, eps: float = 1e-8) -> Optimizer:
    """RMSProp: `a <- gamma * a + (1 - gamma) * g**2`, `x <- x - step_size(i) * g / sqrt(a + eps)`.

    Args:
      step_size: a positive scalar, or a schedule mapping the step index to one.
      gamma: the decay of the squared-gradient average.
      eps: added under the square root.

    Returns:
      An `(init_fun, update_fun, get_params)` triple.
    """
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0)

    def update(i, g, state):
        x, avg_sq_grad = state
        avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1.0 - gamma)
        return x - step_size(i) * g / jnp.sqrt(avg_sq_grad + eps), avg_sq_grad

    return Optimizer(init, update, _first)


@optimizer
def rmsprop_momentum(
    step_size: Any, gamma: float = 0.9, eps: float = 1e-8, momentum: float = 0.9
) -> Optimizer:
    """RMSProp with momentum: `m <- momentum * m + step_size(i) * g / sqrt(a + eps)`, `x <- x - m`.

    Args:
      step_size: a positive scalar, or a schedule mapping the step index to one.
      gamma: the decay of the squared-gradient average `a`.
      eps: added under the square root.
      momentum: the momentum coefficient.

    Returns:
      An `(init_fun, update_fun, get_params)` triple.
    """
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, avg_sq_grad, mom = state
        avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1.0 - gamma)
        mom = momentum * mom + step_size(i) * g / jnp.sqrt(avg_sq_grad + eps)
        return x - mom, avg_sq_grad, mom

    return Optimizer(init, update, _first)


@optimizer
def adam(step_size: Any, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8) -> Optimizer:
    """Adam (Kingma and Ba 2015) with bias-corrected moment estimates.

    Args:
      step_size: a positive scalar, or a schedule mapping the step index to one.
      b1: the decay of the first moment estimate.
      b2: the decay of the second moment estimate.
      eps: added to the root of the second moment.

    Returns:
      An `(init_fun, update_fun, get_params)` triple.
    """
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, m, v = state
        m = (1 - b1) * g + b1 * m
        v = (1 - b2) * jnp.square(g) + b2 * v
        m_hat = m / (1 - jnp.asarray(b1, m.dtype) ** (i + 1))
        v_hat = v / (1 - jnp.asarray(b2, m.dtype) ** (i + 1))
        return x - step_size(i) * m_hat / (jnp.sqrt(v_hat) + eps), m, v

    return Optimizer(init, update, _first)


@optimizer
def adamax(step_size: Any, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8) -> Optimizer:
    """AdaMax, Adam's infinity-norm variant: `u <- max(b2 * u, |g|)`.

    Args:
      step_size: a positive scalar, or a schedule mapping the step index to one.
      b1: the decay of the first moment estimate.
      b2: the decay of the infinity norm.
      eps: added to the norm.

    Returns:
      An `(init_fun, update_fun, get_params)` triple.
    """
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, m, u = state
        m = (1 - b1) * g + b1 * m
        u = jnp.maximum(b2 * u, jnp.abs(g))
        corrected = step_size(i) / (1 - jnp.asarray(b1, m.dtype) ** (i + 1))
        return x - corrected * m / (u + eps), m, u

    return Optimizer(init, update, _first)


def _broadcast_along(ndim: int, v: Any, axis: int) -> Any:
    # v has one entry per index of `axis`: give it size-1 axes everywhere else.
    return v[tuple(slice(None) if d == axis else None for d in range(ndim))]


@optimizer
def sm3(step_size: Any, momentum: float = 0.9) -> Optimizer:
    """SM3 (Anil et al. 2019): one accumulator per index of each axis instead of per element.

    Args:
      step_size: a positive scalar, or a schedule mapping the step index to one.
      momentum: the momentum coefficient.

    Returns:
      An `(init_fun, update_fun, get_params)` triple.
    """
    step_size = make_schedule(step_size)

    def init(x0):
        x_shape = x0.shape
        x0 = jnp.atleast_1d(x0)
        accumulators = [jnp.zeros(n, dtype=x0.dtype) for n in x0.shape]
        return x0, jnp.zeros_like(x0), accumulators, x_shape

    def update(i, g, state):
        x, m, accumulators, x_shape = state
        vs = [_broadcast_along(g.ndim, v, axis) for axis, v in enumerate(accumulators)]
        accum = functools.reduce(jnp.minimum, vs) + jnp.square(g)
        inv_sqrt = jnp.where(accum > 0, 1.0 / jnp.sqrt(accum), 0)
        m = (1.0 - momentum) * (g * inv_sqrt) + momentum * m
        x = x - step_size(i) * m
        others = [tuple(d for d in range(x.ndim) if d != axis) for axis in range(x.ndim)]
        return x, m, [accum.max(axes) for axes in others], x_shape

    def get_params(state):
        x, _, _, x_shape = state
        return x.reshape(x_shape)

    return Optimizer(init, update, get_params)


def l2_norm(tree: Any) -> Array:
    """The l2 norm of all the leaves of a pytree of arrays together (e.g. for weight decay).

    Args:
      tree: a pytree of arrays.

    Returns:
      `sqrt(sum over leaves of vdot(x, x))`.
    """
    leaves = tree_util.tree_leaves(tree)
    return jnp.sqrt(sum(jnp.vdot(x, x) for x in leaves))


def clip_grads(grad_tree: Any, max_norm: Any) -> Any:
    """Scales a pytree of gradients down so that its `l2_norm` is at most `max_norm`.

    Args:
      grad_tree: a pytree of arrays.
      max_norm: the largest norm allowed.

    Returns:
      `grad_tree` unchanged if its norm is below `max_norm`, else scaled by `max_norm / norm`.
    """
    norm = l2_norm(grad_tree)
    return tree_util.tree_map(
        lambda g: jnp.where(norm < max_norm, g, g * (max_norm / norm)), grad_tree
    )


class JoinPoint:
    """Marks where a parameter's own state tree hangs in an unpacked optimizer state."""

    def __init__(self, subtree: Any):
        self.subtree = subtree

    def __iter__(self):  # looks iterable, like the containers pytrees are made of
        yield self.subtree


def unpack_optimizer_state(opt_state: OptimizerState) -> Any:
    """An `OptimizerState` as a pytree of the parameters' shape with `JoinPoint` leaves.

    Each `JoinPoint` holds that parameter's state tree; the result is plain nested Python
    containers, suitable for pickling.

    Args:
      opt_state: an `OptimizerState`.

    Returns:
      The marked pytree.
    """
    states_flat, tree_def, subtree_defs = opt_state
    subtrees = safe_map(tree_util.tree_unflatten, subtree_defs, states_flat)
    return tree_util.tree_unflatten(tree_def, [JoinPoint(s) for s in subtrees])


def pack_optimizer_state(marked_pytree: Any) -> OptimizerState:
    """The inverse of `unpack_optimizer_state`.

    Args:
      marked_pytree: a pytree whose leaves are `JoinPoint`s.

    Returns:
      The equivalent `OptimizerState`.

    Raises:
      TypeError: if a leaf is not a `JoinPoint`.
    """
    sentinels, tree_def = tree_util.tree_flatten(marked_pytree)
    strays = [type(s).__name__ for s in sentinels if not isinstance(s, JoinPoint)]
    if strays:
        raise TypeError(
            f"pack_optimizer_state: every leaf must be a JoinPoint (from "
            f"unpack_optimizer_state), got leaves of types {strays}"
        )
    states_flat, subtree_defs = unzip2(tree_util.tree_flatten(s.subtree) for s in sentinels)
    return OptimizerState(states_flat, tree_def, subtree_defs)
