"""stax's combinators: serial and parallel composition, fan-out/fan-in, shape-dependent layers.

Keys are split exactly as JAX's stax splits them, so composed networks draw JAX's parameters.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from stablax import numpy as jnp
from stablax import random

Layer = tuple[Callable, Callable]


def _apply_keys(rng: Any, count: int) -> Any:
    return (None,) * count if rng is None else random.split(rng, count)


def serial(*layers: Layer) -> Layer:
    """Composes layers one after the other.

    Args:
      *layers: `(init_fun, apply_fun)` pairs.

    Returns:
      An `(init_fun, apply_fun)` pair whose parameters are the list of the layers' parameters.
      `init_fun` splits its key once per layer; `apply_fun` splits `rng=` (when given) into one
      key per layer.

    Example:
      `init, apply = serial(Dense(128), Relu, Dense(10), LogSoftmax)`
    """
    init_funs, apply_funs = zip(*layers) if layers else ((), ())

    def init_fun(rng, input_shape):
        params = []
        for init in init_funs:
            rng, layer_rng = random.split(rng)
            input_shape, layer_params = init(layer_rng, input_shape)
            params.append(layer_params)
        return input_shape, params

    def apply_fun(params, inputs, **kwargs):
        keys = _apply_keys(kwargs.pop("rng", None), len(apply_funs))
        for apply, layer_params, key in zip(apply_funs, params, keys):
            inputs = apply(layer_params, inputs, rng=key, **kwargs)
        return inputs

    return init_fun, apply_fun


def parallel(*layers: Layer) -> Layer:
    """Applies each layer to its own input of a sequence (often between FanOut and FanInSum).

    Args:
      *layers: `(init_fun, apply_fun)` pairs.

    Returns:
      An `(init_fun, apply_fun)` pair taking a sequence of inputs (one per layer) and returning
      the list of outputs; its `init_fun` takes a sequence of input shapes.
    """
    init_funs, apply_funs = zip(*layers) if layers else ((), ())

    def init_fun(rng, input_shape):
        keys = random.split(rng, len(init_funs))
        results = [init(key, shape) for init, key, shape in zip(init_funs, keys, input_shape)]
        return tuple(zip(*results)) if results else ((), ())

    def apply_fun(params, inputs, **kwargs):
        keys = _apply_keys(kwargs.pop("rng", None), len(apply_funs))
        return [
            apply(p, x, rng=key, **kwargs)
            for apply, p, x, key in zip(apply_funs, params, inputs, keys)
        ]

    return init_fun, apply_fun


def FanOut(num: int) -> Layer:
    """Copies its input into a list of `num` identical inputs.

    Args:
      num: how many copies.

    Returns:
      An `(init_fun, apply_fun)` pair whose parameters are `()`.
    """

    def init_fun(rng, input_shape):
        return [input_shape] * num, ()

    def apply_fun(params, inputs, **kwargs):
        return [inputs] * num

    return init_fun, apply_fun


def _fan_in_sum() -> Layer:
    def init_fun(rng, input_shape):
        return input_shape[0], ()

    def apply_fun(params, inputs, **kwargs):
        return sum(inputs)

    return init_fun, apply_fun


FanInSum = _fan_in_sum()  # sums a list of same-shaped inputs


def FanInConcat(axis: int = -1) -> Layer:
    """Concatenates a list of inputs along `axis`.

    Args:
      axis: the concatenation axis (negative counts from the end).

    Returns:
      An `(init_fun, apply_fun)` pair whose parameters are `()`.
    """

    def init_fun(rng, input_shape):
        first = tuple(input_shape[0])
        ax = axis % len(first)
        size = sum(shape[ax] for shape in input_shape)
        return first[:ax] + (size,) + first[ax + 1 :], ()

    def apply_fun(params, inputs, **kwargs):
        return jnp.concatenate(inputs, axis)

    return init_fun, apply_fun


def shape_dependent(make_layer: Callable[[Any], Layer]) -> Layer:
    """Delays building a layer until its input shape is known.

    Args:
      make_layer: takes an input shape and returns an `(init_fun, apply_fun)` pair.

    Returns:
      An `(init_fun, apply_fun)` pair that builds the layer from the shape it is given
      (`input_shape` in init, `inputs.shape` in apply).
    """

    def init_fun(rng, input_shape):
        return make_layer(input_shape)[0](rng, input_shape)

    def apply_fun(params, inputs, **kwargs):
        return make_layer(inputs.shape)[1](params, inputs, **kwargs)

    return init_fun, apply_fun
