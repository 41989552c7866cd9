"""Samplers needing linear algebra: multivariate_normal (a factor of the covariance times standard
normals) and orthogonal (Haar-distributed, from the QR of a normal matrix).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src import dtypes, runtime
from stablax._src.jit import jit
from stablax._src.random.keys import check_key
from stablax._src.random.params import check_shape, dtype_arg, shape_arg
from stablax._src.random.uniform import normal_impl


def _linalg() -> Any:
    from stablax.numpy import linalg  # area 3's module; imported late to keep imports acyclic

    return linalg


def _multivariate_normal(key, mean, cov, shape, dtype, method):
    linalg = _linalg()
    if method == "svd":
        u, s, _ = linalg.svd(cov)
        factor = u * jnp.sqrt(s[..., None, :])
    elif method == "eigh":
        w, v = linalg.eigh(cov)
        factor = v * jnp.sqrt(w[..., None, :])
    else:
        factor = linalg.cholesky(cov)
    samples = normal_impl(key, shape + mean.shape[-1:], dtype)
    return mean + jnp.matmul(factor, samples[..., None])[..., 0]


_multivariate_normal_jit = jit(_multivariate_normal, static_argnums=(3, 4, 5))


def multivariate_normal(
    key: Any,
    mean: Any,
    cov: Any,
    shape: Any = None,
    dtype: Any = None,
    method: str = "cholesky",
    *,
    out_sharding: Any = None,
) -> Any:
    """Normal vectors with the given mean (..., n) and covariance (..., n, n).

    Args:
      key: a PRNG key.
      mean, cov: the parameters; their batch shapes broadcast together.
      shape: the batch shape of the result (default: the parameters' batch shape).
      dtype: a float dtype (default: mean's).
      method: how to factor cov: "cholesky", "eigh" or "svd".
      out_sharding: None, or a sharding on stablax's one device.
    """
    runtime.check_sharding(out_sharding, "random.multivariate_normal")
    data, _ = check_key("multivariate_normal", key)
    mean, cov = jnp.asarray(mean), jnp.asarray(cov)
    inexact = dtypes.result_type(mean, cov, dtypes.default_float_dtype())
    mean, cov = mean.astype(inexact), cov.astype(inexact)
    if method not in {"svd", "eigh", "cholesky"}:
        raise ValueError("method must be one of {'svd', 'eigh', 'cholesky'}")
    dtype = mean.dtype if dtype is None else dtype_arg("multivariate_normal", dtype, "float")
    if mean.ndim < 1:
        raise ValueError(
            f"multivariate_normal requires mean.ndim >= 1, got mean.ndim == {mean.ndim}"
        )
    if cov.ndim < 2:
        raise ValueError(f"multivariate_normal requires cov.ndim >= 2, got cov.ndim == {cov.ndim}")
    n = mean.shape[-1]
    if cov.shape[-2:] != (n, n):
        raise ValueError(
            f"multivariate_normal requires cov.shape == (..., n, n) for n={n}, but got "
            f"cov.shape == {cov.shape}."
        )
    if shape is None:
        shape = tuple(np.broadcast_shapes(mean.shape[:-1], cov.shape[:-2]))
    else:
        shape = shape_arg("multivariate_normal", shape)
        check_shape("normal", shape, mean.shape[:-1], cov.shape[:-2])
    return _multivariate_normal_jit(data, mean, cov, shape, np.dtype(dtype), method)


def _orthogonal(key, n, m, shape, dtype):
    z = normal_impl(key, (*shape, max(n, m), min(n, m)), dtype)
    q, r = _linalg().qr(z)
    d = jnp.diagonal(r, axis1=-2, axis2=-1) if hasattr(jnp, "diagonal") else _linalg().diagonal(r)
    x = q * jnp.expand_dims(jnp.sign(d), -2)
    return jnp.swapaxes(x, -1, -2) if n < m else x


_orthogonal_jit = jit(_orthogonal, static_argnums=(1, 2, 3, 4))


def orthogonal(
    key: Any,
    n: int,
    shape: Any = (),
    dtype: Any = None,
    m: int | None = None,
    *,
    out_sharding: Any = None,
):
    """Haar-random n x m matrices with orthonormal columns (or rows when n < m).

    Args:
      key: a PRNG key.
      n, m: the matrix size (m defaults to n).
      shape: the batch shape.
      dtype: a float dtype.
      out_sharding: None, or a sharding on stablax's one device.
    """
    runtime.check_sharding(out_sharding, "random.orthogonal")
    data, _ = check_key("orthogonal", key)
    dtype = dtype_arg("orthogonal", dtype, "inexact")
    m = n if m is None else m
    return _orthogonal_jit(data, int(n), int(m), shape_arg("orthogonal", shape), dtype)
