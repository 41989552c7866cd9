"""Bessel functions: the modified Bessel functions I0 and I1 (plain and exponentially scaled)
and the first-kind Bessel functions J_0 ... J_v by Miller's backward recurrence.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src import dtypes, lax
from stablax._src.jit import jit
from stablax._src.lax._control_flow_scan import scan
from stablax._src.scipy.args import const, inexact_args


def i0e(x: Any) -> Any:
    """The exponentially scaled modified Bessel function of order 0, `exp(-|x|) I0(x)`.

    Args:
      x: real input array.

    Returns:
      `i0e(x)` (`lax.bessel_i0e`), as `scipy.special.i0e`.
    """
    (x,) = inexact_args("i0e", x)
    return lax.bessel_i0e(x)


def i0(x: Any) -> Any:
    """The modified Bessel function of order 0.

    Args:
      x: real input array.

    Returns:
      `I0(x) = exp(|x|) i0e(x)`, as `scipy.special.i0`.
    """
    (x,) = inexact_args("i0", x)
    return jnp.exp(jnp.abs(x)) * lax.bessel_i0e(x)


def i1e(x: Any) -> Any:
    """The exponentially scaled modified Bessel function of order 1, `exp(-|x|) I1(x)`.

    Args:
      x: real input array.

    Returns:
      `i1e(x)` (`lax.bessel_i1e`), as `scipy.special.i1e`.
    """
    (x,) = inexact_args("i1e", x)
    return lax.bessel_i1e(x)


def i1(x: Any) -> Any:
    """The modified Bessel function of order 1.

    Args:
      x: real input array.

    Returns:
      `I1(x) = exp(|x|) i1e(x)`, as `scipy.special.i1`.
    """
    (x,) = inexact_args("i1", x)
    return jnp.exp(jnp.abs(x)) * lax.bessel_i1e(x)


def _bessel_jn(z, v, n_iter):
    # Miller: run J_k = 2 (k + 1) / z J_{k+1} - J_{k+2} down from k = n_iter with arbitrary
    # starting values, then normalise with J_0 + 2 sum_m J_{2m} = 1. The carry is rescaled
    # whenever it grows large, and each emitted value remembers the base-2 exponent of the
    # scale so far.
    big = const(z, 1e10 if z.dtype == np.float32 else 1e100)
    z_safe = jnp.where(z == 0, jnp.ones_like(z), z)

    def step(carry, k):
        f0, f1, even_sum, log_scale = carry
        f = 2.0 * (k + 1.0) * f1 / z_safe - f0
        even_sum = jnp.where(lax.rem(k, const(k, 2)) == 0, even_sum + 2.0 * f, even_sum)
        # Rescale by a power of two: exact, and its exponent adds up exactly.
        exponent = jnp.where(jnp.abs(f) > big, jnp.floor(jnp.log2(jnp.abs(f))), jnp.zeros_like(f))
        s = jnp.exp2(exponent)
        out = (f, log_scale)
        carry = (f1 / s, f / s, even_sum / s, log_scale + exponent)
        return carry, out

    init = (jnp.zeros_like(z), jnp.full_like(z, 1e-16), jnp.zeros_like(z), jnp.zeros_like(z))
    ks = jnp.arange(n_iter + 1, dtype=z.dtype)
    (_, _, even_sum, final_scale), (values, scales) = scan(step, init, ks, reverse=True)
    # J_0 was counted twice in the even sum: remove it once.
    j0 = values[0] * jnp.exp2(scales[0] - final_scale)
    norm = even_sum - j0
    js = values[: v + 1] * jnp.exp2(scales[: v + 1] - final_scale) / norm
    at_zero = (jnp.arange(v + 1) == 0).astype(z.dtype).reshape((v + 1,) + (1,) * z.ndim)
    return jnp.where(z == 0, at_zero, js)


_bessel_jn_jit = jit(_bessel_jn, static_argnums=(1, 2))


def bessel_jn(z: Any, *, v: int, n_iter: int = 50) -> Any:
    """Bessel functions of the first kind `J_0(z), ..., J_v(z)`.

    Args:
      z: real input array.
      v: the highest order, a concrete non-negative integer.
      n_iter: number of backward-recurrence steps (more for larger |z|).

    Returns:
      An array of shape `(v + 1,) + z.shape`, as `scipy.special.jv(arange(v + 1), z)`.
    """
    (z,) = inexact_args("bessel_jn", jnp.asarray(z))
    if dtypes.issubdtype(z.dtype, np.complexfloating):
        raise ValueError("complex input not supported.")
    v = operator.index(v)
    n_iter = int(n_iter)
    return _bessel_jn_jit(z, v, n_iter)
