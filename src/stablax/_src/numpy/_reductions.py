"""Reductions with NumPy's signatures: sum, prod, max, min, any, all, mean, var, std, argmax,
argmin, ptp, count_nonzero (with `keepdims`, `initial` and `where` as JAX has them), and the
checks and bodies mean, var and std share with their NaN-ignoring forms."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from stablax._src import dtypes, lax
from stablax._src import ir as mlir
from stablax._src.jit import jit as _eager
from stablax._src.lax._reduce_bodies import identity_element
from stablax._src.numpy._asarray import asarray
from stablax._src.numpy._promotion import broadcast_shapes, broadcast_to_shape, check_arraylike
from stablax._src.numpy._reductions_common import (
    _STATIC,
    _accumulation_dtype,
    _axes,
    _check_out,
    _check_where,
    _count,
    _finish,
    _keepdims_shape,
    _mask,
    _masked,
    _not_nan,
    _replace_nan,
    _sum_dtype,
    _with_initial,
    single_axis,
    static_axis,
)
from stablax._src.numpy._ufuncs import _to_bool


def _sum_like(name: str, lax_reduce, combine, identity: int):
    def fn(
        a, axis=None, dtype=None, keepdims=False, initial=None, where=None, promote_integers=True
    ):
        a = asarray(a)
        axes = _axes(axis, a.aval.ndim, name)
        if dtype is not None:
            target = dtypes.canonicalize_dtype(dtypes.check_user_dtype(dtype, name))
        else:
            target = _sum_dtype(a.aval.dtype) if promote_integers else a.aval.dtype
            if target == np.bool_:  # int32 with x64 on too, as in JAX
                target = np.dtype(np.int32)
        compute = _accumulation_dtype(target)
        a = lax.convert_element_type(a, compute) if a.aval.dtype != compute else a
        reduce, join = (lax_reduce, combine) if compute != np.bool_ else _BOOLEAN[name]
        out = reduce(_masked(a, where, identity, name), axes)
        out = _with_initial(out, initial, join, name)
        out = lax.convert_element_type(out, target) if compute != target else out
        return _finish(out, a.aval.shape, axes, keepdims)

    fn.__name__ = name
    return _eager(fn, static_argnames=_STATIC)


# A sum or product in bool (dtype=bool) is a logical or/and, as NumPy and JAX.
_BOOLEAN = {
    "sum": (lax.reduce_or, lax.bitwise_or),
    "prod": (lax.reduce_and, lax.bitwise_and),
}
_sum = _sum_like("sum", lax.reduce_sum, lax.add, 0)
_prod = _sum_like("prod", lax.reduce_prod, lax.mul, 1)


def sum(  # noqa: A001
    a: Any,
    axis: Any = None,
    dtype: Any = None,
    out: Any = None,
    keepdims: bool = False,
    initial: Any = None,
    where: Any = None,
    promote_integers: bool = True,
) -> Any:
    """Sum over `axis` (all axes by default); small integers and bools widen (NumPy's `sum`)."""
    _check_out(out, "sum", axis)
    return _sum(a, static_axis(axis), dtype, keepdims, initial, where, promote_integers)


def prod(
    a: Any,
    axis: Any = None,
    dtype: Any = None,
    out: Any = None,
    keepdims: bool = False,
    initial: Any = None,
    where: Any = None,
    promote_integers: bool = True,
) -> Any:
    """Product over `axis` (all axes by default), NumPy's `prod`."""
    _check_out(out, "prod", axis)
    return _prod(a, static_axis(axis), dtype, keepdims, initial, where, promote_integers)


def _extremum(name: str, lax_reduce, combine):
    def fn(a, axis=None, keepdims=False, initial=None, where=None):
        a = asarray(a)
        axes = _axes(axis, a.aval.ndim, name)
        if where is not None and initial is None:
            raise ValueError(
                f"jnp.{name}: reduction operation {name} does not have an identity, so to use "
                f"a where mask one has to specify 'initial'{mlir.where_suffix()}"
            )
        if initial is None and builtins.any(a.aval.shape[i] == 0 for i in axes):
            raise ValueError(
                f"jnp.{name}: zero-size array to reduction operation {name} which has no "
                f"identity{mlir.where_suffix()}"
            )
        # Masked-out elements take the reduction's identity (complex: 0, as JAX).
        identity = identity_element(name, a.aval.dtype) if a.aval.dtype.kind != "c" else 0
        out = lax_reduce(_masked(a, where, identity, name), axes)
        out = _with_initial(out, initial, combine, name)
        return _finish(out, a.aval.shape, axes, keepdims)

    fn.__name__ = name
    return _eager(fn, static_argnames=_STATIC)


_max = _extremum("max", lax.reduce_max, lax.max)
_min = _extremum("min", lax.reduce_min, lax.min)


def max(  # noqa: A001
    a: Any,
    axis: Any = None,
    out: Any = None,
    keepdims: bool = False,
    initial: Any = None,
    where: Any = None,
) -> Any:
    """Largest element over `axis`; NaN propagates (NumPy's `max`)."""
    _check_out(out, "max", axis)
    return _max(a, static_axis(axis), keepdims, initial, where)


def min(  # noqa: A001
    a: Any,
    axis: Any = None,
    out: Any = None,
    keepdims: bool = False,
    initial: Any = None,
    where: Any = None,
) -> Any:
    """Smallest element over `axis`; NaN propagates (NumPy's `min`)."""
    _check_out(out, "min", axis)
    return _min(a, static_axis(axis), keepdims, initial, where)


amax, amin = max, min


def _boolean(name: str, lax_reduce, identity: bool):
    def fn(a, axis=None, keepdims=False, where=None):
        a = _to_bool(asarray(a))
        axes = _axes(axis, a.aval.ndim, name)
        out = lax_reduce(_masked(a, where, identity, name), axes)
        return _finish(out, a.aval.shape, axes, keepdims)

    fn.__name__ = name
    return _eager(fn, static_argnames=_STATIC)


_any = _boolean("any", lax.reduce_or, False)
_all = _boolean("all", lax.reduce_and, True)


def any(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False, *, where: Any = None):  # noqa: A001
    """Whether any element over `axis` is truthy."""
    _check_out(out, "any", axis)
    return _any(a, static_axis(axis), keepdims, where)


def all(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False, *, where: Any = None):  # noqa: A001
    """Whether every element over `axis` is truthy."""
    _check_out(out, "all", axis)
    return _all(a, static_axis(axis), keepdims, where)


def _inexact_dtype(dt: np.dtype) -> np.dtype:
    return dtypes.to_inexact_dtype(dt)


def _sum_and_count(a: Any, axes: tuple[int, ...], where: Any, compute: np.dtype, name: str):
    """(sum, count) over `axes` of the elements `where` selects, both of dtype `compute`."""
    a = lax.convert_element_type(a, compute)
    total = lax.reduce_sum(_masked(a, where, 0, name), axes)
    if where is None:
        return total, lax.full_like(total, _count(a.aval.shape, axes))
    selected = lax.convert_element_type(_mask(where, a.aval.shape, name), compute)
    return total, lax.reduce_sum(selected, axes)


def _mean_impl(a, axis=None, dtype=None, keepdims=False, where=None):
    a = asarray(a)
    target = (  # the dtype before the axis, as JAX
        _inexact_dtype(a.aval.dtype)
        if dtype is None
        else dtypes.canonicalize_dtype(dtypes.check_user_dtype(dtype, "mean"))
    )
    axes = _axes(axis, a.aval.ndim, "mean")
    if target == np.bool_:  # JAX's class (its lax.div rejects bool), empty or not
        raise TypeError(f"jnp.mean: dtype must be numeric, got bool{mlir.where_suffix()}")
    if (
        where is None
        and _count(a.aval.shape, axes) == 0
        and not dtypes.issubdtype(target, np.inexact)
    ):
        raise ValueError(
            f"jnp.mean: the mean of an empty slice of {a.aval.str_short()} over axes {axes} has "
            f"no value in dtype {np.dtype(target).name}{mlir.where_suffix()}"
        )
    total, count = _sum_and_count(a, axes, where, _accumulation_dtype(target), "mean")
    out = lax.convert_element_type(lax.div(total, count), target)
    return _finish(out, a.aval.shape, axes, keepdims)


def _nanmean_impl(a, axis=None, dtype=None, keepdims=False, where=None):
    return _mean_impl(_replace_nan(a, 0), axis, dtype, keepdims, _not_nan(a, where))


_MEANS = {
    "mean": _eager(_mean_impl, static_argnames=_STATIC),
    "nanmean": _eager(_nanmean_impl, static_argnames=_STATIC),
}


def mean(
    a: Any,
    axis: Any = None,
    dtype: Any = None,
    out: Any = None,
    keepdims: bool = False,
    *,
    where: Any = None,
) -> Any:
    """Arithmetic mean over `axis`; integers average as floats (NumPy's `mean`)."""
    return mean_of("mean", a, axis, dtype, out, keepdims, where)


def mean_of(name: str, a: Any, axis: Any, dtype: Any, out: Any, keepdims: bool, where: Any) -> Any:
    """jnp.`name` (mean or nanmean) once its signature is read: the checks, then the body."""
    _check_moment_args(name, a, axis, out, where)
    return _MEANS[name](a, static_axis(axis), dtype, keepdims, where)


def _check_moment_args(name: str, a: Any, axis: Any, out: Any, where: Any) -> bool:
    """where's dtype, then `out`, in JAX's order (the plain forms refuse a traced axis first);
    whether the reduction `name` ignores NaNs."""
    ignore_nan = name.startswith("nan")
    _check_where(where, name, a)
    _check_out(out, name, None if ignore_nan else axis)
    return ignore_nan


def _check_mean_shape(shape: tuple[int, ...], target: tuple[int, ...]) -> None:
    """var's `mean=` must broadcast against the input: JAX's class, its lax.sub's TypeError."""
    if not _broadcasts_to(shape, target):
        raise TypeError(
            f"jnp.var: mean of shape {tuple(shape)} does not broadcast against the input of "
            f"shape {tuple(target)}{mlir.where_suffix()}"
        )


def _broadcasts_to(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    return len(shape) <= len(target) and builtins.all(
        d in (1, t) for d, t in zip(shape[::-1], target[::-1], strict=False)
    )


def _var_impl(
    a,
    axis=None,
    dtype=None,
    ddof=0,
    keepdims=False,
    where=None,
    mean=None,
    *,
    nanvar=False,
):
    """var's body; `nanvar` takes JAX's nanvar's rule for an integer `dtype=`."""
    a = asarray(a)
    if (
        dtype is not None
        and a.aval.dtype.kind == "c"
        and not dtypes.issubdtype(dtype, np.complexfloating)
    ):
        raise ValueError(  # JAX's check: NumPy's semantics are unclear (jax-ml/jax#2283)
            f"jnp.var: a real dtype ({np.dtype(dtype).name}) for the variance of complex values "
            f"is not supported{mlir.where_suffix()}"
        )
    target = None
    if dtype is not None:  # the dtype before the axis, as JAX
        target = dtypes.canonicalize_dtype(dtypes.check_user_dtype(dtype, "var"))
    if mean is not None and np.ndim(mean) >= a.aval.ndim:
        # JAX subtracts a given mean before it reads the axis
        _check_mean_shape(np.shape(mean), a.aval.shape)
    axes = _axes(axis, a.aval.ndim, "var")
    if target is not None and not dtypes.issubdtype(target, np.inexact):
        return _integer_var(a, axes, target, ddof, keepdims, where, mean, float_divide=nanvar)
    inexact = _inexact_dtype(a.aval.dtype)
    compute = _accumulation_dtype(inexact)
    a = lax.convert_element_type(a, compute)
    squares, count = _squared_deviations(a, axes, compute, where, mean)
    total = lax.reduce_sum(_masked(squares, where, 0, "var"), axes)
    count = lax.real(count) if count.aval.dtype.kind == "c" else count
    total, count = (_kept(v, a.aval.shape, axes, keepdims) for v in (total, count))
    total, normalizer = _minus_ddof(total, count, ddof)
    # As JAX: N - ddof <= 0 gives NaN (NumPy's division by max(N - ddof, 0) gives inf).
    positive = lax.gt(normalizer, lax.full_like(normalizer, 0))
    out = lax.select(positive, lax.div(total, normalizer), lax.full_like(total, np.nan))
    if target is None:
        target = np.dtype(inexact.type(0).real.dtype) if inexact.kind == "c" else inexact
    return _finish(lax.convert_element_type(out, target), out.aval.shape, (), False)


def _kept(x: Any, shape: tuple[int, ...], axes: tuple[int, ...], keepdims: bool) -> Any:
    return lax.reshape(x, _keepdims_shape(shape, axes)) if keepdims else x


def _minus_ddof(total: Any, count: Any, ddof: Any) -> tuple[Any, Any]:
    """(total, count - ddof), broadcast together. ddof is an operand, traced under jit as in
    JAX; an array of them is 0-d or of the result's rank (JAX's lax rule), else TypeError."""
    ddof = lax.convert_element_type(asarray(ddof), count.aval.dtype)
    result, given = count.aval.shape, ddof.aval.shape
    if result and given and len(result) != len(given):
        raise TypeError(
            f"jnp.var: ddof of shape {given} has another rank than the result's shape {result}"
            f"{mlir.where_suffix()}"
        )
    shape = broadcast_shapes("jnp.var: ddof", result, given)
    total, count, ddof = (broadcast_to_shape(v, shape) for v in (total, count, ddof))
    return total, lax.sub(count, ddof)


def _integer_var(a, axes, dtype, ddof, keepdims, where, mean, *, float_divide=False):
    """JAX's variance for an integer `dtype=`, computed in that type (the mean truncated).
    var divides in that type by N - ddof and marks N - ddof <= 0 with NaN, which makes the
    result a weak float of the default width; nanvar (`float_divide`) divides in floating
    point by N - ddof (N counted in the default integer) and casts the quotient back."""
    name = "nanvar" if float_divide else "var"
    if dtype == np.bool_:  # JAX's class (its lax.div rejects bool), after where's checks
        if where is not None:
            _mask(where, a.aval.shape, name)
        raise TypeError(f"jnp.{name}: dtype must be numeric, got bool{mlir.where_suffix()}")
    a = lax.convert_element_type(a, dtype)
    squares, count = _squared_deviations(a, axes, dtype, where, mean)
    if float_divide:  # nanvar's sum widens small integers, as jnp.sum does
        squares = lax.convert_element_type(squares, _sum_dtype(dtype))
    total = lax.reduce_sum(_masked(squares, where, 0, name), axes)
    float_type = dtypes.default_float_dtype()
    dividend = total
    if float_divide:
        _, count = _sum_and_count(a, axes, where, dtypes.default_int_dtype(), name)
        count = lax.convert_element_type(count, float_type)
        dividend = lax.convert_element_type(total, float_type)
    dividend, count = (_kept(v, a.aval.shape, axes, keepdims) for v in (dividend, count))
    dividend, normalizer = _minus_ddof(dividend, count, ddof)
    positive = lax.gt(normalizer, lax.full_like(normalizer, 0))
    quotient = lax.div(dividend, lax.select(positive, normalizer, lax.full_like(normalizer, 1)))
    quotient = lax.convert_element_type(quotient, float_type, weak_type=True)
    out = lax.select(positive, quotient, lax.full_like(quotient, np.nan))
    if float_divide:
        out = lax.convert_element_type(out, dtype)
    return out  # var's is weak, unlike other reductions


def _squared_deviations(a, axes, compute, where, mean):
    """(|a - mean|**2, count) in dtype `compute`; `mean` defaults to the mean over `axes`
    (truncated in an integer `compute`)."""
    if mean is None:
        total, count = _sum_and_count(a, axes, where, compute, "var")
        if dtypes.issubdtype(compute, np.inexact):
            center = lax.div(total, count)  # 0/0 is NaN, as NumPy's mean of nothing
        else:  # an integer division by zero must not reach XLA
            nonempty = lax.gt(count, lax.full_like(count, 0))
            center = lax.div(total, lax.select(nonempty, count, lax.full_like(count, 1)))
    else:
        _, count = _sum_and_count(a, axes, where, compute, "var")
        center = lax.convert_element_type(asarray(mean), compute)
    if center.aval.ndim == a.aval.ndim - len(axes):
        center = lax.reshape(center, _keepdims_shape(a.aval.shape, axes))
    _check_mean_shape(center.aval.shape, a.aval.shape)
    center = broadcast_to_shape(center, a.aval.shape)
    centered = lax.sub(a, center)
    if compute.kind == "c":
        squares = lax.real(lax.mul(centered, lax.conj(centered)))
    else:
        squares = lax.mul(centered, centered)
    return squares, count


def _variance_jit(name: str):
    """jnp.`name`'s jitted body: var, or std (its root), ignoring NaNs in their nan forms."""
    ignore_nan, root = name.startswith("nan"), name.endswith("std")

    def fn(a, axis=None, dtype=None, ddof=0, keepdims=False, where=None, mean=None):
        # JAX's nanvar casts to an integer `dtype` first, where no element is NaN any more.
        if ignore_nan and (
            dtype is None or dtypes.issubdtype(dtypes.canonicalize_dtype(dtype), np.inexact)
        ):
            a, where = _replace_nan(a, 0), _not_nan(a, where)
        out = _var_impl(a, axis, dtype, ddof, keepdims, where, mean, nanvar=ignore_nan)
        return lax.sqrt(out) if root else out

    fn.__name__ = name
    return _eager(fn, static_argnames=_STATIC)


_VARIANCES = {name: _variance_jit(name) for name in ("var", "std", "nanvar", "nanstd")}


def _ddof_operand(ddof: Any, name: str) -> Any:
    """ddof as the variance's jit takes it: an operand (a number or an array, traced or not);
    None and other non-numbers raise TypeError (NumPy's class for None, JAX's for a list)."""
    if isinstance(ddof, (int, float, np.number, np.ndarray)) or hasattr(ddof, "aval"):
        return ddof
    raise TypeError(f"jnp.{name}: ddof must be a number, got {ddof!r}{mlir.where_suffix()}")


def _ddof_or_correction(ddof: Any, correction: Any, name: str) -> Any:
    """JAX's check, made before any other: `correction` is the Array API's name for ddof."""
    if correction is None:
        return ddof
    if not isinstance(ddof, (int, np.integer)) or ddof != 0:
        raise ValueError(
            f"jnp.{name}: ddof and correction cannot both be given{mlir.where_suffix()}"
        )
    return correction


def var(
    a: Any,
    axis: Any = None,
    dtype: Any = None,
    out: Any = None,
    ddof: int = 0,
    keepdims: bool = False,
    *,
    where: Any = None,
    mean: Any = None,
    correction: Any = None,
) -> Any:
    """Variance over `axis`, dividing by N - ddof (or N - correction)."""
    ddof = _ddof_or_correction(ddof, correction, "var")
    return variance("var", a, axis, dtype, out, ddof, keepdims, where, mean)


def std(
    a: Any,
    axis: Any = None,
    dtype: Any = None,
    out: Any = None,
    ddof: int = 0,
    keepdims: bool = False,
    *,
    where: Any = None,
    mean: Any = None,
    correction: Any = None,
) -> Any:
    """Standard deviation over `axis`: sqrt of `var`."""
    ddof = _ddof_or_correction(ddof, correction, "std")
    return variance("std", a, axis, dtype, out, ddof, keepdims, where, mean)


def variance(
    name: str,
    a: Any,
    axis: Any,
    dtype: Any,
    out: Any,
    ddof: Any,
    keepdims: bool,
    where: Any,
    mean: Any,
) -> Any:
    """jnp.`name` (var, std, nanvar or nanstd) once its signature is read: the checks (in
    JAX's order), then the jitted body."""
    ignore_nan = _check_moment_args(name, a, axis, out, where)
    ddof = _ddof_operand(ddof, name)
    if name.endswith("std") and dtype is not None:
        # JAX's checks and classes: std's ValueError, nanstd's TypeError (its sqrt of an integer
        # variance) after it checks the dtype.
        given = dtypes.check_user_dtype(dtype, name) if ignore_nan else dtype
        # nanstd's body (nanvar) refuses a real dtype for complex values first, a ValueError
        complex_first = ignore_nan and dtypes.dtype_of(a).kind == "c"
        if not dtypes.issubdtype(given, np.inexact) and not complex_first:
            error = TypeError if ignore_nan else ValueError
            raise error(
                f"jnp.{name}: dtype must be inexact, got {np.dtype(dtype).name}"
                f"{mlir.where_suffix()}"
            )
    return _VARIANCES[name](a, static_axis(axis), dtype, ddof, keepdims, where, mean)


def _arg_extremum(name: str, lax_fn):
    def fn(a, axis=None, keepdims=False):
        a = asarray(a)
        shape = a.aval.shape
        if axis is None:
            a = lax.reshape(a, (int(np.prod(shape, dtype=np.int64)),))
            axes = tuple(range(len(shape)))
            reduce_axis = 0
        else:
            reduce_axis = single_axis(axis, len(shape), name)
            axes = (reduce_axis,)
        if a.aval.shape[reduce_axis] == 0:
            raise ValueError(
                f"jnp.{name}: attempt to get {name} of an empty sequence{mlir.where_suffix()}"
            )
        if a.aval.dtype.kind == "c":  # after the empty axis, in JAX's order
            raise TypeError(f"jnp.{name} does not support complex inputs{mlir.where_suffix()}")
        out = lax_fn(a, reduce_axis, dtypes.default_int_dtype())
        return _finish(out, shape, axes, keepdims)

    fn.__name__ = name
    return _eager(fn, static_argnames=_STATIC)


_argmax = _arg_extremum("argmax", lax.argmax)
_argmin = _arg_extremum("argmin", lax.argmin)


def argmax(a: Any, axis: int | None = None, out: Any = None, keepdims: bool | None = None) -> Any:
    """Index of the largest element (the first NaN, if any) over `axis` or the flattened array."""
    _check_out(out, "argmax")
    return _argmax(a, static_axis(axis), bool(keepdims))


def argmin(a: Any, axis: int | None = None, out: Any = None, keepdims: bool | None = None) -> Any:
    """Index of the smallest element (the first NaN, if any) over `axis` or the flattened array."""
    _check_out(out, "argmin")
    return _argmin(a, static_axis(axis), bool(keepdims))


def ptp(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> Any:
    """Range (max - min) over `axis` (NumPy's `ptp`)."""
    check_arraylike("jnp.ptp", a)  # before `out`, as JAX
    _check_out(out, "ptp")
    return _ptp(a, static_axis(axis), keepdims)


def _ptp_impl(a, axis=None, keepdims=False):
    a = asarray(a)
    _axes(axis, a.aval.ndim, "ptp")  # the axis first, in JAX's order
    if a.aval.dtype == np.bool_:
        raise TypeError(f"jnp.ptp: boolean inputs are not supported{mlir.where_suffix()}")
    return lax.sub(_max(a, axis, keepdims), _min(a, axis, keepdims))


_ptp = _eager(_ptp_impl, static_argnames=_STATIC)


def _count_nonzero_impl(a, axis=None, keepdims=False):
    a = _to_bool(asarray(a))
    axes = _axes(axis, a.aval.ndim, "count_nonzero")
    out = lax.reduce_sum(lax.convert_element_type(a, dtypes.default_int_dtype()), axes)
    return _finish(out, a.aval.shape, axes, keepdims)


_count_nonzero = _eager(_count_nonzero_impl, static_argnames=_STATIC)


def count_nonzero(a: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Number of nonzero (truthy) elements over `axis`, as the default integer type."""
    return _count_nonzero(a, static_axis(axis), keepdims)
