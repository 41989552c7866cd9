"""`x.at[idx]`: functional updates (`set`, `add`, `multiply`, `min`, ...) and filled retrieval.

Every index form `x[idx]` accepts works here. Out-of-bounds behaviour, as JAX documents it:
updates (`set`, `add`, ...) whose position is out of bounds are dropped (mode "drop", the
default; "clip" clamps the index instead, "promise_in_bounds" leaves it to XLA, which also
drops). `get` clamps by default like `x[idx]`; mode="fill" returns `fill_value` (NaN for inexact
dtypes, the most negative integer, the largest unsigned integer, True) at out-of-bounds positions.
Negative indices count from the end first unless `wrap_negative_indices=False`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from stablax._src import dtypes, lax
from stablax._src.core import Tracer
from stablax._src.numpy import _indexing
from stablax._src.numpy import _ufuncs_division as division
from stablax._src.numpy._asarray import asarray
from stablax._src.numpy._indexing_gather import apply_impl, gather_impl, scatter_impl


class _IndexUpdateHelper:
    """What `x.at` returns: index it to get an `_IndexUpdateRef`."""

    __slots__ = ("array",)

    def __init__(self, array: Any) -> None:
        self.array = array

    def __getitem__(self, index: Any) -> _IndexUpdateRef:
        return _IndexUpdateRef(self.array, index)

    def __repr__(self) -> str:
        return f"_IndexUpdateHelper({self.array!r})"


def _check_sharding(out_sharding: Any) -> None:
    if out_sharding is not None:
        raise NotImplementedError("x.at[idx]: out_sharding is not supported by stablax")


class _IndexUpdateRef:
    """`x.at[idx]`: the pure equivalents of `x[idx] = y`, `x[idx] += y`, ... and `x[idx]`."""

    __slots__ = ("array", "index")

    def __init__(self, array: Any, index: Any) -> None:
        self.array = array
        self.index = index

    def __repr__(self) -> str:
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    def get(
        self,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: str | lax.GatherScatterMode | None = None,
        fill_value: Any = None,
        out_sharding: Any = None,
        wrap_negative_indices: bool = True,
    ) -> Any:
        """`x[idx]`, with a choice of out-of-bounds `mode` ("clip" by default, or "fill").

        Lowers to `stablehlo.gather` (or slices for basic indices when not filling).
        """
        _check_sharding(out_sharding)
        x = self.array
        tokens, operands = _indexing.parse_index(self.index, x.aval.shape)
        if fill_value is not None:
            fill_value = np.asarray(fill_value).item()
        params = dict(
            mode=_mode_key(mode),
            fill_value=fill_value,
            indices_are_sorted=bool(indices_are_sorted),
            unique_indices=bool(unique_indices),
        )
        if _indexing.is_eager(x, operands) or not wrap_negative_indices:
            tokens, operands = _indexing.prewrap_static(
                tokens, operands, x.aval.shape, wrap_negative_indices
            )
        if _indexing.is_eager(x, operands):
            key = ("get", tokens, tuple(params.items()))
            return _indexing.run_eagerly(key, _Bound(gather_impl, tokens, params), x, *operands)
        return gather_impl(x, tokens, operands, **params)

    def _scatter(self, combine: str, values: Any, **kwargs: Any) -> Any:
        x = self.array
        values = _as_update(x, values)
        return self._run(scatter_impl, (values,), combine=combine, **kwargs)

    def _run(
        self,
        impl: Callable[..., Any],
        extra: tuple,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: Any = None,
        out_sharding: Any = None,
        wrap_negative_indices: bool = True,
        **static: Any,
    ) -> Any:
        _check_sharding(out_sharding)
        x = self.array
        if not hasattr(x, "aval"):
            x = asarray(x)
        shape = x.aval.shape
        tokens, operands = _indexing.parse_index(self.index, shape)
        # Basic indexing (integers, slices, None, Ellipsis) never repeats an index: JAX marks
        # such updates unique, which scatter-multiply's derivative needs.
        basic = not any(t[0] in _indexing.ADVANCED for t in tokens)
        params = dict(
            mode=_mode_key(mode),
            indices_are_sorted=bool(indices_are_sorted),
            unique_indices=bool(unique_indices) or basic,
            **static,
        )
        eager = _indexing.is_eager(x, operands) and not any(isinstance(e, Tracer) for e in extra)
        if eager or not wrap_negative_indices:
            tokens, operands = _indexing.prewrap_static(
                tokens, operands, shape, wrap_negative_indices
            )
        if eager:
            key = (impl.__name__, tokens, tuple(params.items()), len(extra))
            bound = _Bound(impl, tokens, params, len(extra))
            return _indexing.run_eagerly(key, bound, x, *extra, *operands)
        return impl(x, tokens, operands, *extra, **params)

    def set(self, values: Any, **kwargs: Any) -> Any:
        """Pure `x[idx] = values` (`stablehlo.scatter` replacing; for repeated indices, which
        update wins is unspecified)."""
        return self._scatter("set", values, **kwargs)

    def add(self, values: Any, **kwargs: Any) -> Any:
        """Pure `x[idx] += values`; repeated indices accumulate (`np.add.at`)."""
        return self._scatter("add", values, **kwargs)

    def subtract(self, values: Any, **kwargs: Any) -> Any:
        """Pure `x[idx] -= values`; repeated indices accumulate."""
        return self._scatter("sub", values, **kwargs)

    def multiply(self, values: Any, **kwargs: Any) -> Any:
        """Pure `x[idx] *= values`; repeated indices accumulate (`np.multiply.at`)."""
        return self._scatter("mul", values, **kwargs)

    mul = multiply

    def divide(self, values: Any, **kwargs: Any) -> Any:
        """Pure `x[idx] /= values` (true division: integer arrays become floating)."""
        x = _asarray(self.array)
        ones = lax.full(x.aval.shape, 1, x.aval.dtype)
        divisor = _IndexUpdateRef(ones, self.index).multiply(values, **kwargs)
        return division.true_divide(x, divisor)

    def power(self, values: Any, **kwargs: Any) -> Any:
        """Pure `x[idx] **= values`; repeated indices multiply their exponents."""
        x = _asarray(self.array)
        ones = lax.full(x.aval.shape, 1, x.aval.dtype)
        exponent = _IndexUpdateRef(ones, self.index).multiply(values, **kwargs)
        return division.power(x, exponent)

    def min(self, values: Any, **kwargs: Any) -> Any:
        """Pure `x[idx] = minimum(x[idx], values)`; repeated indices all take part."""
        return self._scatter("min", values, **kwargs)

    def max(self, values: Any, **kwargs: Any) -> Any:
        """Pure `x[idx] = maximum(x[idx], values)`; repeated indices all take part."""
        return self._scatter("max", values, **kwargs)

    def apply(self, func: Callable[[Any], Any], **kwargs: Any) -> Any:
        """`x` with the elementwise `func` applied at `x[idx]`.

        Unlike JAX (which follows `np.ufunc.at`), an element hit several times gets `func`
        applied once.
        """
        if "out_sharding" in kwargs:
            raise TypeError("apply() got an unexpected keyword argument 'out_sharding'")
        return self._run(apply_impl, (), func=func, **kwargs)


class _Bound:
    """The jitted body of an eager `.at` call: static structure bound, operands as arguments."""

    def __init__(
        self, impl: Callable, tokens: tuple, params: dict[str, Any], extra: int = 0
    ) -> None:
        self.impl, self.tokens, self.params, self.extra = impl, tokens, params, extra
        self.__name__ = impl.__name__

    def __call__(self, x: Any, *args: Any) -> Any:
        extra, operands = args[: self.extra], list(args[self.extra :])
        return self.impl(x, self.tokens, operands, *extra, **self.params)


def _mode_key(mode: Any) -> Any:
    """The mode as a hashable cache key (validated here, with JAX's error)."""
    if mode is None:
        return None
    return lax.GatherScatterMode.from_any(mode)


def _asarray(x: Any) -> Any:
    if hasattr(x, "aval"):
        return x
    return asarray(x)


def _as_update(x: Any, values: Any) -> Any:
    """`values` as an array-like to be cast to `x`'s dtype; JAX warns (FutureWarning) when the
    cast is not safe."""
    x = _asarray(x)
    target = x.aval.dtype
    if isinstance(values, (list, tuple)):
        values = asarray(values)
    source = dtypes.result_type(values)
    if source != target and dtypes.result_type(values, target) != target:
        warnings.warn(
            "scatter inputs have incompatible types: cannot safely cast value from "
            f"dtype={np.dtype(source).name} to dtype={target.name} with "
            "jax_numpy_dtype_promotion=standard. In future JAX releases this will result in an "
            "error.",
            FutureWarning,
            stacklevel=4,
        )
    return values


def at_property(self: Any) -> _IndexUpdateHelper:
    """`x.at[idx].set(y)` and friends: functional updates (see `_IndexUpdateRef`)."""
    return _IndexUpdateHelper(self)
