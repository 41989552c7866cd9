"""stablax.random: JAX's counter-based PRNG (threefry2x32) and samplers, bit-for-bit as JAX.

Keys are explicit: make one with `key(seed)` (typed) or `PRNGKey(seed)` (raw `uint32[2]`),
`split` or `fold_in` it, and pass a fresh key to each sampler.
"""

from stablax._src.random.continuous import (
    cauchy,
    double_sided_maxwell,
    exponential,
    geometric,
    gumbel,
    laplace,
    logistic,
    lognormal,
    maxwell,
    pareto,
    rademacher,
    rayleigh,
    triangular,
    wald,
    weibull_min,
)
from stablax._src.random.counts import binomial, multinomial, poisson
from stablax._src.random.discrete import categorical, choice, permutation
from stablax._src.random.gamma import (
    ball,
    beta,
    chisquare,
    dirichlet,
    f,
    gamma,
    generalized_normal,
    loggamma,
    random_gamma_p,
    t,
)
from stablax._src.random.keys import (
    PRNGKey,
    PRNGKeyArray,
    clone,
    fold_in,
    key,
    key_data,
    key_dtype,
    key_impl,
    split,
    wrap_key_data,
)
from stablax._src.random.matrix import multivariate_normal, orthogonal
from stablax._src.random.uniform import (
    bernoulli,
    bits,
    normal,
    randint,
    truncated_normal,
    uniform,
)

__all__ = [
    "PRNGKey",
    "PRNGKeyArray",
    "ball",
    "bernoulli",
    "beta",
    "binomial",
    "bits",
    "categorical",
    "cauchy",
    "chisquare",
    "choice",
    "clone",
    "dirichlet",
    "double_sided_maxwell",
    "exponential",
    "f",
    "fold_in",
    "gamma",
    "generalized_normal",
    "geometric",
    "gumbel",
    "key",
    "key_data",
    "key_dtype",
    "key_impl",
    "laplace",
    "loggamma",
    "random_gamma_p",
    "logistic",
    "lognormal",
    "maxwell",
    "multinomial",
    "multivariate_normal",
    "normal",
    "orthogonal",
    "pareto",
    "permutation",
    "poisson",
    "rademacher",
    "randint",
    "rayleigh",
    "split",
    "t",
    "triangular",
    "truncated_normal",
    "uniform",
    "wald",
    "weibull_min",
    "wrap_key_data",
]

# Exceptions leaving a public function lose stablax's internal frames (traceback_util.py).
from stablax._src import traceback_util as _traceback_util

_traceback_util.wrap_public_functions(globals())
