"""Block-scaled matrix products (`jax.nn.scaled_matmul`, `scaled_dot_general`): operands in a
narrow float format (float8/float4) with one scale per block of the contracting axis.

JAX lowers these to a cuDNN/XLA-GPU custom call and has no CPU path; here every backend computes
the same product by dequantising in float32 (`value * scale` per block) and one `dot_general`.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from typing import Any

import ml_dtypes
import numpy as np

from stablax import numpy as jnp
from stablax._src import dtypes, lax
from stablax._src.interpreters.custom_vjp import custom_vjp


@dataclasses.dataclass
class BlockScaleConfig:
    """How one operand is quantised: `block_size` values of `data_type` share one `scale_type`
    scale; nvfp4 also divides by a float32 `global_scale` first."""

    mode: str
    block_size: int
    data_type: Any
    scale_type: Any
    global_scale: Any
    infer_only: bool


def _preferred(dtype: Any, name: str) -> np.dtype:
    dtype = np.dtype(dtype)
    dtypes.check_user_dtype(dtype, name)
    return np.dtype(dtypes.canonicalize_dtype(dtype))


def scaled_matmul(
    lhs: Any,
    rhs: Any,
    lhs_scales: Any,
    rhs_scales: Any,
    preferred_element_type: Any = np.float32,
) -> Any:
    """Batched block-scaled product `(lhs * lhs_scales) @ (rhs * rhs_scales)^T`.

    Each scale multiplies a block of `K / K_block` consecutive entries along the contracting
    axis.

    Args:
      lhs: (B, M, K) array, usually float8 or float4.
      rhs: (B, N, K) array.
      lhs_scales: (B, M, K_block) scales (e.g. float8_e8m0fnu).
      rhs_scales: (B, N, K_block) scales.
      preferred_element_type: dtype of the result.

    Returns:
      The (B, M, N) product in `preferred_element_type`.
    """
    a, b = jnp.asarray(lhs), jnp.asarray(rhs)
    a_scales, b_scales = jnp.asarray(lhs_scales), jnp.asarray(rhs_scales)
    if not all(x.ndim == 3 for x in (a, b, a_scales, b_scales)):
        raise ValueError("scaled_matmul requires all inputs to be 3-dimensional arrays")
    batch_a, m, k_a = a.shape
    batch_b, n, k_b = b.shape
    if k_a != k_b or batch_a != batch_b:
        raise ValueError(
            "scaled_matmul requires inputs a and b to have matching batch (B) and contract (K) "
            f"dimensions, but got shapes {a.shape} and {b.shape}"
        )
    if a_scales.shape[2] != b_scales.shape[2] or a_scales.shape[0] != b_scales.shape[0]:
        raise ValueError(
            "scaled_matmul requires scales to have matching batch (B) and contract (K) "
            f"dimensions, but got shapes {a_scales.shape} and {b_scales.shape}"
        )
    if a_scales.shape[1] != m or b_scales.shape[1] != n:
        raise ValueError(
            "scaled_matmul requires scales to match non-contract dimensions of inputs, but got "
            f"shapes a: {a.shape}, b: {b.shape}, a_scales: {a_scales.shape}, b_scales: "
            f"{b_scales.shape}"
        )
    k_blocks = a_scales.shape[2]
    if k_blocks == 0 or k_a % k_blocks:
        raise ValueError(
            f"scaled_matmul: the contracting size {k_a} is not a multiple of the number of "
            f"scale blocks {k_blocks}"
        )
    out_dtype = _preferred(preferred_element_type, "scaled_matmul")
    block = k_a // k_blocks

    def dequantize(x, scales):
        values = x.astype(np.float32).reshape(x.shape[0], x.shape[1], k_blocks, block)
        return (values * scales.astype(np.float32)[..., None]).reshape(x.shape)

    out = lax.dot_general(
        dequantize(a, a_scales),
        dequantize(b, b_scales),
        (((2,), (2,)), ((0,), (0,))),
        preferred_element_type=np.float32,
    )
    return out.astype(out_dtype)


def get_scaled_dot_general_config(mode: str, global_scale: Any = None) -> BlockScaleConfig:
    """The block-scale configuration of a named format.

    Args:
      mode: "mxfp8" (float8_e4m3fn values, float8_e8m0fnu scales, blocks of 32) or "nvfp4"
        (float4_e2m1fn values, float8_e4m3fn scales, blocks of 16, and a global scale).
      global_scale: nvfp4's float32 global scale (default `ones((1,))`).

    Returns:
      A `BlockScaleConfig`.
    """
    if mode == "nvfp4":
        return BlockScaleConfig(
            mode="nvfp4",
            block_size=16,
            data_type=ml_dtypes.float4_e2m1fn,
            scale_type=ml_dtypes.float8_e4m3fn,
            global_scale=jnp.ones((1,), np.float32) if global_scale is None else global_scale,
            infer_only=False,
        )
    if mode == "mxfp8":
        return BlockScaleConfig(
            mode="mxfp8",
            block_size=32,
            data_type=ml_dtypes.float8_e4m3fn,
            scale_type=ml_dtypes.float8_e8m0fnu,
            global_scale=None,
            infer_only=False,
        )
    raise ValueError(f"Unsupported mode: {mode}")


def _to_3d(x, contracting, batch):
    """x transposed to (batch, other, contracting) axes, each group in axis order, flattened."""
    order = range(x.ndim)
    batch_axes = [d for d in order if d in batch]
    contract_axes = [d for d in order if d in contracting]
    free_axes = [d for d in order if d not in batch and d not in contracting]
    sizes = [math.prod(x.shape[d] for d in axes) for axes in (batch_axes, free_axes, contract_axes)]
    return jnp.reshape(jnp.transpose(x, batch_axes + free_axes + contract_axes), tuple(sizes))


def _dot_shape(lhs_shape, rhs_shape, lhs_dims, rhs_dims):
    (lhs_contract, lhs_batch), (rhs_contract, rhs_batch) = lhs_dims, rhs_dims
    batch = [d for i, d in enumerate(lhs_shape) if i in lhs_batch]
    lhs_free = [d for i, d in enumerate(lhs_shape) if i not in lhs_contract and i not in lhs_batch]
    rhs_free = [d for i, d in enumerate(rhs_shape) if i not in rhs_contract and i not in rhs_batch]
    return tuple(batch + lhs_free + rhs_free)


def _e8m0_round_up(x):
    # The power-of-two scale at or above x: the float32 exponent field, plus one when any
    # mantissa bit is set (normal numbers) or the subnormal is above half the smallest normal.
    bits = lax.bitcast_convert_type(x.astype(np.float32), np.uint32)
    exponent = bits >> np.uint32(23)
    mantissa = bits & np.uint32(0x7FFFFF)
    round_up = (mantissa > 0) & (exponent != 0xFE) & ~((exponent == 0) & (mantissa <= 0x400000))
    return jnp.where(round_up, exponent + 1, exponent).astype(np.uint8)


def _e8m0_value(bits, dtype):
    value = lax.bitcast_convert_type(bits.astype(np.uint32) << np.uint32(23), np.float32)
    tiny = 2.0**-15 if np.dtype(dtype) == np.float16 else 2.0**-127
    return jnp.where(value == 0, np.float32(tiny), value).astype(dtype)


def _quantize(x, config):
    shape = x.shape
    block = config.block_size
    if shape[-1] < block or shape[-1] % block:
        raise ValueError(
            f"scaled_dot_general: the contracting size {shape[-1]} must be a positive multiple "
            f"of the block size {block} ({config.mode})"
        )
    x = x.reshape(shape[:-1] + (shape[-1] // block, block))
    data_max = np.asarray(float(ml_dtypes.finfo(config.data_type).max), dtype=x.dtype)
    block_scale = jnp.max(jnp.abs(x), axis=-1, keepdims=True) / data_max
    if config.mode == "mxfp8":
        scales = _e8m0_round_up(block_scale)
        scaled = x / _e8m0_value(scales, x.dtype)
        scales = lax.bitcast_convert_type(scales, config.scale_type)
    elif config.mode == "nvfp4":
        scale_max = np.asarray(float(ml_dtypes.finfo(config.scale_type).max), dtype=x.dtype)
        x = x / config.global_scale
        block_scale = jnp.max(jnp.abs(x), axis=-1, keepdims=True) / data_max
        scales = jnp.clip(block_scale, 0, scale_max).astype(config.scale_type)
        scaled = x / scales.astype(np.float32)
    else:
        raise ValueError(f"Unrecognized mode: {config.mode}.")
    quantized = jnp.clip(scaled, -data_max, data_max).astype(config.data_type)
    return quantized.reshape(shape), jnp.reshape(scales, scales.shape[:-1])


def _scaled_dot(lhs, rhs, dimension_numbers, preferred_element_type, configs):
    (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = dimension_numbers
    lhs_dims, rhs_dims = (lhs_contract, lhs_batch), (rhs_contract, rhs_batch)
    lhs_q, lhs_scales = _quantize(_to_3d(lhs, *lhs_dims), configs[0])
    rhs_q, rhs_scales = _quantize(_to_3d(rhs, *rhs_dims), configs[1])
    nvfp4 = configs[0].mode == "nvfp4"
    out = scaled_matmul(
        lhs_q, rhs_q, lhs_scales, rhs_scales, np.float32 if nvfp4 else preferred_element_type
    )
    if nvfp4:
        out = (out * (configs[0].global_scale * configs[1].global_scale)).astype(
            preferred_element_type
        )
    return jnp.reshape(out, _dot_shape(lhs.shape, rhs.shape, lhs_dims, rhs_dims))


def _consecutive(*groups):
    start, out = 0, []
    for g in groups:
        out.append(list(range(start, start + len(g))))
        start += len(g)
    return out


def _transpose_lhs(g, x, y, dimension_numbers, preferred_element_type, configs, swap_ans=False):
    # d(out)/d(x) as a block-scaled product of the cotangent with the other operand.
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    x_kept = [d for d in range(x.ndim) if d not in x_contract and d not in x_batch]
    y_kept = [d for d in range(y.ndim) if d not in y_contract and d not in y_batch]
    if swap_ans:
        ans_batch, ans_y, _ = _consecutive(x_batch, y_kept, x_kept)
    else:
        ans_batch, _, ans_y = _consecutive(x_batch, x_kept, y_kept)
    x_contract_by_y = list(np.take(x_contract, np.argsort(y_contract)))
    out_axes = tuple(int(a) for a in np.argsort(list(x_batch) + x_kept + x_contract_by_y))
    y_dims, g_dims = (y_kept, y_batch), (ans_y, ans_batch)
    y_3d, g_3d = _to_3d(y, *y_dims), _to_3d(g, *g_dims)
    if configs[0].mode != "nvfp4":
        g_q, g_scales = _quantize(g_3d, configs[0])
        y_q, y_scales = _quantize(y_3d, configs[1])
        out = scaled_matmul(g_q, y_q, g_scales, y_scales, preferred_element_type)
    else:
        out = jnp.matmul(
            g_3d, jnp.transpose(y_3d, (0, 2, 1)), preferred_element_type=preferred_element_type
        )
    out = jnp.reshape(out, _dot_shape(g.shape, y.shape, g_dims, y_dims))
    return lax.transpose(out, out_axes)


def _scaled_dot_bwd(dimension_numbers, preferred_element_type, configs, residuals, g):
    lhs, rhs = residuals
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    swapped = ((y_contract, x_contract), (y_batch, x_batch))
    grad_lhs = _transpose_lhs(
        g, lhs, rhs, dimension_numbers, preferred_element_type, [configs[2], configs[1]]
    )
    grad_rhs = _transpose_lhs(
        g, rhs, lhs, swapped, preferred_element_type, [configs[2], configs[0]], swap_ans=True
    )
    if configs[2].mode == "nvfp4":
        # Straight-through estimator: entries clipped by the forward quantisation get no gradient.
        data_max = float(ml_dtypes.finfo(configs[0].data_type).max)
        scale_max = float(ml_dtypes.finfo(configs[0].scale_type).max)
        lhs_limit = configs[0].global_scale * data_max * scale_max
        rhs_limit = configs[1].global_scale * data_max * scale_max
        grad_lhs = jnp.where(jnp.abs(lhs) <= lhs_limit, grad_lhs, 0)
        grad_rhs = jnp.where(jnp.abs(rhs) <= rhs_limit, grad_rhs, 0)
    return grad_lhs, grad_rhs


def _scaled_dot_with_vjp(dimension_numbers, preferred_element_type, configs):
    """The product of two arrays with its quantised backward pass, for fixed static parameters."""

    def product(lhs, rhs):
        return _scaled_dot(lhs, rhs, dimension_numbers, preferred_element_type, configs)

    def fwd(lhs, rhs):
        return product(lhs, rhs), (lhs, rhs)

    def bwd(residuals, g):
        return _scaled_dot_bwd(dimension_numbers, preferred_element_type, configs, residuals, g)

    fun = custom_vjp(product)
    fun.defvjp(fwd, bwd)
    return fun


def scaled_dot_general(
    lhs: Any,
    rhs: Any,
    dimension_numbers: Any,
    preferred_element_type: Any = np.float32,
    configs: list[BlockScaleConfig] | None = None,
    implementation: str | None = None,
) -> Any:
    """`lax.dot_general` with both operands quantised to a block-scaled format first.

    Without `configs` it is `lax.dot_general`. With three configs (lhs, rhs, and the cotangent
    for the backward pass) each operand is reshaped to (batch, free, contracting), quantised per
    block of its contracting axis, multiplied with `scaled_matmul` and reshaped back. The
    gradient quantises the cotangent the same way (a straight-through estimator).

    Args:
      lhs: left operand.
      rhs: right operand.
      dimension_numbers: `((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))`.
      preferred_element_type: float32, bfloat16 or float16 result.
      configs: `[lhs_config, rhs_config, grad_config]` from `get_scaled_dot_general_config`.
      implementation: ignored (deprecated in JAX).

    Returns:
      The product, shaped as `lax.dot_general`'s.
    """
    if implementation is not None:
        warnings.warn(
            "Backend selector, now ignored. The system chooses the backend automatically.",
            DeprecationWarning,
            stacklevel=2,
        )
    if configs is None:
        return lax.dot_general(
            lhs, rhs, dimension_numbers, preferred_element_type=preferred_element_type
        )
    out_dtype = np.dtype(preferred_element_type)
    if out_dtype not in (np.dtype(np.float32), np.dtype(ml_dtypes.bfloat16), np.float16):
        raise TypeError(
            "Only support preferred_element_type in (f32, bf16, f16), but got "
            f"{preferred_element_type}"
        )
    lhs, rhs = jnp.asarray(lhs), jnp.asarray(rhs)
    (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = dimension_numbers
    lhs_contract, rhs_contract = tuple(lhs_contract), tuple(rhs_contract)
    lhs_batch, rhs_batch = tuple(lhs_batch), tuple(rhs_batch)
    expanded = not lhs_batch or not rhs_batch
    if not lhs_batch:
        lhs, lhs_batch = jnp.expand_dims(lhs, lhs.ndim), (lhs.ndim,)
    if not rhs_batch:
        rhs, rhs_batch = jnp.expand_dims(rhs, rhs.ndim), (rhs.ndim,)
    dims = ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))
    out = _scaled_dot_with_vjp(dims, out_dtype, list(configs))(lhs, rhs)
    return jnp.squeeze(out, axis=0) if expanded else out
