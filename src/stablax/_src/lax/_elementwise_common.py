"""What the elementwise ops share: the dtype groups an op accepts (check_dtype, used by other op
families too), and operand preparation: a Python scalar takes the dtype of an array operand of its
kind, and a rank-0 operand broadcasts to the others' shape (as in JAX's lax).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax._src import dtypes
from stablax._src import ir as mlir
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.dispatch import to_array, weak_scalar
from stablax._src.interpreters.batching import broadcast_in_dim

# --- dtype groups ------------------------------------------------------------------------------


def is_float(dt: np.dtype) -> bool:
    return dtypes.issubdtype(dt, np.floating)


def _is_complex(dt: np.dtype) -> bool:
    return dt.kind == "c"


def _is_int(dt: np.dtype) -> bool:
    return dt.kind in "iu" or dtypes.issubdtype(dt, np.integer)


def _is_bool(dt: np.dtype) -> bool:
    return dt == np.bool_


FLOAT = ("floating", is_float)
COMPLEX = ("complexfloating", _is_complex)
INT = ("integer", _is_int)
SIGNED = ("signedinteger", lambda dt: dt.kind == "i")
BOOL = ("bool", _is_bool)
INEXACT = (FLOAT, COMPLEX)
NUMBER = (INT, FLOAT, COMPLEX)
ANY = (BOOL, INT, FLOAT, COMPLEX)
INT_OR_BOOL = (BOOL, INT)


def check_array_dtypes(opname: str, operands: tuple, groups: tuple) -> None:
    """check_dtype of each operand that is no Python scalar, before _prepare lets a scalar adopt
    a dtype (as JAX checks dtypes first: 300 adopted by an int8 array would overflow)."""
    for x in operands:
        if not dtypes.is_python_scalar(x):
            check_dtype(opname, aval_of(x).dtype, groups)


def check_dtype(opname: str, dtype: np.dtype, groups: tuple) -> None:
    if not any(test(dtype) for _, test in groups):
        accepted = ", ".join(name for name, _ in groups)
        raise TypeError(
            f"lax.{opname} does not accept dtype {dtype.name}. Accepted dtypes are subtypes "
            f"of {accepted}.{mlir.where_suffix()}"
        )


def check_array_operand_dtypes(opname: str, operands: tuple, groups: tuple) -> None:
    """Checks the dtypes of the array operands before `_prepare` converts a Python scalar into
    one of them, so a dtype the op never accepts is reported, not the scalar's overflow (JAX
    checks its operands' dtypes before it converts anything). Without a Python scalar the
    shapes come first, as in JAX."""
    if not any(dtypes.is_python_scalar(x) for x in operands):
        return
    for x in operands:
        aval = aval_or_none(x)
        if aval is not None:
            check_dtype(opname, aval.dtype, groups)


# --- operand preparation (Python-side, before bind) -------------------------------------------


def aval_or_none(x: Any) -> ShapedArray | None:
    aval = getattr(x, "aval", None)
    return aval if isinstance(aval, ShapedArray) else None


def operand_aval(x: Any) -> ShapedArray:
    """The aval of an array, or of a NumPy value (strongly typed)."""
    aval = aval_or_none(x)
    return aval if aval is not None else ShapedArray(np.shape(x), dtypes.dtype_of(x), False)


def _prepare(opname: str, *operands: Any) -> list[Any]:
    """Python scalars adopt an array operand's dtype of the same kind; rank-0 operands and
    size-1 dimensions broadcast (operands of different ranks do not), as in JAX's lax."""
    avals = [aval_or_none(x) for x in operands]
    array_dtypes = [a.dtype for a in avals if a is not None]
    prepared = []
    for x, aval in zip(operands, avals, strict=True):
        if aval is None and not isinstance(x, (np.ndarray, np.generic)):
            if not dtypes.is_python_scalar(x):
                x = to_array(x)
            else:
                x = _scalar_operand(x, array_dtypes)
        prepared.append(x)
    shapes = [np.shape(x) if aval_or_none(x) is None else x.aval.shape for x in prepared]
    if len(set(shapes)) > 1:
        target = _broadcast_equal_rank(opname, shapes)
        # The op itself (not lax.broadcast_in_dim, which sits above this module): the target
        # differs from the operand's shape, and the operand is an array already.
        prepared = [
            x
            if shape == target
            else broadcast_in_dim(
                x, target, () if shape == () else tuple(i for i, d in enumerate(shape))
            )
            for x, shape in zip(prepared, shapes, strict=True)
        ]
    return prepared


def _broadcast_equal_rank(opname: str, shapes: list[tuple[int, ...]]) -> tuple[int, ...]:
    nonscalar = [s for s in shapes if s != ()]
    ranks = {len(s) for s in nonscalar}
    if len(ranks) > 1:
        raise TypeError(
            f"{opname}: arrays must have the same number of dimensions, got {sorted(ranks)}"
            f"{mlir.where_suffix()}"
        )
    target = []
    for dims in zip(*nonscalar, strict=True):
        sizes = {d for d in dims if d != 1}
        if len(sizes) > 1:
            listed = ", ".join(str(tuple(s)) for s in shapes)
            raise TypeError(
                f"{opname} got incompatible shapes for broadcasting: {listed}.{mlir.where_suffix()}"
            )
        target.append(sizes.pop() if sizes else 1)
    return tuple(target)


def _scalar_operand(x: Any, array_dtypes: list[np.dtype]) -> Any:
    """A Python scalar as a weakly typed operand, of an array operand's dtype if of its kind."""
    dtype = dtypes.python_scalar_dtype(x)
    for dt in array_dtypes:
        if _same_kind(dtype, dt):
            dtype = dt
            break
    return weak_scalar(x, dtype, weak_type=type(x) is not bool)  # bools are never weak


def _same_kind(scalar_dtype: np.dtype, dt: np.dtype) -> bool:
    if scalar_dtype == np.bool_:
        return dt == np.bool_
    if scalar_dtype.kind in "iu":
        return dt.kind in "iu"
    if scalar_dtype.kind == "f":
        return is_float(dt)
    return dt.kind == "c"
