"""JAX's `check_arraylike` rule: most `jnp` functions refuse Python lists and tuples where they
take arrays (`jnp.sum([1, 2])` is a TypeError), so that a list is never silently converted on
every call. `checked` wraps the public functions that JAX checks this way (292 of them, found by
calling each of JAX 0.10.2's with lists)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

# Parameters that take shapes, axes, flags or options rather than arrays: lists are fine there.
NON_ARRAY = frozenset(
    """axis axes shape newshape dtype out keepdims order kind method interpolation side mode ddof
    correction bias rowvar return_index return_inverse return_counts equal_nan assume_unique invert
    size range density num endpoint retstep indexing copy sparse k offset axis1 axis2 n device
    stable descending bins fill_value trim casting subok like unique_indices
    indices_are_sorted total_repeat_length promote_integers initial pad_width reps funclist
    indices_or_sections shift dimensions new_shape sections constant_values end_values
    stat_length precision axisa axisb axisc
    """.split()
)

# Parameters of NON_ARRAY's names that some functions do check.
ALSO_CHECKED = {
    "full_like": frozenset({"fill_value"}),
    "full": frozenset({"fill_value"}),
    "histogram": frozenset({"bins"}),
    "histogram_bin_edges": frozenset({"bins"}),
}

# Array parameters a function checks itself, later in JAX's order of checks than the others.
CHECKED_LATER = {
    "cov": frozenset({"fweights", "aweights"}),
    "delete": frozenset({"obj"}),
    "diff": frozenset({"prepend", "append"}),
}

# Array parameters JAX converts with asarray, lists included (NumPy's nan_to_num(x, nan=[5.0])).
UNCHECKED = {"nan_to_num": frozenset({"nan", "posinf", "neginf"})}

# Parameters taking a sequence of arrays: the sequence may be a list, its elements may not.
SEQUENCE_PARAMS = frozenset("arrays tup keys condlist choicelist choices".split())

# The public functions JAX checks (jax._src.numpy.util.check_arraylike), by name: those that
# raise it for a list argument in JAX 0.10.2 (einsum aside: its sublist form takes lists).
CHECKED = """
abs absolute acos acosh add all allclose amax amin angle any append arange arccos arccosh arcsin
arcsinh arctan arctan2 arctanh argmax argmin argpartition argsort argwhere around array_repr
array_split asin asinh astype atan atan2 atanh atleast_1d atleast_2d atleast_3d average bartlett
bincount bitwise_and bitwise_count bitwise_invert bitwise_left_shift bitwise_not bitwise_or
bitwise_right_shift bitwise_xor blackman broadcast_arrays broadcast_to cbrt ceil choose clip
column_stack compress concat concatenate conj conjugate convolve copy copysign corrcoef correlate
cos cosh count_nonzero cov cross cumprod cumsum cumulative_prod cumulative_sum deg2rad degrees
delete diag diag_indices diag_indices_from diagflat diagonal diff digitize divide divmod dot dsplit
dstack ediff1d empty_like equal exp exp2 expand_dims expm1 extract fabs flatnonzero flip fliplr
flipud float_power floor floor_divide fmax fmin fmod frexp frombuffer full full_like gcd greater
greater_equal hamming hanning heaviside histogram histogram2d histogram_bin_edges histogramdd
hsplit hstack hypot i0 imag indices inner insert interp intersect1d invert isclose iscomplex
isfinite isin isinf isnan isneginf isposinf isreal ix_ kaiser kron lcm ldexp left_shift less
less_equal lexsort linspace load log log10 log1p log2 logaddexp logaddexp2 logical_and logical_not
logical_or logical_xor matmul matrix_transpose matvec max maximum mean median meshgrid min minimum
mod modf multiply nan_to_num nanargmax nanargmin nancumprod nancumsum nanmax nanmean nanmedian
nanmin nanpercentile nanprod nanquantile nanstd nansum nanvar negative nextafter nonzero not_equal
ones_like outer packbits pad partition percentile permute_dims piecewise poly polyadd polyder
polydiv polyint polymul polysub polyval positive pow power prod ptp quantile rad2deg radians ravel
real reciprocal remainder repeat reshape resize right_shift rint roll rollaxis roots rot90 round
save savez searchsorted select setdiff1d setxor1d sign signbit sin sinc sinh sort sort_complex
spacing split sqrt square squeeze stack std subtract sum take take_along_axis tan tanh tensordot
tile trace transpose trapezoid tril tril_indices tril_indices_from trim_zeros triu triu_indices
triu_indices_from true_divide trunc union1d unique unique_all unique_counts unique_inverse
unique_values unpackbits unravel_index unstack unwrap vander var vdot vecdot vecmat vsplit vstack
where zeros_like
""".split()


def _error(name: str, value: Any, position: int) -> TypeError:
    return TypeError(
        f"{name} requires ndarray or scalar arguments, got {type(value)} at position {position}."
    )


def checked(name: str, fun: Callable) -> Callable:
    """`fun`, raising JAX's TypeError when a list or tuple is passed for an array argument.

    A list `axis` becomes a tuple on the way (JAX accepts both; axes are static arguments). The
    signature is read on the first call that passes a list, a tuple or a keyword: reading 293 of
    them when `stablax.numpy` loads cost a tenth of its import time.
    """
    plan: list = []  # [positional parameter names, where *args starts or None], once read

    def read_plan() -> list:
        try:
            params = list(inspect.signature(fun).parameters.values())
        except (TypeError, ValueError):
            return [None, None]
        p = inspect.Parameter
        names = [q.name for q in params if q.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        varargs_from = len(names) if any(q.kind == p.VAR_POSITIONAL for q in params) else None
        return [names, varargs_from]

    also = ALSO_CHECKED.get(name, frozenset())

    later = CHECKED_LATER.get(name, frozenset()) | UNCHECKED.get(name, frozenset())

    def is_array_param(param: str) -> bool:
        return (param not in NON_ARRAY or param in also) and param not in later

    def check(value: Any, param: str | None, position: int) -> Any:
        if type(value) is not list and type(value) is not tuple:
            return value
        if param in SEQUENCE_PARAMS:
            for j, element in enumerate(value):
                if type(element) is list or type(element) is tuple:
                    raise _error(name, element, j)
        elif param == "axis":
            return tuple(value)
        elif param is None or is_array_param(param):
            raise _error(name, value, position)
        return value

    @functools.wraps(fun)
    def call(*args: Any, **kwargs: Any) -> Any:
        if not kwargs:  # the common case: arrays and scalars, nothing to check
            for value in args:
                if type(value) is list or type(value) is tuple:
                    break
            else:
                return fun(*args)
        if not plan:
            plan.extend(read_plan())
        names, varargs_from = plan
        if names is None:  # no signature to read: nothing is checked
            return fun(*args, **kwargs)
        checked_args = [
            check(v, names[i] if i < len(names) else None if varargs_from is not None else "", i)
            for i, v in enumerate(args)
        ]
        for key in kwargs:
            kwargs[key] = check(kwargs[key], key, len(args))
        return fun(*checked_args, **kwargs)

    return call
