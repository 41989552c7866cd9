"""`stablax.image`: resizing and resampling images (`resize`, `scale_and_translate`), as
`jax.image`.

Every method but nearest-neighbour is separable: for each resized dimension a weight matrix
(input pixel x output pixel) is built from the method's kernel, and one `einsum` contracts the
image with all of them, so results are differentiable in the image, scale and translation.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from stablax._src import dtypes, lax
from stablax._src.jit import jit
from stablax._src.lax._argcheck import RANK, axis_arg
from stablax._src.numpy import _ufuncs as ufuncs
from stablax._src.numpy import _ufuncs_division as division
from stablax._src.numpy._asarray import asarray
from stablax._src.numpy._creation import arange, zeros
from stablax._src.numpy._einsum import einsum
from stablax._src.numpy._indexing_funcs import take
from stablax._src.numpy._promotion import promote_dtypes_inexact
from stablax._src.numpy._reductions import sum as jnp_sum


class ResizeMethod(enum.Enum):
    """The resampling methods of `resize` and `scale_and_translate`.

    NEAREST: nearest neighbour. LINEAR: linear interpolation (a triangle kernel). LANCZOS3 and
    LANCZOS5: Lanczos kernels of radius 3 and 5. CUBIC: the Keys cubic kernel (a = -0.5).
    CUBIC_PYTORCH: PyTorch's bicubic (a = -0.75, edges repeated) without antialiasing, CUBIC
    with it. AREA: the average of the input pixels an output pixel covers.
    """

    NEAREST = 0
    LINEAR = 1
    LANCZOS3 = 2
    LANCZOS5 = 3
    CUBIC = 4
    CUBIC_PYTORCH = 5
    AREA = 6

    @staticmethod
    def from_string(s: str) -> ResizeMethod:
        """The method for a name: "nearest", "linear" ("bilinear", "trilinear", "triangle"),
        "lanczos3", "lanczos5", "cubic" ("bicubic", "tricubic"), "cubic-pytorch"
        ("bicubic-pytorch") or "area"."""
        method = _NAMES.get(s)
        if method is None:
            raise ValueError(f'Unknown resize method "{s}"')
        return method


_NAMES = {
    "nearest": ResizeMethod.NEAREST,
    "linear": ResizeMethod.LINEAR,
    "bilinear": ResizeMethod.LINEAR,
    "trilinear": ResizeMethod.LINEAR,
    "triangle": ResizeMethod.LINEAR,
    "lanczos3": ResizeMethod.LANCZOS3,
    "lanczos5": ResizeMethod.LANCZOS5,
    "cubic": ResizeMethod.CUBIC,
    "bicubic": ResizeMethod.CUBIC,
    "tricubic": ResizeMethod.CUBIC,
    "cubic-pytorch": ResizeMethod.CUBIC_PYTORCH,
    "bicubic-pytorch": ResizeMethod.CUBIC_PYTORCH,
    "area": ResizeMethod.AREA,
}

# --- kernels: weight of an input pixel at distance x (in input pixels) from the sample --------


def _triangle(x: Any) -> Any:
    return ufuncs.maximum(0, 1 - ufuncs.abs(x))


def _lanczos(radius: float) -> Callable[[Any], Any]:
    def kernel(x: Any) -> Any:
        y = radius * ufuncs.sin(np.pi * x) * ufuncs.sin(np.pi * x / radius)
        # y / (pi x)^2 away from 0, its limit 1 near 0
        safe = division.divide(y, ufuncs.where(x != 0, np.pi**2 * x**2, 1))
        return ufuncs.where(x > radius, 0.0, ufuncs.where(x > 1e-3, safe, 1))

    return kernel


def _keys_cubic(x: Any) -> Any:  # Keys (1981) with a = -0.5: Pillow, TensorFlow, PyTorch+AA
    near = ((1.5 * x - 2.5) * x) * x + 1.0
    far = ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0
    return ufuncs.where(x >= 2.0, 0.0, ufuncs.where(x >= 1.0, far, near))


def _opencv_cubic(x: Any) -> Any:  # a = -0.75: OpenCV, and PyTorch without antialiasing
    a = -0.75
    near = ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
    far = ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a
    return ufuncs.where(x >= 2.0, 0.0, ufuncs.where(x >= 1.0, far, near))


_AREA = object()
_KERNELS: dict[ResizeMethod, tuple[int, Any]] = {
    ResizeMethod.LINEAR: (1, _triangle),
    ResizeMethod.LANCZOS3: (3, _lanczos(3.0)),
    ResizeMethod.LANCZOS5: (5, _lanczos(5.0)),
    ResizeMethod.CUBIC: (2, _keys_cubic),
    ResizeMethod.CUBIC_PYTORCH: (2, _opencv_cubic),
    ResizeMethod.AREA: (1, _AREA),
}


def _normalized(weights: Any) -> Any:
    """Columns scaled to sum to 1 (0 where the sum is ~0: no input pixel contributes)."""
    total = jnp_sum(weights, axis=0, keepdims=True)
    tiny = 1000.0 * float(np.finfo(np.float32).eps)
    return ufuncs.where(ufuncs.abs(total) > tiny, weights / ufuncs.where(total != 0, total, 1), 0)


def _weight_matrix(
    in_size: int, out_size: int, scale: Any, translation: Any, kernel: Any, antialias: bool,
    edge_padding: bool, radius: int,
) -> Any:  # fmt: skip
    """The (in_size, out_size) matrix of weights of each input pixel for each output pixel."""
    dtype = dtypes.result_type(scale, translation)
    inv_scale = 1.0 / scale
    # Downsampling with antialiasing stretches the kernel: a low-pass filter, then interpolation.
    kernel_scale = ufuncs.maximum(inv_scale, 1.0) if antialias else 1.0
    # The input coordinate sampled by the centre of each output pixel.
    sample = (arange(out_size, dtype=dtype) + 0.5) * inv_scale - translation * inv_scale - 0.5
    pad = radius if edge_padding else 0  # edge padding is only used without antialiasing
    positions = arange(-pad, in_size + pad, dtype=dtype)
    if kernel is _AREA:
        # The overlap of output pixel i's footprint [lo_i, lo_i + 1/scale] with input pixel j's.
        out_lo = arange(out_size, dtype=dtype) * inv_scale - translation * inv_scale
        in_lo = arange(in_size, dtype=dtype)
        weights = ufuncs.maximum(
            0.0,
            ufuncs.minimum((out_lo + inv_scale)[None, :], (in_lo + 1.0)[:, None])
            - ufuncs.maximum(out_lo[None, :], in_lo[:, None]),
        )
    else:
        weights = kernel(ufuncs.abs(sample[None, :] - positions[:, None]) / kernel_scale)
    if edge_padding:
        # Weights of pixels beyond an edge go to that edge pixel (the edge is repeated).
        rows = lax.clamp(0, positions.astype(np.int32), in_size - 1)
        cols = lax.broadcasted_iota(np.int32, (positions.shape[0], out_size), 1)
        matrix = zeros((in_size, out_size), dtype=dtype).at[rows[:, None], cols].add(weights)
        return _normalized(matrix)
    weights = _normalized(weights)
    # Samples entirely outside the input get no weight (the output there is 0).
    inside = ufuncs.logical_and(sample >= -0.5, sample <= in_size - 0.5)
    return ufuncs.where(inside[None, :], weights, 0)


def _scale_and_translate(x, shape, spatial_dims, scale, translation, method, antialias, precision):
    if method == ResizeMethod.CUBIC_PYTORCH and antialias:
        method = ResizeMethod.CUBIC
    radius, kernel = _KERNELS[method]
    edge_padding = method == ResizeMethod.CUBIC_PYTORCH and not antialias
    if not spatial_dims:
        return x
    ndim = len(shape)
    operands: list[Any] = [x, list(range(ndim))]
    out_indices = list(range(ndim))
    for i, d in enumerate(spatial_dims):
        w = _weight_matrix(
            x.shape[d], shape[d], scale[i], translation[i], kernel, antialias, edge_padding, radius
        )
        operands += [w.astype(x.dtype), [d, ndim + i]]
        out_indices[d] = ndim + i
    return einsum(*operands, out_indices, precision=precision)


def _check_shape(name: str, image: Any, shape: Sequence[int]) -> tuple[int, ...]:
    shape = tuple(int(d) for d in shape)
    if len(shape) != image.ndim:
        raise ValueError(
            f"{name}: shape must have length equal to the number of dimensions of x; "
            f"{shape} vs {image.shape}"
        )
    return shape


def _method(method: str | ResizeMethod) -> ResizeMethod:
    return ResizeMethod.from_string(method) if isinstance(method, str) else ResizeMethod(method)


def scale_and_translate(
    image: Any,
    shape: Sequence[int],
    spatial_dims: Sequence[int],
    scale: Any,
    translation: Any,
    method: str | ResizeMethod,
    antialias: bool = True,
    precision: Any = lax.Precision.HIGHEST,
) -> Any:
    """Resamples `image` into `shape` under the map `y = x * scale + translation` per dimension.

    Pixels are half-centred (pixel i spans [i, i + 1)); output pixels whose sample falls outside
    the input are 0. `torch.nn.functional.interpolate(align_corners=True)` is
    `scale = (n - 1) / (m - 1)`, `translation = 0.5 * (1 - scale)`.

    Args:
      image: an array.
      shape: the output shape, one entry per dimension of `image`.
      spatial_dims: the K dimensions that are resampled.
      scale: K scales (arrays are fine: the result is differentiable in them).
      translation: K translations.
      method: a `ResizeMethod` or its name, any but nearest.
      antialias: low-pass filter when downsampling (no effect when upsampling).
      precision: the precision of the contraction.

    Returns:
      The resampled image, of a floating dtype.
    """
    image = asarray(image)
    shape = _check_shape("scale_and_translate", image, shape)
    method = _method(method)
    if method == ResizeMethod.NEAREST:
        raise ValueError(
            "Nearest neighbor resampling is not currently supported for scale_and_translate."
        )
    (image,) = promote_dtypes_inexact(image)
    scale, translation = promote_dtypes_inexact(asarray(scale), asarray(translation))
    dims = tuple(
        axis_arg(d, image.ndim, "lax.scale_and_translate", array=RANK) for d in spatial_dims
    )
    scales = [scale[i] for i in range(len(dims))]
    translations = [translation[i] for i in range(len(dims))]
    return _scale_and_translate(
        image, shape, dims, scales, translations, method, antialias, precision
    )


def _resize_nearest(x: Any, shape: tuple[int, ...]) -> Any:
    for d, (m, n) in enumerate(zip(x.shape, shape, strict=True)):
        if m == n:
            continue
        # The input pixel under the centre of each output pixel (computed in float32, as JAX).
        centres = (np.arange(n, dtype=np.float32) + np.float32(0.5)) * np.float32(m / max(n, 1))
        offsets = np.floor(centres).astype(np.int32)
        x = take(x, asarray(offsets), axis=d)
    return x


def _resize(image, shape, method, antialias, precision):
    if method == ResizeMethod.NEAREST:
        return _resize_nearest(image, shape)
    (image,) = promote_dtypes_inexact(image)
    # Kernels interpolate: a dimension that keeps its size keeps its values.
    dims = tuple(d for d in range(len(shape)) if image.shape[d] != shape[d])
    scales = [1.0 if shape[d] == 0 else shape[d] / image.shape[d] for d in dims]
    return _scale_and_translate(
        image, shape, dims, scales, [0.0] * len(dims), method, antialias, precision
    )


_resize_jit = jit(_resize, static_argnums=(1, 2, 3, 4))


def resize(
    image: Any,
    shape: Sequence[int],
    method: str | ResizeMethod,
    antialias: bool = True,
    precision: Any = lax.Precision.HIGHEST,
) -> Any:
    """Resizes `image` to `shape` (every dimension may change: batch and channel dimensions
    simply keep their size).

    Args:
      image: an array.
      shape: the output shape, one entry per dimension of `image`.
      method: a `ResizeMethod` or its name ("nearest", "linear"/"bilinear"/"trilinear",
        "cubic"/"bicubic", "cubic-pytorch", "lanczos3", "lanczos5", "area").
      antialias: low-pass filter when downsampling (ignored by nearest and when upsampling).
      precision: the precision of the contraction (ignored by nearest).

    Returns:
      The resized image: the input's dtype for nearest, a floating dtype otherwise.
    """
    image = asarray(image)
    shape = _check_shape("resize", image, shape)
    return _resize_jit(image, shape, _method(method), bool(antialias), precision)
