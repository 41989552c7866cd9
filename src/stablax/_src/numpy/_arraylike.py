"""JAX's `check_arraylike` rule: most `jnp` functions refuse Python lists and tuples where they
take arrays (`jnp.sum([1, 2])` is a TypeError), so that a list is never silently converted on
every call. `checked` wraps the public functions that JAX checks this way."""

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
    indices_are_sorted total_repeat_length promote_integers initial
    """.split()
)

# Parameters of NON_ARRAY's names that some functions do check.
ALSO_CHECKED = {"full_like": frozenset({"fill_value"})}

# Functions whose first argument is a sequence of arrays: its elements are checked.
SEQUENCE_FIRST = frozenset(
    "concatenate concat stack vstack hstack dstack column_stack lexsort".split()
)

# The public functions JAX checks (jax._src.numpy.util.check_arraylike), by name.
CHECKED = """
all amax amin any append argmax argmin argsort argwhere atleast_1d atleast_2d atleast_3d
broadcast_arrays clip column_stack compress concat concatenate conj conjugate convolve copy
corrcoef correlate count_nonzero cov cross cumprod cumsum cumulative_prod cumulative_sum diag
diag_indices_from diagflat diagonal diff digitize dot dstack empty_like extract flatnonzero flip
fliplr flipud full_like histogram histogram2d histogram_bin_edges histogramdd hstack inner
intersect1d isin ix_ kron lexsort linspace matmul matrix_transpose matvec max mean median meshgrid
min nanargmax nanargmin nancumprod nancumsum nanmax nanmean nanmedian nanmin nanpercentile nanprod
nanquantile nanstd nansum nanvar nonzero ones_like outer percentile poly polyadd polyder polydiv
polyint polymul polysub polyval positive prod ptp quantile ravel repeat roots rot90 searchsorted
setdiff1d setxor1d sort sort_complex squeeze stack std sum trace transpose tril tril_indices_from
trim_zeros triu triu_indices_from union1d unique unique_all unique_counts unique_inverse
unique_values unstack vander var vdot vecdot vstack where zeros_like
""".split()


def _error(name: str, value: Any, position: int) -> TypeError:
    return TypeError(
        f"{name} requires ndarray or scalar arguments, got {type(value)} at position {position}."
    )


def checked(name: str, fun: Callable) -> Callable:
    """`fun`, raising JAX's TypeError when a list or tuple is passed for an array argument."""
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        return fun
    p = inspect.Parameter
    positional = [q for q in params if q.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    also = ALSO_CHECKED.get(name, frozenset())
    checked_positions = frozenset(
        i for i, q in enumerate(positional) if q.name not in NON_ARRAY or q.name in also
    )
    varargs_from = len(positional) if any(q.kind == p.VAR_POSITIONAL for q in params) else None
    checked_keywords = frozenset(
        q.name for q in params if q.name not in NON_ARRAY or q.name in also
    )
    sequence_first = name in SEQUENCE_FIRST

    @functools.wraps(fun)
    def call(*args: Any, **kwargs: Any) -> Any:
        for i, value in enumerate(args):
            if type(value) is list or type(value) is tuple:
                if i == 0 and sequence_first:
                    for j, element in enumerate(value):
                        if type(element) is list or type(element) is tuple:
                            raise _error(name, element, j)
                elif i in checked_positions or (varargs_from is not None and i >= varargs_from):
                    raise _error(name, value, i)
        if kwargs:
            for key, value in kwargs.items():
                if (type(value) is list or type(value) is tuple) and key in checked_keywords:
                    raise _error(name, value, len(args))
        return fun(*args, **kwargs)

    return call
