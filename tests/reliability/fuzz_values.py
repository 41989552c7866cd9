"""Argument descriptions of the fuzz: JSON-serialisable specs, turned into values for one library.

A spec describes one argument so that a call can be shipped to a worker process, replayed in
stablax and in JAX on identical inputs, and printed as a reproducer:

    {"array": [2, 3], "dtype": "int8", "seed": 5, "fill": "normal", "as": "array"}
    {"py": 3}, {"tuple": [spec, ...]}, {"list": [spec, ...]}, {"complex": [1.0, -2.0]},
    {"bytes": "ab"}, {"dtype": "float32", "as": "scalar_type"}, {"fn": "sin"}, {"object": true}

`materialize(spec, lib)` builds the value with `lib` (stablax or jax, both exposing `.numpy`
and `.lax`); `source(spec)` is the Python expression that builds it, for reproducers.
"""

from __future__ import annotations

import math
from typing import Any

import ml_dtypes
import numpy as np

DTYPES = (
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "complex64",
    "complex128",
)
# Narrow types JAX supports as array dtypes with few operations; drawn rarely.
RARE_DTYPES = ("int4", "uint4", "float8_e4m3fn", "float8_e5m2")

_ML_DTYPES = {
    "bfloat16": ml_dtypes.bfloat16,
    "int4": ml_dtypes.int4,
    "uint4": ml_dtypes.uint4,
    "float8_e4m3fn": ml_dtypes.float8_e4m3fn,
    "float8_e5m2": ml_dtypes.float8_e5m2,
}


def np_dtype(name: str) -> np.dtype:
    return np.dtype(_ML_DTYPES.get(name, name))


def host_data(shape: list[int], dtype: str, seed: int, fill: str) -> np.ndarray:
    """The NumPy array an array spec stands for (deterministic in its fields)."""
    rng = np.random.default_rng(seed)
    shape = tuple(shape)
    dt = np_dtype(dtype)
    if fill == "zeros":
        return np.zeros(shape, dt)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype in ("int4", "uint4") or dt.kind in "iu":
        low, high = (0, 8) if dtype.startswith("u") else (-5, 6)
        if fill == "wide" and dtype not in ("int4", "uint4"):
            info = np.iinfo(dt)
            values = rng.integers(info.min, info.max, shape, endpoint=True, dtype=dt)
            return values
        return rng.integers(low, high, shape).astype(dt)
    values = rng.standard_normal(shape) * 2
    if dt.kind == "c":
        values = values + 2j * rng.standard_normal(shape)
    if fill == "special" and values.size:
        specials = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0, -1.0, 0.5])
        picks = rng.random(shape) < 0.4
        values = np.where(picks, rng.choice(specials, shape), values)
    if fill == "positive":
        values = np.abs(values) + 0.25
    if fill == "unit":
        values = np.tanh(values) * 0.9
    return values.astype(dt)


def materialize(spec: Any, lib: Any) -> Any:
    """The value `spec` describes, arrays built with `lib.numpy` (stablax or jax)."""
    if not isinstance(spec, dict):
        raise TypeError(f"fuzz: bad spec {spec!r}")
    if "array" in spec:
        data = host_data(spec["array"], spec["dtype"], spec["seed"], spec.get("fill", "normal"))
        how = spec.get("as", "array")
        if how == "numpy":
            return data
        if how == "list":
            return data.tolist()
        if how == "numpy_scalar":
            return data.reshape(-1)[0] if data.size else data.dtype.type(0)
        return lib.numpy.asarray(data)
    if "py" in spec:
        return spec["py"]
    if "tuple" in spec:
        return tuple(materialize(s, lib) for s in spec["tuple"])
    if "list" in spec:
        return [materialize(s, lib) for s in spec["list"]]
    if "complex" in spec:
        return complex(*spec["complex"])
    if "bytes" in spec:
        return spec["bytes"].encode()
    if "dtype" in spec:
        how = spec.get("as", "scalar_type")
        if how == "string":
            return spec["dtype"]
        if how == "numpy":
            return np_dtype(spec["dtype"])
        return getattr(lib.numpy, spec["dtype"])
    if "fn" in spec:
        return CALLABLES[spec["fn"]](lib)
    if "enum" in spec:  # lax enums such as Precision.HIGHEST or RoundingMethod.TO_NEAREST_EVEN
        owner, member = spec["enum"]
        return getattr(getattr(lib.lax, owner), member)
    if "object" in spec:
        return _Opaque()
    raise TypeError(f"fuzz: bad spec {spec!r}")


class _Opaque:
    """An object no array function accepts."""

    def __repr__(self) -> str:
        return "object()"


# Callables handed to functions that take one (apply_along_axis, lax.scan, vectorize, ...).
CALLABLES = {
    "sin": lambda lib: lib.numpy.sin,
    "add": lambda lib: lib.lax.add,
    "sum": lambda lib: lib.numpy.sum,
    "identity": lambda lib: lambda *a: a[0] if a else 0.0,
    "double": lambda lib: lambda x, *rest: x * 2,
    "pair": lambda lib: lambda c, x=None: (c, x),
    "carry_sum": lambda lib: lambda c, x: (c + lib.numpy.sum(x), x),
    "false": lambda lib: lambda *a: False,
    "below3": lambda lib: lambda c: lib.numpy.all(c < 3),
    "plus1": lambda lib: lambda *a: a[-1] + 1,
    "none": lambda lib: lambda *a: None,
    "raises": lambda lib: _raises,
}
_CALLABLE_SOURCE = {
    "sin": "jnp.sin",
    "add": "lax.add",
    "sum": "jnp.sum",
    "identity": "lambda *a: a[0] if a else 0.0",
    "double": "lambda x, *rest: x * 2",
    "pair": "lambda c, x=None: (c, x)",
    "carry_sum": "lambda c, x: (c + jnp.sum(x), x)",
    "false": "lambda *a: False",
    "below3": "lambda c: jnp.all(c < 3)",
    "plus1": "lambda *a: a[-1] + 1",
    "none": "lambda *a: None",
    "raises": "lambda *a: 1 / 0",
}


def _raises(*args: Any) -> Any:
    return 1 / 0


def source(spec: Any) -> str:
    """A Python expression building the value of `spec` (numpy as np, stablax.numpy as jnp)."""
    if "array" in spec:
        data = host_data(spec["array"], spec["dtype"], spec["seed"], spec.get("fill", "normal"))
        how = spec.get("as", "array")
        if data.size <= 24:
            listed = _literal(data)
            dtype = (
                f"ml_dtypes.{spec['dtype']}" if spec["dtype"] in _ML_DTYPES else repr(spec["dtype"])
            )
            host = f"np.array({listed}, dtype={dtype})"
            if data.ndim != 1 or data.size == 0:
                host = f"{host}.reshape({tuple(data.shape)})"
        else:
            host = f"fuzz_values.host_data({list(spec['array'])}, {spec['dtype']!r}, " + (
                f"{spec['seed']}, {spec.get('fill', 'normal')!r})"
            )
        if how == "numpy":
            return host
        if how == "list":
            return f"{host}.tolist()"
        if how == "numpy_scalar":
            return f"{host}.reshape(-1)[0]"
        return f"jnp.asarray({host})"
    if "py" in spec:
        value = spec["py"]
        if isinstance(value, float) and not math.isfinite(value):
            return f"float({str(value)!r})"
        return repr(value)
    if "tuple" in spec:
        items = [source(s) for s in spec["tuple"]]
        return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"
    if "list" in spec:
        return f"[{', '.join(source(s) for s in spec['list'])}]"
    if "complex" in spec:
        return repr(complex(*spec["complex"]))
    if "bytes" in spec:
        return repr(spec["bytes"].encode())
    if "dtype" in spec:
        how = spec.get("as", "scalar_type")
        if how == "string":
            return repr(spec["dtype"])
        if how == "numpy":
            return f"np.dtype(jnp.{spec['dtype']})"
        return f"jnp.{spec['dtype']}"
    if "fn" in spec:
        return _CALLABLE_SOURCE[spec["fn"]]
    if "enum" in spec:
        return f"lax.{spec['enum'][0]}.{spec['enum'][1]}"
    if "object" in spec:
        return "object()"
    raise TypeError(f"fuzz: bad spec {spec!r}")


def _literal(data: np.ndarray) -> str:
    flat = data.reshape(-1)
    if data.dtype == np.bool_:
        items = [repr(bool(v)) for v in flat]
    elif data.dtype.kind in "iu" or str(data.dtype) in ("int4", "uint4"):
        items = [str(int(v)) for v in flat]
    elif data.dtype.kind == "c":
        items = [repr(complex(v)) for v in flat]
    else:
        items = [_float_literal(float(v)) for v in flat]
    return f"[{', '.join(items)}]"


def _float_literal(v: float) -> str:
    if math.isnan(v):
        return "np.nan"
    if math.isinf(v):
        return "np.inf" if v > 0 else "-np.inf"
    return repr(v)


def array_specs(spec: Any) -> list[dict]:
    """The array specs inside `spec` (nested in tuples and lists too)."""
    if not isinstance(spec, dict):
        return []
    if "array" in spec:
        return [spec]
    out = []
    for key in ("tuple", "list"):
        for inner in spec.get(key, ()):
            out.extend(array_specs(inner))
    return out
