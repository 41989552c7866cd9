"""Spherical harmonics `Y_n^m(theta, phi)` from fully normalised associated Legendre functions,
computed by the stable three-term recurrence in the degree."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src import lax
from stablax._src.jit import jit
from stablax._src.scipy.args import inexact_dtypes


def _normalized_legendre(n_max: int, x: Any) -> Any:
    """P[m, l] = sqrt((2l+1)/(4 pi) (l-m)!/(l+m)!) P_l^m(x) (Condon-Shortley phase), stacked
    as an (n_max + 1, n_max + 1) + x.shape array, zero where l < m."""
    sine = jnp.sqrt(1.0 - x * x)
    zero = jnp.zeros_like(x)
    rows = []
    diagonal = jnp.full_like(x, 0.5 / math.sqrt(math.pi))
    for m in range(n_max + 1):
        if m > 0:
            # P_m^m = -sqrt(1 + 1/(2m)) sin(theta) P_{m-1}^{m-1}.
            diagonal = -math.sqrt(1.0 + 0.5 / m) * sine * diagonal
        row = [zero] * m + [diagonal]
        if m < n_max:
            row.append(math.sqrt(2.0 * m + 3.0) * x * diagonal)
        for l in range(m + 2, n_max + 1):
            # P_l^m = a x P_{l-1}^m - b P_{l-2}^m with the normalised coefficients.
            a = math.sqrt((4.0 * l * l - 1.0) / (l * l - m * m))
            b = math.sqrt(
                ((2.0 * l + 1.0) * ((l - 1.0) ** 2 - m * m)) / ((2.0 * l - 3.0) * (l * l - m * m))
            )
            row.append(a * x * row[l - 1] - b * row[l - 2])
        rows.append(jnp.stack(row))
    return jnp.stack(rows)


def _sph_harm(n, m, theta, phi, n_max):
    legendre = _normalized_legendre(n_max, jnp.cos(theta))  # (m, l, k)
    k = jnp.arange(theta.shape[0])
    abs_m = jnp.abs(m)
    value = legendre[jnp.clip(abs_m, 0, n_max), jnp.clip(n, 0, n_max), k]
    angle = abs_m.astype(phi.dtype) * phi
    harmonic = lax.complex(value * jnp.cos(angle), value * jnp.sin(angle))
    # Y_n^{-m} = (-1)^m conj(Y_n^m).
    sign = jnp.where(abs_m % 2 == 1, -1.0, 1.0).astype(value.dtype)
    return jnp.where(m < 0, sign * jnp.conj(harmonic), harmonic)


_sph_harm_jit = jit(_sph_harm, static_argnums=(4,))


def sph_harm_y(
    n: Any, m: Any, theta: Any, phi: Any, diff_n: int | None = None, n_max: int | None = None
) -> Any:
    """The spherical harmonic `Y_n^m(theta, phi)` (theta polar, phi azimuthal).

    Args:
      n: integer degrees (|m| <= n <= n_max).
      m: integer orders.
      theta: polar angles.
      phi: azimuthal angles.
      diff_n: derivatives are not supported (must be None), as in JAX.
      n_max: the largest degree, static; computed from `n` when None (which needs concrete `n`).

    Returns:
      Complex values broadcast over the arguments, as `scipy.special.sph_harm_y`.
    """
    if diff_n is not None:
        raise NotImplementedError(
            "The 'diff_n' argument to jax.scipy.special.sph_harm_y is not supported."
        )
    n, m = jnp.asarray(n), jnp.asarray(m)
    theta, phi = jnp.asarray(theta), jnp.asarray(phi)
    theta, phi = inexact_dtypes("sph_harm_y", theta, phi)
    dtype = theta.dtype
    if n_max is None:
        n_max = int(np.max(np.asarray(n)))
    shape = jnp.broadcast_shapes(n.shape, m.shape, theta.shape, phi.shape)
    flat = [jnp.ravel(jnp.broadcast_to(v, shape)) for v in (n, m, theta, phi)]
    out = _sph_harm_jit(
        flat[0].astype(np.int32),
        flat[1].astype(np.int32),
        flat[2].astype(dtype),
        flat[3].astype(dtype),
        int(n_max),
    )
    return jnp.reshape(out, shape)
