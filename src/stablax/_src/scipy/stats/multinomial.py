"""The multinomial distribution: pmf and logpmf."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src import dtypes, lax
from stablax._src.arraylike import check_arraylike
from stablax._src.numpy._promotion import promote_dtypes
from stablax._src.scipy.args import const, inexact_args
from stablax._src.scipy.special.logarithmic import xlogy


def logpmf(x: Any, n: Any, p: Any) -> Any:
    """Log of the multinomial pmf `n! prod p_i^x_i / x_i!` (-inf unless the counts sum to n).

    Args:
      x: integer counts, the categories on the last axis.
      n: integer number of trials.
      p: category probabilities (last axis).

    Returns:
      The log-probabilities, as `scipy.stats.multinomial.logpmf`.
    """
    (p,) = inexact_args("multinomial.logpmf", p)
    check_arraylike("multinomial.logpmf", x, n)
    x, n = promote_dtypes(jnp.asarray(x), jnp.asarray(n))
    if not dtypes.issubdtype(x.dtype, np.integer):
        raise ValueError(
            f"x and n must be of integer type; got x.dtype={x.dtype}, n.dtype={n.dtype}"
        )
    x, n = x.astype(p.dtype), n.astype(p.dtype)
    log_probs = lax.lgamma(n + 1) + jnp.sum(xlogy(x, p) - lax.lgamma(x + 1), axis=-1)
    return jnp.where(jnp.sum(x, axis=-1) == n, log_probs, const(log_probs, -np.inf))


def pmf(x: Any, n: Any, p: Any) -> Any:
    """The multinomial pmf, as `scipy.stats.multinomial.pmf`.

    Args:
      x: integer counts.
      n: integer number of trials.
      p: category probabilities.

    Returns:
      The probabilities.
    """
    return jnp.exp(logpmf(x, n, p))
