"""Scaled dot-product attention (`jax.nn.dot_product_attention`), the XLA formulation: two
einsums around a float32 softmax, with bias, boolean/causal/sliding-window/padding masks and
grouped-query heads.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src import dtypes
from stablax._src.interpreters.ad import stop_gradient
from stablax._src.jit import jit
from stablax._src.nn.softmax import logsumexp, softmax


def _large_negative(dtype: np.dtype) -> Any:
    # -0.7 * max, capped at float32's range so that float64 logits mask like float32 ones.
    biggest = min(float(dtypes.finfo(dtype).max), float(np.finfo(np.float32).max))
    return jnp.asarray(-0.7 * biggest, dtype=dtype)


def _combined_mask(t, s, batch_mask, is_causal, window, q_lengths, kv_lengths):
    """The boolean mask over (B, K, G, T, S) logits, or None when nothing is masked."""
    masks = [] if batch_mask is None else [batch_mask]
    query_pos = jnp.arange(t)[:, None]
    key_pos = jnp.arange(s)[None, :]
    if is_causal:
        masks.append(query_pos >= key_pos)
    if window is not None:
        left, right = window
        masks.append((query_pos <= key_pos + left) & (query_pos >= key_pos - right))
    if q_lengths is not None or kv_lengths is not None:
        padding = jnp.ones((1, t, s), dtype=bool)
        if q_lengths is not None:
            padding = padding & (jnp.arange(t)[None, :, None] < q_lengths[:, None, None])
        if kv_lengths is not None:
            padding = padding & (jnp.arange(s)[None, None, :] < kv_lengths[:, None, None])
        masks.append(padding[:, None, None, :, :])
    if not masks:
        return None
    combined = masks[0]
    for m in masks[1:]:
        combined = combined & m
    return combined


def _grouped(t, num_groups):
    """A (B|1, N|1, T|1, S|1) bias or mask as (B|1, K|1, G|1, T|1, S|1) for K x G heads."""
    if t is None:
        return None
    tb, tn, tt, ts = t.shape
    if tn == 1:
        return t[:, :, None, :, :]
    return jnp.reshape(t, (tb, tn // num_groups, num_groups, tt, ts))


def _attention_xla(
    query, key, value, bias, mask, is_causal, scale, q_lengths, kv_lengths, window, return_residual
):
    b, t, n, h = query.shape
    _, s, k, _ = key.shape
    g = n // k
    query = jnp.reshape(query, (b, t, k, g, h))
    logits_dtype = jnp.promote_types(query.dtype, np.float32)
    logits = jnp.einsum("BTKGH,BSKH->BKGTS", query, key, preferred_element_type=logits_dtype)
    logits = logits * jnp.array(scale, dtype=logits.dtype)
    if bias is not None:
        logits = (logits + _grouped(bias, g)).astype(logits.dtype)
    combined = _combined_mask(t, s, _grouped(mask, g), is_causal, window, q_lengths, kv_lengths)
    if combined is not None:
        logits = jnp.where(combined, logits, _large_negative(logits.dtype))
    logits = logits.astype(np.float32)
    probs = softmax(logits, axis=-1).astype(key.dtype)
    encoded = jnp.einsum("BKGTS,BSKH->BTKGH", probs, value)
    if q_lengths is not None:
        rows = jnp.arange(t)[None, :] < q_lengths[:, None]
        encoded = encoded * rows[:, :, None, None, None].astype(encoded.dtype)
    encoded = jnp.reshape(encoded, (b, t, n, h))
    if not return_residual:
        return encoded
    residual = logsumexp(logits, axis=-1).astype(key.dtype)  # (B, K, G, T)
    residual = jnp.reshape(jnp.transpose(residual, (0, 3, 1, 2)), (b, t, n))
    return encoded, stop_gradient(residual)


_attention_xla_jit = jit(_attention_xla, static_argnums=(5, 9, 10))


def _ensure_4d(t: Any) -> Any:
    t = jnp.asarray(t)
    missing = 4 - t.ndim
    return jnp.expand_dims(t, tuple(range(missing))) if missing > 0 else t


def _check(t: Any, shape: Sequence[int], dtype: Any, name: str) -> None:
    if t is None:
        return
    if t.ndim != len(shape):
        raise ValueError(f"{name} ndim should be {len(shape)}, but got {t.ndim}")
    if dtype is not None and t.dtype != dtype:
        raise ValueError(f"{name} dtype should be {dtype}, but got {t.dtype}")
    for i in range(t.ndim):
        if shape[i] != -1 and t.shape[i] != shape[i]:
            raise ValueError(f"{name} shape should be {list(shape)}: but got {t.shape}")


def dot_product_attention(
    query: Any,
    key: Any,
    value: Any,
    bias: Any = None,
    mask: Any = None,
    *,
    scale: float | None = None,
    is_causal: bool = False,
    query_seq_lengths: Any = None,
    key_value_seq_lengths: Any = None,
    local_window_size: int | tuple[int, int] | None = None,
    implementation: str | None = None,
    return_residual: bool = False,
) -> Any:
    """Scaled dot-product attention, `softmax(q k^T * scale + bias, masked) v`.

    Shapes use B batch, T query length, S key length, N query heads, K key/value heads (N must
    be a multiple of K: grouped-query attention) and H head size. The batch axis may be left out.

    Args:
      query: (B, T, N, H) or (T, N, H).
      key: (B, S, K, H) or (S, K, H).
      value: like `key`, with key's dtype.
      bias: optional array broadcastable to (B, N, T, S), added to the logits.
      mask: optional boolean array broadcastable to (B, N, T, S); False entries are masked out.
      scale: logit scale (default `1 / sqrt(H)`).
      is_causal: mask out keys after each query (`key_pos > query_pos`).
      query_seq_lengths: optional int32 (B,) valid query lengths; padded rows come out zero.
      key_value_seq_lengths: optional int32 (B,) valid key lengths.
      local_window_size: `w` or `(left, right)`: each query sees keys within `left` before and
        `right` after its position.
      implementation: None or "xla" (the einsum/softmax formulation); "cudnn" needs cuDNN.
      return_residual: also return the softmax's logsumexp, shape (B, T, N).

    Returns:
      The attention output with `query`'s shape (and the residual when asked).
    """
    output_shape = jnp.asarray(query).shape
    query_arr, key_arr, value_arr = _ensure_4d(query), _ensure_4d(key), _ensure_4d(value)
    bias = _ensure_4d(bias) if bias is not None else None
    mask = _ensure_4d(mask) if mask is not None else None
    if query_seq_lengths is not None:
        query_seq_lengths = jnp.asarray(query_seq_lengths)
    if key_value_seq_lengths is not None:
        key_value_seq_lengths = jnp.asarray(key_value_seq_lengths)
    if isinstance(local_window_size, int):
        local_window_size = (local_window_size, local_window_size)
    elif local_window_size is not None:
        local_window_size = tuple(int(w) for w in local_window_size)

    b, s, k, h = key_arr.shape
    _check(value_arr, [b, s, k, h], key_arr.dtype, "value")
    _check(query_arr, [b, -1, -1, h], key_arr.dtype, "query")
    _check(mask, [-1] * 4, np.dtype(bool), "mask")
    _check(bias, [-1] * 4, None, "bias")
    _check(query_seq_lengths, [b], np.dtype("int32"), "query_seq_lengths")
    _check(key_value_seq_lengths, [b], np.dtype("int32"), "key_value_seq_lengths")
    n = query_arr.shape[-2]
    if n % k != 0:
        raise ValueError(
            f"The number of query heads must be a multiple of key/value heads, but got {n} vs {k}"
        )
    for name, t in (("bias", bias), ("mask", mask)):
        if t is not None and t.shape[1] not in (1, n):
            raise ValueError(
                f"dot_product_attention: {name} has {t.shape[1]} heads; expected 1 or {n} "
                f"(shape {t.shape})"
            )
    scale_val = (1.0 / np.sqrt(h)) if scale is None else scale

    if implementation == "cudnn":
        raise RuntimeError("cuDNN is not detected.")
    if implementation not in (None, "xla"):
        raise ValueError(f"Unsupported implementation option: {implementation}")
    out = _attention_xla_jit(
        query_arr,
        key_arr,
        value_arr,
        bias,
        mask,
        bool(is_causal),
        scale_val,
        query_seq_lengths,
        key_value_seq_lengths,
        local_window_size,
        bool(return_residual),
    )
    if return_residual:
        out, residual = out
        return jnp.reshape(out, output_shape), jnp.reshape(residual, output_shape[:-1])
    return jnp.reshape(out, output_shape)
