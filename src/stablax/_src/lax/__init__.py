"""stablax.lax: one function per StableHLO/CHLO operation, plus conveniences."""

import importlib as _importlib

from stablax._src.lax._dot import Precision, dot, dot_general
from stablax._src.lax._elementwise import *  # noqa: F403
from stablax._src.lax._elementwise import complex, max, min, pow
from stablax._src.lax._elementwise_unary import *  # noqa: F403
from stablax._src.lax._elementwise_unary import abs, round
from stablax._src.lax._reduce_monoids import (
    reduce_and,
    reduce_max,
    reduce_min,
    reduce_or,
    reduce_prod,
    reduce_sum,
    reduce_xor,
)
from stablax._src.lax._shapes import (
    broadcast,
    broadcast_in_dim,
    broadcasted_iota,
    convert_element_type,
    full,
    full_like,
    iota,
    reshape,
    transpose,
)
from stablax._src.lax._bit_conversions import bitcast_convert_type, reduce_precision
from stablax._src.lax._reductions import argmax, argmin, reduce
from stablax._src.lax._sort import sort, sort_key_val, top_k
from stablax._src.lax._reshape_axes import broadcast_to_rank, collapse, expand_dims, squeeze
from stablax._src.lax._slice_pad import concatenate, index_in_dim, pad, rev, slice, slice_in_dim
from stablax._src.lax._gather import (
    GatherDimensionNumbers,
    GatherScatterMode,
    ScatterDimensionNumbers,
    gather,
    index_take,
)
from stablax._src.lax._scatter import (
    scatter,
    scatter_add,
    scatter_apply,
    scatter_max,
    scatter_min,
    scatter_mul,
    scatter_sub,
)
from stablax._src.lax._slicing import (
    dynamic_index_in_dim,
    dynamic_slice,
    dynamic_slice_in_dim,
    dynamic_update_index_in_dim,
    dynamic_update_slice,
    dynamic_update_slice_in_dim,
)
from stablax._src.lax._cumulative import cumlogsumexp, cummax, cummin, cumprod, cumsum
from stablax._src.lax import _elementwise_ops  # registers the elementwise ops
from stablax._src.interpreters.ad import stop_gradient
from stablax._src.lax._parallel import (
    all_gather,
    axis_index,
    pmax,
    pmean,
    pmin,
    psum,
    psum_scatter,
)
from stablax._src.lax import _linalg, _linalg_ad, _linalg_kernels  # linalg ops and their rules
from stablax._src.lax import _linalg_reductions, _linalg_reduction_kernels
from stablax._src.lax._control_flow_cond import cond, switch
from stablax._src.lax._control_flow_scan import scan
from stablax._src.lax._control_flow_while import fori_loop, while_loop
from stablax._src.lax._associative_scan import associative_scan
from stablax._src.lax._bessel import bessel_i0e
from stablax._src.lax._conveniences import (
    axis_size,
    batch_matmul,
    broadcast_like,
    broadcast_shapes,
    dtype,
    empty,
    platform_dependent,
    shape_as_value,
    split,
    stack,
    stage,
    tile,
    unstack,
)
from stablax._src.lax._barriers import (
    after_all,
    create_token,
    dce_sink,
    optimization_barrier,
)
from stablax._src.lax._dot_algorithms import (
    AccuracyMode,
    DotAlgorithm,
    DotAlgorithmPreset,
    DotDimensionNumbers,
    PrecisionLike,
    Tolerance,
)
from stablax._src.lax import _jaxpr_equations  # what each op is in a jaxpr view

# Op families a first program rarely uses load on first use of one of their names (import time):
# module under stablax._src.lax -> the names it gives stablax.lax. Each registers all of its ops'
# rules itself, so a rewrite of an op finds its rules whenever the op could have been emitted.
_LAZY_FAMILIES = {
    "_fft": "FftType fft",
    "_windowed": "padtype_to_pads reduce_window reduce_window_shape_tuple",
    "_conv": "conv conv_general_dilated conv_with_general_padding",
    "_conv_dimensions": (
        "ConvDimensionNumbers ConvGeneralDilatedDimensionNumbers conv_dimension_numbers "
        "conv_general_permutations conv_general_shape_tuple conv_shape_tuple"
    ),
    "_conv_variants": (
        "conv_general_dilated_local conv_general_dilated_patches conv_transpose "
        "conv_transpose_shape_tuple"
    ),
    "_threefry": "threefry2x32",
    "_special": "igamma igamma_grad_a igammac random_gamma_grad",
    "_rng": "RandomAlgorithm rng_bit_generator rng_uniform",
    "_approx_top_k": "approx_max_k approx_min_k",
    "_composite": "composite",
    "_betainc": "betainc",
    "_ragged_dot": "RaggedDotDimensionNumbers ragged_dot ragged_dot_general scaled_dot",
}
_LAZY_NAMES = {name: family for family, names in _LAZY_FAMILIES.items() for name in names.split()}


def __getattr__(name: str):
    family = _LAZY_NAMES.get(name)
    if family is None:
        raise AttributeError(f"module 'stablax._src.lax' has no attribute {name!r}")
    value = getattr(_importlib.import_module(f"stablax._src.lax.{family}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY_NAMES))
