"""stablax.example_libraries.stax: JAX's stax, a functional neural-network library.

A layer is an `(init_fun, apply_fun)` pair: `init_fun(rng, input_shape)` returns
`(output_shape, params)` (JAX's bits for the same key) and `apply_fun(params, inputs, **kwargs)`
the outputs. Layers compose with `serial` and `parallel`.
"""

from stablax._src.example_libraries.stax_combinators import (
    FanInConcat,
    FanInSum,
    FanOut,
    parallel,
    serial,
    shape_dependent,
)
from stablax._src.example_libraries.stax_layers import (
    AvgPool,
    BatchNorm,
    Conv,
    Conv1DTranspose,
    ConvTranspose,
    Dense,
    Dropout,
    Elu,
    Exp,
    Flatten,
    Gelu,
    GeneralConv,
    GeneralConvTranspose,
    Identity,
    LeakyRelu,
    LogSoftmax,
    MaxPool,
    Relu,
    Selu,
    Sigmoid,
    Softmax,
    Softplus,
    SumPool,
    Tanh,
    elementwise,
)
from stablax._src.nn.activations import elu, gelu, leaky_relu, relu, selu, sigmoid, softplus
from stablax._src.nn.initializers import glorot_normal, normal, ones, zeros
from stablax._src.nn.preprocessing import standardize
from stablax._src.nn.softmax import log_softmax, softmax

# JAX's aliases for backwards compatibility
glorot = glorot_normal
randn = normal
logsoftmax = log_softmax

__all__ = [
    "AvgPool",
    "BatchNorm",
    "Conv",
    "Conv1DTranspose",
    "ConvTranspose",
    "Dense",
    "Dropout",
    "Elu",
    "Exp",
    "FanInConcat",
    "FanInSum",
    "FanOut",
    "Flatten",
    "Gelu",
    "GeneralConv",
    "GeneralConvTranspose",
    "Identity",
    "LeakyRelu",
    "LogSoftmax",
    "MaxPool",
    "Relu",
    "Selu",
    "Sigmoid",
    "Softmax",
    "Softplus",
    "SumPool",
    "Tanh",
    "elementwise",
    "elu",
    "gelu",
    "glorot",
    "glorot_normal",
    "leaky_relu",
    "log_softmax",
    "logsoftmax",
    "normal",
    "ones",
    "parallel",
    "randn",
    "relu",
    "selu",
    "serial",
    "shape_dependent",
    "sigmoid",
    "softmax",
    "softplus",
    "standardize",
    "zeros",
]
