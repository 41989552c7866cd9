"""The MLIR context, type conversion, op emission and source locations.

One context per thread knows the `func`, `stablehlo` and `chlo` dialects. Builders run inside
`with context(), location, InsertionPoint` blocks set once by the tracer, so rules never pass them.
"""

from __future__ import annotations

import contextlib
import functools
import io
import itertools
import math
import os
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import ml_dtypes
import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir._mlir_libs import _chlo as chlo
from jaxlib.mlir._mlir_libs import _jax_mlir_ext
from jaxlib.mlir._mlir_libs import _stablehlo as stablehlo

# The stablehlo and chlo names are their dialects' native modules (registration, attributes):
# ops, `func.func` included, are built generically by name, so the generated Python op classes
# (`dialects.stablehlo` and `dialects.func` take 20-25 ms to import) are not loaded to build.

_local = threading.local()

# A context keeps every type and attribute it ever made: a thread starts a fresh one after this
# many top-level traces, so a long run with changing shapes and constants stays bounded.
CONTEXT_REUSE_LIMIT = 1000


def context() -> ir.Context:
    """This thread's MLIR context, created on first use with our dialects loaded."""
    ctx = getattr(_local, "ctx", None)
    if ctx is None:
        ctx = ir.Context()
        registry = ir.DialectRegistry()
        _jax_mlir_ext.register_dialects(registry)
        ctx.append_dialect_registry(registry)
        ctx.load_all_available_dialects()
        stablehlo.register_dialect(ctx)
        chlo.register_dialect(ctx)
        _local.ctx = ctx
        _local.uses = 0
        _local.element_types = {}
        _local.tensor_types = {}
        _local.locations = {}
    return ctx


def start_top_level_trace() -> None:
    """Called before a trace that nothing in this thread is using MLIR around (jit's trace, an
    eager op's, a staged transformation's): counts uses and moves to a fresh context when due.
    Functions traced in the old one are reparsed into the new one when read (core.py)."""
    if getattr(_local, "ctx", None) is None:
        return
    _local.uses += 1
    if _local.uses >= CONTEXT_REUSE_LIMIT:
        _local.ctx = None


# --- types -------------------------------------------------------------------------------------

_ELEMENT_TYPE_BUILDERS = {
    np.dtype(np.bool_): lambda: ir.IntegerType.get_signless(1),
    np.dtype(np.int8): lambda: ir.IntegerType.get_signless(8),
    np.dtype(np.int16): lambda: ir.IntegerType.get_signless(16),
    np.dtype(np.int32): lambda: ir.IntegerType.get_signless(32),
    np.dtype(np.int64): lambda: ir.IntegerType.get_signless(64),
    np.dtype(np.uint8): lambda: ir.IntegerType.get_unsigned(8),
    np.dtype(np.uint16): lambda: ir.IntegerType.get_unsigned(16),
    np.dtype(np.uint32): lambda: ir.IntegerType.get_unsigned(32),
    np.dtype(np.uint64): lambda: ir.IntegerType.get_unsigned(64),
    np.dtype(np.float16): ir.F16Type.get,
    np.dtype(np.float32): ir.F32Type.get,
    np.dtype(np.float64): ir.F64Type.get,
    np.dtype(ml_dtypes.bfloat16): ir.BF16Type.get,
    np.dtype(np.complex64): lambda: ir.ComplexType.get(ir.F32Type.get()),
    np.dtype(np.complex128): lambda: ir.ComplexType.get(ir.F64Type.get()),
    np.dtype(ml_dtypes.float8_e4m3fn): ir.Float8E4M3FNType.get,
    np.dtype(ml_dtypes.float8_e5m2): ir.Float8E5M2Type.get,
    np.dtype(ml_dtypes.float8_e4m3fnuz): ir.Float8E4M3FNUZType.get,
    np.dtype(ml_dtypes.float8_e5m2fnuz): ir.Float8E5M2FNUZType.get,
    np.dtype(ml_dtypes.float8_e4m3b11fnuz): ir.Float8E4M3B11FNUZType.get,
    np.dtype(ml_dtypes.float8_e4m3): ir.Float8E4M3Type.get,
    np.dtype(ml_dtypes.float8_e3m4): ir.Float8E3M4Type.get,
    np.dtype(ml_dtypes.float8_e8m0fnu): ir.Float8E8M0FNUType.get,
    np.dtype(ml_dtypes.float6_e2m3fn): ir.Float6E2M3FNType.get,
    np.dtype(ml_dtypes.float6_e3m2fn): ir.Float6E3M2FNType.get,
    np.dtype(ml_dtypes.float4_e2m1fn): ir.Float4E2M1FNType.get,
    np.dtype(ml_dtypes.int2): lambda: ir.IntegerType.get_signless(2),
    np.dtype(ml_dtypes.uint2): lambda: ir.IntegerType.get_unsigned(2),
    np.dtype(ml_dtypes.int4): lambda: ir.IntegerType.get_signless(4),
    np.dtype(ml_dtypes.uint4): lambda: ir.IntegerType.get_unsigned(4),
}
# float0 (tangents of integers) lowers to a bool tensor, as in JAX.
_FLOAT0 = np.dtype([("float0", np.void, 0)])
_ELEMENT_TYPE_BUILDERS[_FLOAT0] = _ELEMENT_TYPE_BUILDERS[np.dtype(np.bool_)]

_DTYPE_OF_TYPE_STR = {
    "i1": np.dtype(np.bool_),
    "i4": np.dtype(ml_dtypes.int4),
    "i8": np.dtype(np.int8),
    "i16": np.dtype(np.int16),
    "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64),
    "ui4": np.dtype(ml_dtypes.uint4),
    "ui8": np.dtype(np.uint8),
    "ui16": np.dtype(np.uint16),
    "ui32": np.dtype(np.uint32),
    "ui64": np.dtype(np.uint64),
    "f16": np.dtype(np.float16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "complex<f32>": np.dtype(np.complex64),
    "complex<f64>": np.dtype(np.complex128),
    "f8E4M3FN": np.dtype(ml_dtypes.float8_e4m3fn),
    "f8E5M2": np.dtype(ml_dtypes.float8_e5m2),
    "f8E4M3FNUZ": np.dtype(ml_dtypes.float8_e4m3fnuz),
    "f8E5M2FNUZ": np.dtype(ml_dtypes.float8_e5m2fnuz),
    "f8E4M3B11FNUZ": np.dtype(ml_dtypes.float8_e4m3b11fnuz),
    "f8E4M3": np.dtype(ml_dtypes.float8_e4m3),
    "f8E3M4": np.dtype(ml_dtypes.float8_e3m4),
    "f8E8M0FNU": np.dtype(ml_dtypes.float8_e8m0fnu),
    "f6E2M3FN": np.dtype(ml_dtypes.float6_e2m3fn),
    "f6E3M2FN": np.dtype(ml_dtypes.float6_e3m2fn),
    "f4E2M1FN": np.dtype(ml_dtypes.float4_e2m1fn),
    "i2": np.dtype(ml_dtypes.int2),
    "ui2": np.dtype(ml_dtypes.uint2),
}


def element_type(dtype: np.dtype) -> ir.Type:
    cache = _local.element_types
    result = cache.get(dtype)
    if result is None:
        try:
            builder = _ELEMENT_TYPE_BUILDERS[np.dtype(dtype)]
        except KeyError:
            raise TypeError(f"stablax: dtype {dtype} has no StableHLO element type") from None
        result = cache[dtype] = builder()
    return result


# The per-thread caches of types and locations start over when they reach this size.
_CACHE_LIMIT = 4096


def tensor_type(shape: Sequence[int], dtype: np.dtype) -> ir.RankedTensorType:
    key = (tuple(shape), dtype)
    cache = _local.tensor_types
    result = cache.get(key)
    if result is None:
        check_extents(shape, dtype)
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        result = cache[key] = ir.RankedTensorType.get(list(shape), element_type(dtype))
    return result


# XLA sizes buffers in bytes with a signed 64-bit product and aborts the process on overflow.
_MAX_BYTES = 2**63 - 1


def check_extents(shape: Sequence[int], dtype: np.dtype) -> None:
    """Raises ValueError for a negative extent or an array too large for XLA to address."""
    if any(d < 0 for d in shape):
        raise ValueError(
            f"negative dimensions are not allowed: got shape {tuple(shape)} of dtype "
            f"{np.dtype(dtype).name}{where_suffix()}"
        )
    # An extent past int64 is too large even in an empty array: MLIR's shapes are int64.
    if (
        any(d > _MAX_BYTES for d in shape)
        or math.prod(shape) * max(np.dtype(dtype).itemsize, 1) > _MAX_BYTES
    ):
        raise ValueError(
            f"array of shape {tuple(shape)} and dtype {np.dtype(dtype).name} is too large: its "
            f"extents or size in bytes do not fit in a signed 64-bit integer{where_suffix()}"
        )


def aval_type(aval: Any) -> ir.RankedTensorType:
    return tensor_type(aval.shape, aval.dtype)


def dtype_of_type(t: ir.Type) -> np.dtype:
    """The NumPy dtype of a tensor type's element type (the inverse of `element_type`)."""
    return _DTYPE_OF_TYPE_STR[str(ir.RankedTensorType(t).element_type)]


def shape_of_type(t: ir.Type) -> tuple[int, ...]:
    return tuple(ir.RankedTensorType(t).shape)


# --- attributes --------------------------------------------------------------------------------


def i64_array(values: Sequence[int]) -> ir.Attribute:
    return ir.DenseI64ArrayAttr.get([int(v) for v in values])


def i64(value: int) -> ir.Attribute:
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(value))


def i32(value: int) -> ir.Attribute:
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(32), int(value))


def bool_attr(value: bool) -> ir.Attribute:
    return ir.BoolAttr.get(bool(value))


def dense_i64(values: Sequence[int], shape: Sequence[int] | None = None) -> ir.Attribute:
    array = np.asarray(values, dtype=np.int64)
    if shape is not None:
        array = array.reshape(shape)
    return ir.DenseIntElementsAttr.get(array, type=tensor_type(array.shape, np.dtype(np.int64)))


def dense_constant(value: np.ndarray) -> ir.Attribute:
    """A DenseElementsAttr holding `value` with its exact dtype (float0 becomes bool zeros)."""
    value = np.asarray(value, order="C")
    if value.dtype.fields is not None:  # float0
        value = np.zeros(value.shape, np.bool_)
    return ir.DenseElementsAttr.get(value, type=element_type(value.dtype), shape=list(value.shape))


# --- source locations --------------------------------------------------------------------------

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# Whether a source file is stablax's own (or frozen importlib's), by name: an op emitted from
# user code still walks up through a dozen library frames, and a lookup beats two prefix tests.
_internal_files: dict[str, bool] = {}


def _is_internal(filename: str) -> bool:
    internal = _internal_files.get(filename)
    if internal is None:
        internal = filename.startswith(_PACKAGE_DIR) or filename.startswith("<frozen")
        if len(_internal_files) < _CACHE_LIMIT:
            _internal_files[filename] = internal
    return internal


def user_frame() -> tuple[str, int] | None:
    """The innermost caller outside stablax: the user's file and line."""
    frame = user_frame_object()
    return None if frame is None else (frame.f_code.co_filename, frame.f_lineno)


def user_frame_object() -> Any:
    """The innermost frame outside stablax (None when stablax was called from nowhere else)."""
    frame = sys._getframe(1)
    while frame is not None and _is_internal(frame.f_code.co_filename):
        frame = frame.f_back
    return frame


# Rewrites (jvp, transpose, batching, re-evaluation) emit ops on behalf of an op they read: those
# take that op's location, as JAX's rewritten equations keep their source info, and finding it
# costs no walk up a deep stack of rule frames.


def rewrites_one_op(fun: Callable) -> Callable:
    """Decorates a function `fun(op, ...)` that rewrites one op: the ops it emits take `op`'s
    location, except those emitted by user code it calls (a custom rule), which take the user's
    line."""

    @functools.wraps(fun)
    def rewrite_one_op(op, *args, **kwargs):
        previous = getattr(_local, "rewritten", None)
        _local.rewritten = op
        try:
            return fun(op, *args, **kwargs)
        finally:
            _local.rewritten = previous

    return rewrite_one_op


_REWRITE_CODE = rewrites_one_op(lambda op: None).__code__


def _emission_site() -> tuple[Any, int, int] | Any:
    """The user's (code, instruction, line), or the op a rewrite is rewriting, whichever is
    nearer."""
    frame = sys._getframe(2)
    rewrite_code = _REWRITE_CODE
    while frame is not None:
        code = frame.f_code
        if code is rewrite_code:
            return _local.rewritten
        if not _is_internal(code.co_filename):
            return code, frame.f_lasti, frame.f_lineno
        frame = frame.f_back
    return None


def user_location() -> ir.Location:
    """An MLIR location naming the user's call (cached per call site): its function's qualified
    name around file:line:column, as JAX's source info, inside the names of the enclosing
    `named_scope`s ("outer/inner"), as JAX's name stack. Under a rewrite, the location of the op
    being rewritten."""
    where = _emission_site()
    if where is not None and type(where) is not tuple:
        return where.location
    scope = getattr(_local, "scope", "")
    if where is None and not scope:
        return ir.Location.unknown()
    cache = _local.locations
    key = (where, scope)
    loc = cache.get(key)
    if loc is None:
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        loc = ir.Location.unknown() if where is None else _call_location(*where)
        if scope:
            loc = ir.Location.name(scope, childLoc=loc)
        cache[key] = loc
    return loc


def _call_location(code: Any, instruction: int, line: int) -> ir.Location:
    # The column of the call being made (Python 3.11's instruction positions), 0 where unknown.
    positions = next(itertools.islice(code.co_positions(), instruction // 2, None), None)
    if positions is not None and positions[0] is not None:
        line = positions[0]
    column = positions[2] if positions is not None and positions[2] is not None else 0
    file_loc = ir.Location.file(code.co_filename, line, column)
    return ir.Location.name(code.co_qualname, childLoc=file_loc)


def source_of(loc: ir.Location) -> tuple[str, int, int, str] | None:
    """(file, line, column, function) of the user's call an op's location names (see
    `user_location`), or None for an op located nowhere."""
    function = None
    while isinstance(loc, ir.NameLoc):
        child = loc.child_loc
        if isinstance(child, ir.FileLineColLoc):
            function = loc.name_str
        loc = child
    if not isinstance(loc, ir.FileLineColLoc) or function is None:
        return None
    return loc.filename, loc.start_line, loc.start_col, function


@contextlib.contextmanager
def name_scope(name: str) -> Iterator[None]:
    """Ops emitted inside carry `name` (appended to the enclosing scopes) in their locations."""
    outer = getattr(_local, "scope", "")
    _local.scope = f"{outer}/{name}" if outer else name
    try:
        yield
    finally:
        _local.scope = outer


def where_suffix() -> str:
    """' (at file.py:12)' for error messages, naming the user's line."""
    where = user_frame()
    return "" if where is None else f" (at {where[0]}:{where[1]})"


# --- emission ----------------------------------------------------------------------------------


def emit(
    name: str,
    operands: Sequence[ir.Value],
    result_types: Sequence[ir.Type],
    attributes: dict[str, ir.Attribute] | None = None,
    regions: int = 0,
) -> ir.Operation:
    """Creates op `name` at the current insertion point with the user's source location."""
    return ir.Operation.create(
        name,
        results=list(result_types),
        operands=list(operands),
        attributes=attributes,
        regions=regions,
        loc=user_location(),
    )


def new_function(
    name: str, arg_types: Sequence[ir.Type], result_types: Sequence[ir.Type]
) -> tuple[ir.Operation, ir.Block]:
    """A `func.func @name` at the current insertion point, and its entry block."""
    op = ir.Operation.create(
        "func.func",
        attributes={
            "sym_name": ir.StringAttr.get(name),
            "function_type": ir.TypeAttr.get(ir.FunctionType.get(arg_types, result_types)),
        },
        regions=1,
    )
    return op, op.regions[0].blocks.append(*arg_types)


def bytecode(operation: Any) -> bytes:
    """MLIR bytecode of `operation` (a module), locations included: what XLA is handed. About ten
    times faster to write, and for XLA to read, than the same module's text."""
    out = io.BytesIO()
    operation.write_bytecode(file=out)
    return out.getvalue()


def emit_return(values: Sequence[ir.Value]) -> None:
    """The `func.return` of `values` at the current insertion point."""
    ir.Operation.create("func.return", operands=list(values))


def constant(value: np.ndarray) -> ir.Value:
    value = np.asarray(value)
    op = emit(
        "stablehlo.constant",
        [],
        [tensor_type(value.shape, value.dtype)],
        {"value": dense_constant(value)},
    )
    return op.result


__all__ = [
    "ir",
    "stablehlo",
    "chlo",
    "context",
    "element_type",
    "tensor_type",
    "aval_type",
    "emit",
    "constant",
]
