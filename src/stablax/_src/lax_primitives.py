"""JAX's `lax.*_p` primitive objects: `p.name`, `p.multiple_results` and a working `p.bind`.

Libraries written for JAX reference primitives (`lax.add_p`, `lax.scan_p`, ...) to compare
with, and sometimes bind them directly with JAX's parameter names. Each object here maps its
`bind(*args, **params)` onto the stablax lax function it stands for. Parameters that JAX's
jaxprs carry as sub-programs (cond's `branches`, scan's `jaxpr`, ...) are Python callables or
the sub-jaxprs of a `make_jaxpr` view.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from stablax._src import api, core, dtypes
from stablax._src import lax as L  # noqa: N812
from stablax._src.avals import aval_of
from stablax._src.interpreters.interpret import jaxpr_as_fun
from stablax._src.jaxpr_view import ClosedJaxpr, Jaxpr
from stablax._src.primitive import Primitive
from stablax._src.transforms.ad_forward import jvp
from stablax._src.transforms.ad_reverse import vjp
from stablax._src.transforms.solves import custom_linear_solve

PRIMITIVES: dict[str, Primitive] = {}  # attribute name ("add_p") -> primitive


def _def(attr: str, name: str, impl: Callable[..., Any], multiple_results: bool = False) -> None:
    PRIMITIVES[attr] = Primitive(name, impl, multiple_results)


def _unsupported(what: str, value: Any) -> None:
    if value is not None:
        raise NotImplementedError(f"{what} is not supported by stablax (got {value!r})")


# --- elementwise -------------------------------------------------------------------------------

_UNARY = (
    "abs acos acosh asin asinh atan atanh bessel_i0e bessel_i1e clz cosh digamma erf erf_inv "
    "erfc floor ceil imag real is_finite lgamma neg population_count sign sinh square"
).split()
_UNARY_WITH_ACCURACY = "cbrt cos exp exp2 expm1 log log1p logistic rsqrt sin sqrt tan tanh".split()
_BINARY = (
    "add sub div rem pow max min atan2 nextafter polygamma zeta shift_left shift_right_logical "
    "shift_right_arithmetic eq ne ge gt le lt complex igamma igammac igamma_grad_a "
    "random_gamma_grad mulhi"
).split()

for _n in _UNARY + _BINARY:
    _def(f"{_n}_p", _n, (lambda f: lambda *xs: getattr(L, f)(*xs))(_n))


def _with_accuracy(fname: str) -> Callable:
    def impl(x, *, accuracy=None):
        return getattr(L, fname)(x, accuracy=accuracy)

    return impl


for _n in _UNARY_WITH_ACCURACY:
    _def(f"{_n}_p", _n, _with_accuracy(_n))

_def("and_p", "and", lambda x, y: L.bitwise_and(x, y))
_def("or_p", "or", lambda x, y: L.bitwise_or(x, y))
_def("xor_p", "xor", lambda x, y: L.bitwise_xor(x, y))
_def("not_p", "not", lambda x: L.bitwise_not(x))
_def(
    "mul_p",
    "mul",
    lambda x, y, *, out_dtype=None: (
        L.mul(x, y) if out_dtype is None else L.convert_element_type(L.mul(x, y), out_dtype)
    ),
)
_def("conj_p", "conj", lambda x, *, input_dtype=None: L.conj(x))
_def("integer_pow_p", "integer_pow", lambda x, *, y: L.integer_pow(x, y))
_def("round_p", "round", lambda x, *, rounding_method=0: L.round(x, int(rounding_method)))
_def("clamp_p", "clamp", lambda lo, x, hi: L.clamp(lo, x, hi))
_def("select_n_p", "select_n", lambda which, *cases: L.select_n(which, *cases))
_def(
    "regularized_incomplete_beta_p",
    "regularized_incomplete_beta",
    lambda a, b, x: L.betainc(a, b, x),
)


def _copy(x):
    # A new buffer for a concrete array (a program's outputs are fresh buffers); under a trace,
    # the identity, as JAX lowers it.
    if core.current_trace() is not None:
        return L.stage(x)
    return L.optimization_barrier(L.stage(x))


_def("copy_p", "copy", _copy)
_def("stop_gradient_p", "stop_gradient", lambda x: L.stop_gradient(x))
_def(
    "reduce_precision_p",
    "reduce_precision",
    lambda x, *, exponent_bits, mantissa_bits: L.reduce_precision(x, exponent_bits, mantissa_bits),
)


def _total_order_key(x: Any) -> Any:
    """Integers ordered like `x` in IEEE total order (-NaN < -inf < -0 < +0 < inf < NaN)."""
    aval = aval_of(x)
    if not dtypes.issubdtype(aval.dtype, np.floating):
        return x
    bits = L.bitcast_convert_type(x, np.dtype(f"int{aval.dtype.itemsize * 8}"))
    magnitude = L.full_like(bits, np.iinfo(bits.dtype).max)
    return L.select(L.lt(bits, L.full_like(bits, 0)), L.bitwise_xor(bits, magnitude), bits)


# Comparisons in total order (what sort uses): -0 < +0 and NaN == NaN.
_def("eq_to_p", "eq_to", lambda x, y: L.eq(_total_order_key(x), _total_order_key(y)))
_def("le_to_p", "le_to", lambda x, y: L.le(_total_order_key(x), _total_order_key(y)))
_def("lt_to_p", "lt_to", lambda x, y: L.lt(_total_order_key(x), _total_order_key(y)))

# --- types and shapes --------------------------------------------------------------------------


def _convert(x, *, new_dtype, weak_type=False, sharding=None):
    _unsupported("lax.convert_element_type_p: sharding", sharding)
    return L.convert_element_type(x, new_dtype, weak_type)


def _broadcast_in_dim(x, *dyn, shape, broadcast_dimensions, sharding=None):
    _unsupported("lax.broadcast_in_dim_p: sharding", sharding)
    return L.broadcast_in_dim(x, shape, broadcast_dimensions)


def _reshape(x, *dyn, new_sizes, dimensions=None, sharding=None):
    _unsupported("lax.reshape_p: sharding", sharding)
    return L.reshape(x, new_sizes, dimensions)


def _iota(*dyn, dtype, shape, dimension, sharding=None):
    _unsupported("lax.iota_p: sharding", sharding)
    return L.broadcasted_iota(dtype, shape, dimension)


_def("convert_element_type_p", "convert_element_type", _convert)
_def(
    "bitcast_convert_type_p",
    "bitcast_convert_type",
    lambda x, *, new_dtype: L.bitcast_convert_type(x, new_dtype),
)
_def("broadcast_in_dim_p", "broadcast_in_dim", _broadcast_in_dim)
_def("reshape_p", "reshape", _reshape)
_def("iota_p", "iota", _iota)
_def("transpose_p", "transpose", lambda x, *, permutation: L.transpose(x, permutation))
_def("squeeze_p", "squeeze", lambda x, *, dimensions: L.squeeze(x, dimensions))
_def("rev_p", "rev", lambda x, *, dimensions: L.rev(x, dimensions))
_def("concatenate_p", "concatenate", lambda *xs, dimension: L.concatenate(xs, dimension))
_def("pad_p", "pad", lambda x, v, *, padding_config: L.pad(x, v, padding_config))
_def(
    "slice_p",
    "slice",
    lambda x, *, start_indices, limit_indices, strides=None: L.slice(
        x, start_indices, limit_indices, strides
    ),
)
_def(
    "dynamic_slice_p",
    "dynamic_slice",
    lambda x, *idx, slice_sizes: L.dynamic_slice(x, idx, slice_sizes),
)
_def(
    "dynamic_update_slice_p",
    "dynamic_update_slice",
    lambda x, update, *idx: L.dynamic_update_slice(x, update, idx),
)
_def("split_p", "split", lambda x, *, sizes, axis: L.split(x, sizes, axis), True)
_def("tile_p", "tile", lambda x, *, reps: L.tile(x, reps))
_def("stack_p", "stack", lambda *xs, axis: L.stack(xs, axis))
_def("unstack_p", "unstack", lambda x, *, axis: L.unstack(x, axis), True)
_def("stage_p", "stage", lambda x: L.stage(x))


def _gather(
    x,
    idx,
    *,
    dimension_numbers,
    slice_sizes,
    unique_indices=False,
    indices_are_sorted=False,
    mode=None,
    fill_value=None,
):
    return L.gather(
        x,
        idx,
        dimension_numbers,
        slice_sizes,
        unique_indices=unique_indices,
        indices_are_sorted=indices_are_sorted,
        mode=mode,
        fill_value=fill_value,
    )


def _scatter(fname: str) -> Callable:
    def impl(
        x,
        idx,
        updates,
        *,
        dimension_numbers,
        indices_are_sorted=False,
        unique_indices=False,
        mode=None,
        update_jaxpr=None,
        update_consts=(),
    ):
        return getattr(L, fname)(
            x,
            idx,
            updates,
            dimension_numbers,
            indices_are_sorted=indices_are_sorted,
            unique_indices=unique_indices,
            mode=mode,
        )

    return impl


_def("gather_p", "gather", _gather)
for _attr, _name, _f in (
    ("scatter_p", "scatter", "scatter"),
    ("scatter_add_p", "scatter-add", "scatter_add"),
    ("scatter_sub_p", "scatter-sub", "scatter_sub"),
    ("scatter_mul_p", "scatter-mul", "scatter_mul"),
    ("scatter_min_p", "scatter-min", "scatter_min"),
    ("scatter_max_p", "scatter-max", "scatter_max"),
):
    _def(_attr, _name, _scatter(_f))

# --- reductions, cumulative, sort --------------------------------------------------------------


def _reduction(fname: str) -> Callable:
    def impl(x, *, axes, out_sharding=None):
        _unsupported(f"lax.{fname}_p: out_sharding", out_sharding)
        return getattr(L, fname)(x, axes)

    return impl


for _n in "reduce_sum reduce_prod reduce_max reduce_min reduce_and reduce_or reduce_xor".split():
    _def(f"{_n}_p", _n, _reduction(_n))
for _n in ("argmax", "argmin"):
    _def(
        f"{_n}_p",
        _n,
        (lambda f: lambda x, *, axes, index_dtype: getattr(L, f)(x, axes[0], index_dtype))(_n),
    )
for _n in "cumsum cumprod cummax cummin cumlogsumexp".split():
    _def(
        f"{_n}_p",
        _n,
        (lambda f: lambda x, *, axis, reverse=False: getattr(L, f)(x, axis, reverse))(_n),
    )


def _reduce(*args, computation, dimensions, jaxpr=None):
    n = len(args) // 2
    if not callable(computation):
        raise TypeError("lax.reduce_p: computation must be a Python function")
    out = L.reduce(list(args[:n]), list(args[n:]), computation, dimensions)
    return out if isinstance(out, (tuple, list)) else [out]


_def("reduce_p", "reduce", _reduce, True)
_def(
    "sort_p",
    "sort",
    lambda *xs, dimension, is_stable, num_keys: L.sort(
        xs, dimension=dimension, is_stable=is_stable, num_keys=num_keys
    ),
    True,
)
_def("top_k_p", "top_k", lambda x, *, k, axis=-1: L.top_k(x, k, axis=axis), True)


def _approx_top_k(
    x,
    *,
    k,
    reduction_dimension=-1,
    recall_target=0.95,
    is_max_k=True,
    reduction_input_size_override=-1,
    aggregate_to_topk=True,
):
    fun = L.approx_max_k if is_max_k else L.approx_min_k
    return fun(
        x, k, reduction_dimension, recall_target, reduction_input_size_override, aggregate_to_topk
    )


_def("approx_top_k_p", "approx_top_k", _approx_top_k, True)


def _window(computation: Callable, init: Callable) -> Callable:
    def impl(x, *, window_dimensions, window_strides, padding, base_dilation, window_dilation):
        return L.reduce_window(
            x,
            init(x),
            computation,
            window_dimensions,
            window_strides,
            padding,
            base_dilation,
            window_dilation,
        )

    return impl


def _lowest(x):
    return L._reduce_monoids.identity_element("max", aval_of(x).dtype)


def _highest(x):
    return L._reduce_monoids.identity_element("min", aval_of(x).dtype)


_def("reduce_window_sum_p", "reduce_window_sum", _window(L.add, lambda x: 0))
_def("reduce_window_max_p", "reduce_window_max", _window(L.max, _lowest))
_def("reduce_window_min_p", "reduce_window_min", _window(L.min, _highest))


def _reduce_window(
    *args,
    jaxpr,
    consts=(),
    window_dimensions,
    window_strides,
    padding,
    base_dilation,
    window_dilation,
):
    if not callable(jaxpr):
        raise TypeError("lax.reduce_window_p: jaxpr must be a Python function here")
    n = len(args) // 2
    out = L.reduce_window(
        args[0] if n == 1 else list(args[:n]),
        args[n] if n == 1 else list(args[n:]),
        jaxpr,
        window_dimensions,
        window_strides,
        padding,
        base_dilation,
        window_dilation,
    )
    return out if isinstance(out, (tuple, list)) else [out]


_def("reduce_window_p", "reduce_window", _reduce_window, True)

# --- contractions, fft -------------------------------------------------------------------------


def _dot_general(
    lhs, rhs, *, dimension_numbers, precision=None, preferred_element_type=None, out_sharding=None
):
    _unsupported("lax.dot_general_p: out_sharding", out_sharding)
    return L.dot_general(lhs, rhs, dimension_numbers, precision, preferred_element_type)


def _conv(
    lhs,
    rhs,
    *,
    window_strides,
    padding,
    lhs_dilation,
    rhs_dilation,
    dimension_numbers,
    feature_group_count,
    batch_group_count,
    precision=None,
    preferred_element_type=None,
    out_sharding=None,
):
    _unsupported("lax.conv_general_dilated_p: out_sharding", out_sharding)
    return L.conv_general_dilated(
        lhs,
        rhs,
        window_strides,
        padding,
        lhs_dilation,
        rhs_dilation,
        dimension_numbers,
        feature_group_count,
        batch_group_count,
        precision,
        preferred_element_type,
    )


_def("dot_general_p", "dot_general", _dot_general)
_def("conv_general_dilated_p", "conv_general_dilated", _conv)
_def("fft_p", "fft", lambda x, *, fft_type, fft_lengths: L.fft(x, fft_type, fft_lengths))

# --- control flow ------------------------------------------------------------------------------


def _callable(prim: str, what: str, value: Any) -> Callable:
    if isinstance(value, (ClosedJaxpr, Jaxpr)):  # a sub-jaxpr of make_jaxpr's view
        return jaxpr_as_fun(value)
    if not callable(value):
        raise TypeError(
            f"lax.{prim}.bind: {what} must be a Python function in stablax (stablax programs "
            f"are StableHLO, not jaxprs); got {type(value).__name__}"
        )
    return value


def _cond(index, *operands, branches):
    branches = [_callable("cond_p", "each branch", b) for b in branches]
    out = L.switch(index, [lambda *xs, b=b: tuple(b(*xs)) for b in branches], *operands)
    return out


def _while(*args, cond_nconsts, cond_jaxpr, body_nconsts, body_jaxpr):
    cond = _callable("while_p", "cond_jaxpr", cond_jaxpr)
    body = _callable("while_p", "body_jaxpr", body_jaxpr)
    cond_consts, body_consts = args[:cond_nconsts], args[cond_nconsts : cond_nconsts + body_nconsts]
    init = tuple(args[cond_nconsts + body_nconsts :])

    def cond_fun(carry):
        out = cond(*cond_consts, *carry)
        return out[0] if isinstance(out, (tuple, list)) else out

    return L.while_loop(cond_fun, lambda carry: tuple(body(*body_consts, *carry)), init)


def _scan(*args, jaxpr, num_consts, num_carry, length, reverse=False, unroll=1, **_unused):
    body = _callable("scan_p", "jaxpr", jaxpr)
    consts, carry = args[:num_consts], tuple(args[num_consts : num_consts + num_carry])
    xs = tuple(args[num_consts + num_carry :])

    def step(c, x):
        out = tuple(body(*consts, *c, *x))
        return out[:num_carry], out[num_carry:]

    final, ys = L.scan(step, carry, xs, length=length, reverse=reverse, unroll=unroll)
    return [*final, *ys]


_def("cond_p", "cond", _cond, True)
_def("while_p", "while", _while, True)
_def("scan_p", "scan", _scan, True)

# --- the rest ----------------------------------------------------------------------------------


def _rng_bit_generator(key, *, shape, dtype, algorithm, out_sharding=None):
    return L.rng_bit_generator(key, shape, dtype, algorithm, out_sharding=out_sharding)


_def("rng_bit_generator_p", "rng_bit_generator", _rng_bit_generator, True)
_def("rng_uniform_p", "rng_uniform", lambda a, b, *, shape: L.rng_uniform(a, b, shape))
_def(
    "optimization_barrier_p",
    "optimization_barrier",
    lambda *xs: L.optimization_barrier(tuple(xs)),
    True,
)
_def("create_token_p", "create_token", lambda *xs: L.create_token())
_def("after_all_p", "after_all", lambda *tokens: L.after_all(*tokens))
_def(
    "dce_sink_p",
    "dce_sink",
    lambda x, *, prevent_mlir_dce=False: L.dce_sink(x, prevent_mlir_dce=prevent_mlir_dce) or (),
    True,
)


def _linear_solve(*args, const_lengths, jaxprs):
    # const_lengths and jaxprs have fields matvec, vecmat, solve, transpose_solve; the jaxprs
    # are Python functions of (*consts, *x_leaves) here.
    counts = [
        const_lengths.matvec,
        const_lengths.vecmat,
        const_lengths.solve,
        const_lengths.transpose_solve,
    ]
    consts, start = [], 0
    for n in counts:
        consts.append(args[start : start + n])
        start += n
    b = list(args[start:])
    matvec = _callable("linear_solve_p", "jaxprs.matvec", jaxprs.matvec)
    solve = _callable("linear_solve_p", "jaxprs.solve", jaxprs.solve)
    t_solve = jaxprs.transpose_solve
    return custom_linear_solve(
        lambda x: list(matvec(*consts[0], *x)),
        b,
        lambda mv, rhs: list(solve(*consts[2], *rhs)),
        None if t_solve is None else lambda vm, rhs: list(t_solve(*consts[3], *rhs)),
    )


_def("linear_solve_p", "custom_linear_solve", _linear_solve, True)

# --- derivatives of windowed max/min (JAX's internal primitives) --------------------------------

_SELECT = {
    "ge": (L.max, _lowest),
    "gt": (L.max, _lowest),
    "le": (L.min, _highest),
    "lt": (L.min, _highest),
}


def _window_chooser(select_prim: Any, dims, strides, padding, base=None, dilation=None):
    name = getattr(select_prim, "name", select_prim)
    if name not in _SELECT:
        raise NotImplementedError(f"select_prim {select_prim} is not supported")
    combine, init = _SELECT[name]
    return lambda x: L.reduce_window(x, init(x), combine, dims, strides, padding, base, dilation)


def _select_and_gather_add(
    tangents,
    operand,
    *,
    select_prim,
    window_dimensions,
    window_strides,
    padding,
    base_dilation,
    window_dilation,
):
    chooser = _window_chooser(
        select_prim, window_dimensions, window_strides, padding, base_dilation, window_dilation
    )
    return jvp(chooser, (operand,), (tangents,))[1]


def _select_and_scatter_add(
    source, operand, *, select_prim, window_dimensions, window_strides, padding
):
    chooser = _window_chooser(select_prim, window_dimensions, window_strides, padding)
    return vjp(chooser, operand)[1](source)[0]


def _select_and_scatter(
    operand,
    source,
    init_value,
    *,
    select_jaxpr,
    select_consts=(),
    scatter_jaxpr,
    scatter_consts=(),
    window_dimensions,
    window_strides,
    padding,
):
    raise NotImplementedError(
        "lax.select_and_scatter_p.bind needs jaxprs, which stablax does not have; "
        "select_and_scatter_add_p covers the max/min pooling gradients"
    )


_def("select_and_gather_add_p", "select_and_gather_add", _select_and_gather_add)
_def("select_and_scatter_add_p", "select_and_scatter_add", _select_and_scatter_add)
_def("select_and_scatter_p", "select_and_scatter", _select_and_scatter)
_def(
    "device_put_p",
    "device_put",
    lambda *xs, devices=None, srcs=None, copy_semantics=None: [
        api.device_put(x, d) for x, d in zip(xs, devices or [None] * len(xs), strict=True)
    ],
    True,
)

globals().update(PRIMITIVES)
__all__ = sorted(PRIMITIVES)
