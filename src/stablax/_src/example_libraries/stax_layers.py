"""stax's layers: each constructor returns an `(init_fun, apply_fun)` pair, as in JAX.

`init_fun(rng, input_shape) -> (output_shape, params)` draws the parameters (with JAX's key
splits, so the same key gives JAX's bits); `apply_fun(params, inputs, **kwargs)` runs the layer.
"""

# ruff: noqa: N803, N806  (JAX's keyword names W_init and friends)
from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

from stablax import lax, random
from stablax import numpy as jnp
from stablax._src.nn.activations import elu, gelu, leaky_relu, relu, selu, sigmoid, softplus
from stablax._src.nn.initializers import glorot_normal, normal, ones, zeros
from stablax._src.nn.preprocessing import standardize
from stablax._src.nn.softmax import log_softmax, softmax

Layer = tuple[Callable, Callable]

# the default initializers, made once as JAX's default arguments are
_GLOROT_NORMAL = glorot_normal()
_NORMAL = normal()
_BIAS_NORMAL = normal(1e-6)


def Dense(out_dim: int, W_init: Callable = _GLOROT_NORMAL, b_init: Callable = _NORMAL) -> Layer:
    """A fully connected layer: `inputs @ W + b`.

    Args:
      out_dim: the number of output features.
      W_init: initializer of the `(in_dim, out_dim)` weight matrix.
      b_init: initializer of the `(out_dim,)` bias.

    Returns:
      An `(init_fun, apply_fun)` pair; the parameters are `(W, b)`.
    """

    def init_fun(rng, input_shape):
        output_shape = tuple(input_shape[:-1]) + (out_dim,)
        k_w, k_b = random.split(rng)
        return output_shape, (W_init(k_w, (input_shape[-1], out_dim)), b_init(k_b, (out_dim,)))

    def apply_fun(params, inputs, **kwargs):
        kernel, bias = params
        return jnp.dot(inputs, kernel) + bias

    return init_fun, apply_fun


def _kernel_shape(dimension_numbers, out_chan, filter_shape, input_shape) -> list[int]:
    # The kernel in rhs_spec's layout: O is out_chan, I the input's C, spatial from filter_shape.
    lhs_spec, rhs_spec, _ = dimension_numbers
    spatial = iter(filter_shape)
    in_chan = input_shape[lhs_spec.index("C")]
    return [out_chan if c == "O" else in_chan if c == "I" else next(spatial) for c in rhs_spec]


def _conv_layer(shape_rule: Callable, conv: Callable, kind: str, what: str) -> Callable:
    def constructor(
        dimension_numbers: tuple[str, str, str],
        out_chan: int,
        filter_shape: Sequence[int],
        strides: Sequence[int] | None = None,
        padding: Any = "VALID",
        W_init: Callable | None = None,
        b_init: Callable = _BIAS_NORMAL,
    ) -> Layer:
        _, rhs_spec, out_spec = dimension_numbers
        strides = strides or (1,) * len(filter_shape)
        if W_init is None:
            W_init = glorot_normal(rhs_spec.index("I"), rhs_spec.index("O"))

        def init_fun(rng, input_shape):
            kernel_shape = _kernel_shape(dimension_numbers, out_chan, filter_shape, input_shape)
            output_shape = shape_rule(
                input_shape, kernel_shape, strides, padding, dimension_numbers
            )
            bias_shape = [out_chan if c == "C" else 1 for c in out_spec]
            k_w, k_b = random.split(rng)
            return output_shape, (W_init(k_w, kernel_shape), b_init(k_b, bias_shape))

        def apply_fun(params, inputs, **kwargs):
            kernel, bias = params
            return conv(inputs, kernel, strides, padding, dimension_numbers) + bias

        return init_fun, apply_fun

    constructor.__name__ = constructor.__qualname__ = f"General{kind}"
    constructor.__doc__ = f"""A {what} layer in any layout (`dimension_numbers`).

    Args:
      dimension_numbers: `(lhs_spec, rhs_spec, out_spec)` strings such as
        `('NHWC', 'HWIO', 'NHWC')`.
      out_chan: the number of output channels.
      filter_shape: the spatial shape of the kernel.
      strides: the spatial strides (default 1).
      padding: 'VALID', 'SAME' or explicit (low, high) pairs.
      W_init: kernel initializer (default glorot_normal over the kernel's I and O axes).
      b_init: bias initializer (default normal(1e-6)); the bias broadcasts along out_spec.

    Returns:
      An `(init_fun, apply_fun)` pair; the parameters are `(W, b)`.
    """
    return constructor


def _conv(inputs, kernel, strides, padding, dimension_numbers):
    one = (1,) * len(strides)
    return lax.conv_general_dilated(
        inputs, kernel, strides, padding, one, one, dimension_numbers=dimension_numbers
    )


def _conv_transpose(inputs, kernel, strides, padding, dimension_numbers):
    return lax.conv_transpose(inputs, kernel, strides, padding, dimension_numbers=dimension_numbers)


GeneralConv = _conv_layer(lax.conv_general_shape_tuple, _conv, "Conv", "convolution")
GeneralConvTranspose = _conv_layer(
    lax.conv_transpose_shape_tuple, _conv_transpose, "ConvTranspose", "transposed convolution"
)
Conv = functools.partial(GeneralConv, ("NHWC", "HWIO", "NHWC"))
Conv1DTranspose = functools.partial(GeneralConvTranspose, ("NHC", "HIO", "NHC"))
ConvTranspose = functools.partial(GeneralConvTranspose, ("NHWC", "HWIO", "NHWC"))


def BatchNorm(
    axis: int | Sequence[int] = (0, 1, 2),
    epsilon: float = 1e-5,
    center: bool = True,
    scale: bool = True,
    beta_init: Callable = zeros,
    gamma_init: Callable = ones,
) -> Layer:
    """Batch normalisation over `axis` with a learned shift (beta) and scale (gamma).

    Statistics come from the batch itself (no running averages), as in JAX's stax.

    Args:
      axis: the axes to normalise over; the parameters have the shape of the other axes.
      epsilon: added to the variance.
      center: learn beta (else its parameter is `()`).
      scale: learn gamma (else its parameter is `()`).
      beta_init: initializer of beta.
      gamma_init: initializer of gamma.

    Returns:
      An `(init_fun, apply_fun)` pair; the parameters are `(beta, gamma)`.
    """
    axis = (axis,) if jnp.isscalar(axis) else tuple(axis)

    def init_fun(rng, input_shape):
        shape = tuple(d for i, d in enumerate(input_shape) if i not in axis)
        k_beta, k_gamma = random.split(rng)
        beta = beta_init(k_beta, shape) if center else ()
        gamma = gamma_init(k_gamma, shape) if scale else ()
        return input_shape, (beta, gamma)

    def apply_fun(params, x, **kwargs):
        beta, gamma = params
        expand = tuple(None if i in axis else slice(None) for i in range(jnp.ndim(x)))
        z = standardize(x, axis, epsilon=epsilon)
        if scale:
            z = gamma[expand] * z
        if center:
            z = z + beta[expand]
        return z

    return init_fun, apply_fun


def elementwise(fun: Callable, **fun_kwargs: Any) -> Layer:
    """A parameterless layer applying `fun(inputs, **fun_kwargs)`.

    Args:
      fun: the function to apply.
      **fun_kwargs: keyword arguments passed to `fun` on every call.

    Returns:
      An `(init_fun, apply_fun)` pair whose parameters are `()`.
    """

    def init_fun(rng, input_shape):
        return input_shape, ()

    def apply_fun(params, inputs, **kwargs):
        return fun(inputs, **fun_kwargs)

    return init_fun, apply_fun


Tanh = elementwise(jnp.tanh)
Relu = elementwise(relu)
Exp = elementwise(jnp.exp)
LogSoftmax = elementwise(log_softmax, axis=-1)
Softmax = elementwise(softmax, axis=-1)
Softplus = elementwise(softplus)
Sigmoid = elementwise(sigmoid)
Elu = elementwise(elu)
LeakyRelu = elementwise(leaky_relu)
Selu = elementwise(selu)
Gelu = elementwise(gelu)


def _window_counts(window_shape, strides, padding, inputs, spec):
    # How many input elements each output window covers (for AvgPool's mean).
    non_spatial = (0, inputs.ndim - 1) if spec is None else (spec.index("N"), spec.index("C"))
    spatial = tuple(n for i, n in enumerate(inputs.shape) if i not in non_spatial)
    counts = lax.reduce_window(
        jnp.ones(spatial, inputs.dtype), 0.0, lax.add, window_shape, strides, padding
    )
    for i in sorted(non_spatial):
        counts = jnp.expand_dims(counts, i)
    return counts


def _pooling_layer(reducer: Callable, init_val: float, average: bool, name: str) -> Callable:
    def pooling(
        window_shape: Sequence[int],
        strides: Sequence[int] | None = None,
        padding: Any = "VALID",
        spec: str | None = None,
    ) -> Layer:
        spatial_window = tuple(window_shape)
        spatial_strides = tuple(strides or (1,) * len(spatial_window))
        if spec is None:
            non_spatial = (0, len(spatial_window) + 1)
        else:
            non_spatial = (spec.index("N"), spec.index("C"))
        full_window, full_strides = list(spatial_window), list(spatial_strides)
        for i in sorted(non_spatial):
            full_window.insert(i, 1)
            full_strides.insert(i, 1)
        full_window, full_strides = tuple(full_window), tuple(full_strides)

        def init_fun(rng, input_shape):
            pads = lax.padtype_to_pads(input_shape, full_window, full_strides, padding)
            ones_ = (1,) * len(full_window)
            shape = lax.reduce_window_shape_tuple(
                input_shape, full_window, full_strides, pads, ones_, ones_
            )
            return shape, ()

        def apply_fun(params, inputs, **kwargs):
            out = lax.reduce_window(inputs, init_val, reducer, full_window, full_strides, padding)
            if average:
                out = out / _window_counts(spatial_window, spatial_strides, padding, inputs, spec)
            return out

        return init_fun, apply_fun

    pooling.__name__ = pooling.__qualname__ = name
    pooling.__doc__ = f"""A {name} layer over the spatial axes.

    Args:
      window_shape: the spatial window.
      strides: the spatial strides (default 1).
      padding: 'VALID', 'SAME' or explicit (low, high) pairs.
      spec: the input layout such as 'NHWC' (default: batch first, channels last).

    Returns:
      An `(init_fun, apply_fun)` pair whose parameters are `()`.
    """
    return pooling


MaxPool = _pooling_layer(lax.max, -jnp.inf, False, "MaxPool")
SumPool = _pooling_layer(lax.add, 0.0, False, "SumPool")
AvgPool = _pooling_layer(lax.add, 0.0, True, "AvgPool")


def _flatten() -> Layer:
    def init_fun(rng, input_shape):
        return (input_shape[0], math.prod(input_shape[1:])), ()

    def apply_fun(params, inputs, **kwargs):
        return jnp.reshape(inputs, (inputs.shape[0], -1))

    return init_fun, apply_fun


def _identity() -> Layer:
    def init_fun(rng, input_shape):
        return input_shape, ()

    def apply_fun(params, inputs, **kwargs):
        return inputs

    return init_fun, apply_fun


Flatten = _flatten()  # flattens all but the leading (batch) axis
Identity = _identity()


def Dropout(rate: float, mode: str = "train") -> Layer:
    """Dropout as JAX's stax has it: `rate` is the probability of *keeping* an element.

    In 'train' mode each element is kept with probability `rate` and scaled by `1 / rate`;
    any other mode passes inputs through.

    Args:
      rate: the keep probability.
      mode: 'train' or anything else (e.g. 'test').

    Returns:
      An `(init_fun, apply_fun)` pair; `apply_fun` needs `rng=` (a PRNG key) in every mode.
    """

    def init_fun(rng, input_shape):
        return input_shape, ()

    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.get("rng")
        if rng is None:
            raise ValueError(
                "stax.Dropout: apply_fun needs a PRNG key: call it as "
                "apply_fun(params, inputs, rng=key) with a key from stablax.random.key "
                "or PRNGKey, not apply_fun(params, inputs)"
            )
        if mode != "train":
            return inputs
        keep = random.bernoulli(rng, rate, inputs.shape)
        return jnp.where(keep, inputs / rate, 0)

    return init_fun, apply_fun
