"""Elementwise binary arithmetic and bitwise ops (one BINARY_OPS row each), comparisons, select
and clamp with their shape rules and lowerings, and the ops composed from other elementwise ops:
sign, conj, exp2, square, reciprocal, integer_pow. Unary ops are in _elementwise_unary.py, dtype
groups in _elementwise_common.py, the registration of them all in _elementwise_ops.py."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax._src import dtypes
from stablax._src import ir as mlir
from stablax._src.avals import ShapedArray
from stablax._src.dispatch import bind, to_array
from stablax._src.lax._argcheck import int_arg
from stablax._src.lax._elementwise_common import (
    ANY,
    BOOL,
    COMPLEX,
    FLOAT,
    INEXACT,
    INT,
    INT_OR_BOOL,
    NUMBER,
    _prepare,
    _scalar_operand,
    aval_or_none,
    check_array_operand_dtypes,
    check_dtype,
    is_float,
    operand_aval,
)
from stablax._src.lax._elementwise_unary import exp, imag, neg, real, unary
from stablax._src.lax._shapes import convert_element_type, full_like
from stablax._src.op_rules import generic_lowering

# --- binary ops --------------------------------------------------------------------------------


def binary_rule(opname: str, groups: tuple, result_dtype=None):
    def rule(x: ShapedArray, y: ShapedArray) -> ShapedArray:
        if x.dtype != y.dtype:
            raise TypeError(
                f"lax.{opname} requires arguments to have the same dtypes, got {x.dtype.name}, "
                f"{y.dtype.name}.{mlir.where_suffix()}"
            )
        if x.shape != y.shape:
            raise TypeError(
                f"lax.{opname} got incompatible shapes: {x.shape}, {y.shape}.{mlir.where_suffix()}"
            )
        check_dtype(opname, x.dtype, groups)
        dt = x.dtype if result_dtype is None else result_dtype(x.dtype)
        return ShapedArray(x.shape, dt, x.weak_type and y.weak_type)

    return rule


_binary_rule = binary_rule  # the name _special.py imports


BINARY_OPS: dict[str, tuple[str, tuple]] = {
    "add": ("stablehlo.add", ANY),
    "sub": ("stablehlo.subtract", NUMBER),
    "mul": ("stablehlo.multiply", ANY),
    "div": ("stablehlo.divide", NUMBER),
    "rem": ("stablehlo.remainder", (INT, FLOAT)),
    "pow": ("stablehlo.power", NUMBER),
    "max": ("stablehlo.maximum", ANY),
    "min": ("stablehlo.minimum", ANY),
    "atan2": ("stablehlo.atan2", INEXACT),
    "nextafter": ("chlo.next_after", (FLOAT,)),
    "polygamma": ("chlo.polygamma", (FLOAT,)),
    "zeta": ("chlo.zeta", (FLOAT,)),
    "bitwise_and": ("stablehlo.and", INT_OR_BOOL),
    "bitwise_or": ("stablehlo.or", INT_OR_BOOL),
    "bitwise_xor": ("stablehlo.xor", INT_OR_BOOL),
    "shift_left": ("stablehlo.shift_left", (INT,)),
    "shift_right_logical": ("stablehlo.shift_right_logical", (INT,)),
    "shift_right_arithmetic": ("stablehlo.shift_right_arithmetic", (INT,)),
    "mulhi": ("chlo.mulhi", (INT,)),
}


def _splat(value: Any, aval: ShapedArray) -> Any:
    scalar = mlir.constant(np.asarray(value, aval.dtype))
    op = mlir.emit(
        "stablehlo.broadcast_in_dim",
        [scalar],
        [mlir.aval_type(aval)],
        {"broadcast_dimensions": mlir.i64_array([])},
    )
    return op.result


def integer_division_lowering(name: str):
    # Integer x / 0 and x % 0 are -1 (all bits set) and x at run time, but XLA's constant folder
    # dies with SIGFPE on them: divide by a divisor with its zeros replaced by one, then select.
    def lower(operands, in_avals, out_avals):
        x, y = operands
        aval = in_avals[1]
        if not dtypes.issubdtype(aval.dtype, np.integer):
            return generic_lowering(name)(operands, in_avals, out_avals)
        mask_aval = ShapedArray(aval.shape, np.bool_, False)
        is_zero = compare_lowering([y, _splat(0, aval)], [aval, aval], [mask_aval], direction="EQ")[
            0
        ]
        safe = mlir.emit("stablehlo.select", [is_zero, _splat(1, aval), y], [y.type]).result
        quotient = mlir.emit(name, [x, safe], [y.type]).result
        all_ones = np.asarray(-1).astype(aval.dtype)
        at_zero = x if name == "stablehlo.remainder" else _splat(all_ones, aval)
        return list(mlir.emit("stablehlo.select", [is_zero, at_zero, quotient], [y.type]).results)

    return lower


def _binary(opname: str, x: Any, y: Any) -> Any:
    op, groups = BINARY_OPS[opname]
    check_array_operand_dtypes(opname, (x, y), groups)
    return bind(op, *_prepare(opname, x, y))


def add(x, y):
    """Elementwise x + y (`stablehlo.add`); no dtype promotion, see `jnp.add` for that."""
    return _binary("add", x, y)


def sub(x, y):
    """Elementwise x - y (`stablehlo.subtract`)."""
    return _binary("sub", x, y)


def mul(x, y, *, out_dtype=None):
    """Elementwise x * y (`stablehlo.multiply`).

    With `out_dtype`, both operands are first converted to it (their dtypes may then differ),
    as JAX lowers it; the product has that dtype.
    """
    if out_dtype is not None:
        out_dtype = dtypes.check_user_dtype(out_dtype, "lax.mul")
        x, y = convert_element_type(x, out_dtype), convert_element_type(y, out_dtype)
    return _binary("mul", x, y)


def div(x, y):
    """Elementwise x / y; integer division rounds toward zero (`stablehlo.divide`)."""
    return _binary("div", x, y)


def rem(x, y):
    """Elementwise remainder with the sign of x, like C's fmod (`stablehlo.remainder`)."""
    return _binary("rem", x, y)


def pow(x, y):  # noqa: A001 (lax.pow is JAX's public name)
    """Elementwise x ** y (`stablehlo.power`): x is a float or complex array, y one of the same
    dtype or of any integer dtype (converted to x's), as in JAX."""
    x, y = _prepare("pow", x, y)
    x_dtype, y_dtype = operand_aval(x).dtype, operand_aval(y).dtype
    check_dtype("pow", x_dtype, INEXACT)
    if dtypes.issubdtype(y_dtype, np.integer):
        y = convert_element_type(y, x_dtype, weak_type=operand_aval(y).weak_type)
    elif y_dtype != x_dtype:
        raise TypeError(
            f"lax.pow: the exponent must have the base's dtype {x_dtype.name} or an integer "
            f"dtype, got {y_dtype.name}{mlir.where_suffix()}"
        )
    return bind("stablehlo.power", x, y)


def max(x, y):  # noqa: A001
    """Elementwise maximum, NaN-propagating (`stablehlo.maximum`); complex: lexicographic."""
    x, y = _prepare("max", x, y)
    if aval_or_none(x) is not None and aval_or_none(x).dtype.kind == "c":
        return select(_complex_ge(x, y), x, y)
    return bind("stablehlo.maximum", x, y)


def min(x, y):  # noqa: A001
    """Elementwise minimum, NaN-propagating (`stablehlo.minimum`); complex: lexicographic."""
    x, y = _prepare("min", x, y)
    if aval_or_none(x) is not None and aval_or_none(x).dtype.kind == "c":
        return select(_complex_ge(y, x), x, y)
    return bind("stablehlo.minimum", x, y)


def _complex_ge(x, y):
    # XLA's CPU maximum compares only real parts; order by real part, then imaginary part.
    xr, yr = real(x), real(y)
    return bitwise_or(gt(xr, yr), bitwise_and(eq(xr, yr), ge(imag(x), imag(y))))


def atan2(x, y):
    """Elementwise arctangent of x / y using both signs (`stablehlo.atan2`)."""
    return _binary("atan2", x, y)


def nextafter(x1, x2):
    """The next representable value after x1 in the direction of x2 (`chlo.next_after`)."""
    return _binary("nextafter", x1, x2)


def polygamma(m, x):
    """The m-th derivative of digamma at x; m is a float array of integer values."""
    return _binary("polygamma", m, x)


def zeta(x, q):
    """Hurwitz zeta function (`chlo.zeta`)."""
    return _binary("zeta", x, q)


def bitwise_and(x, y):
    """Elementwise AND (`stablehlo.and`)."""
    return _binary("bitwise_and", x, y)


def bitwise_or(x, y):
    """Elementwise OR (`stablehlo.or`)."""
    return _binary("bitwise_or", x, y)


def bitwise_xor(x, y):
    """Elementwise XOR (`stablehlo.xor`)."""
    return _binary("bitwise_xor", x, y)


and_, or_, xor = bitwise_and, bitwise_or, bitwise_xor


def mulhi(x, y, /):
    """Elementwise high half of the double-width product x * y, for integers (`chlo.mulhi`).

    Example: for uint32, `mulhi(x, y) == (uint64(x) * uint64(y)) >> 32`.
    """
    return _binary("mulhi", x, y)


def shift_left(x, y):
    """Elementwise x << y (`stablehlo.shift_left`)."""
    return _binary("shift_left", x, y)


def shift_right_logical(x, y):
    """Elementwise logical right shift (`stablehlo.shift_right_logical`)."""
    return _binary("shift_right_logical", x, y)


def shift_right_arithmetic(x, y):
    """Elementwise arithmetic right shift (`stablehlo.shift_right_arithmetic`)."""
    return _binary("shift_right_arithmetic", x, y)


_COMPLEX_PARTS = (
    ("float32", lambda dt: dt == np.float32),
    ("float64", lambda dt: dt == np.float64),
)


def complex_rule(x: ShapedArray, y: ShapedArray) -> ShapedArray:
    for part in (x, y):  # each operand's dtype first, as JAX's rule checks them
        check_dtype("complex", part.dtype, _COMPLEX_PARTS)
    if x.dtype != y.dtype or x.shape != y.shape:
        raise TypeError(
            f"lax.complex requires operands of equal shape and dtype, got {x.str_short()}, "
            f"{y.str_short()}.{mlir.where_suffix()}"
        )
    dt = np.complex64 if x.dtype == np.float32 else np.complex128
    return ShapedArray(x.shape, dt, x.weak_type and y.weak_type)


def complex(x, y):  # noqa: A001
    """Builds x + i*y from two real arrays (`stablehlo.complex`)."""
    check_array_operand_dtypes("complex", (x, y), _COMPLEX_PARTS)
    return bind("stablehlo.complex", *_prepare("complex", x, y))


def integer_pow(x, y: int):
    """x ** y for a static integer y, as a chain of multiplies (what XLA would do anyway)."""
    y = int(y) if isinstance(y, np.bool_) else int_arg(y, "y", "lax.integer_pow")  # bools as JAX
    (x,) = _prepare("integer_pow", x)
    x_aval = aval_or_none(x) or ShapedArray(np.shape(x), dtypes.dtype_of(x))
    check_dtype("integer_pow", x_aval.dtype, NUMBER)
    if y < 0 and not dtypes.issubdtype(x_aval.dtype, np.inexact):
        raise TypeError(
            f"Integers cannot be raised to negative powers, got integer_pow({x_aval.str_short()}, "
            f"{y}){mlir.where_suffix()}"
        )
    if y == 0:
        return full_like(x, 1)
    acc = None
    base = x
    n = -y if y < 0 else y
    while n:
        if n & 1:
            acc = base if acc is None else mul(acc, base)
        n >>= 1
        if n:
            base = mul(base, base)
    if y < 0:
        acc = div(full_like(acc, 1), acc)
    return acc


# --- comparisons -------------------------------------------------------------------------------

COMPARISONS = {"eq": "EQ", "ne": "NE", "lt": "LT", "le": "LE", "gt": "GT", "ge": "GE"}


_COMPARISON_NAMES = {v: k for k, v in COMPARISONS.items()}
# Complex numbers have no order: only EQ and NE accept them (XLA's folder aborts on the others).
_ORDERED = (BOOL, INT, FLOAT)


def compare_rule(x: ShapedArray, y: ShapedArray, *, direction: str) -> ShapedArray:
    name = _COMPARISON_NAMES[direction]
    binary_rule(name, ANY if direction in ("EQ", "NE") else _ORDERED)(x, y)
    return ShapedArray(x.shape, np.bool_, x.weak_type and y.weak_type)  # as JAX's naryops


def compare_lowering(operands, in_avals, out_avals, *, direction):
    dt = in_avals[0].dtype
    if dt.kind == "c" or is_float(dt):
        compare_type = "FLOAT"
    elif dt == np.bool_ or dtypes.issubdtype(dt, np.unsignedinteger):
        compare_type = "UNSIGNED"
    else:
        compare_type = "SIGNED"
    op = mlir.emit(
        "stablehlo.compare",
        operands,
        [mlir.aval_type(out_avals[0])],
        {
            "comparison_direction": mlir.stablehlo.ComparisonDirectionAttr.get(direction),
            "compare_type": mlir.stablehlo.ComparisonTypeAttr.get(compare_type),
        },
    )
    return list(op.results)


def decode_compare(op: Any) -> dict[str, Any]:
    """The inverse of compare_lowering."""
    direction = mlir.stablehlo.ComparisonDirectionAttr(op.attributes["comparison_direction"])
    return {"direction": direction.value}


def _compare(name: str, x: Any, y: Any) -> Any:
    return bind("stablehlo.compare", *_prepare(name, x, y), direction=COMPARISONS[name])


def eq(x, y):
    """Elementwise x == y (`stablehlo.compare EQ`)."""
    return _compare("eq", x, y)


def ne(x, y):
    """Elementwise x != y (`stablehlo.compare NE`)."""
    return _compare("ne", x, y)


def lt(x, y):
    """Elementwise x < y (`stablehlo.compare LT`)."""
    return _compare("lt", x, y)


def le(x, y):
    """Elementwise x <= y (`stablehlo.compare LE`)."""
    return _compare("le", x, y)


def gt(x, y):
    """Elementwise x > y (`stablehlo.compare GT`)."""
    return _compare("gt", x, y)


def ge(x, y):
    """Elementwise x >= y (`stablehlo.compare GE`)."""
    return _compare("ge", x, y)


# --- select and clamp --------------------------------------------------------------------------


def select_rule(pred: ShapedArray, on_true: ShapedArray, on_false: ShapedArray) -> ShapedArray:
    if pred.dtype != np.bool_:
        raise TypeError(
            f"lax.select: predicate must be boolean, got {pred.dtype.name}{mlir.where_suffix()}"
        )
    if on_false.dtype != on_true.dtype or on_false.shape != on_true.shape:
        raise TypeError(
            "lax.select_n requires all cases to have the same shape and dtype, got "
            f"{on_false.str_short()}, {on_true.str_short()}.{mlir.where_suffix()}"
        )
    if pred.shape not in ((), on_true.shape):
        raise TypeError(
            f"lax.select_n: predicate shape {pred.shape} must be scalar or equal to the case "
            f"shape {on_true.shape}.{mlir.where_suffix()}"
        )
    return ShapedArray(on_true.shape, on_true.dtype, on_false.weak_type and on_true.weak_type)


def _selector_dtype(opname: str, x: Any) -> np.dtype:
    aval = aval_or_none(x)
    if aval is not None:
        return aval.dtype
    if x is None:  # dtype_of's ValueError would not name the function
        raise TypeError(
            f"lax.{opname}: Value None of type NoneType is not a valid stablax array type"
            f"{mlir.where_suffix()}"
        )
    return dtypes.dtype_of(x)


def select(pred, on_true, on_false):
    """Elementwise `on_true if pred else on_false` (`stablehlo.select`)."""
    pred_dtype = _selector_dtype("select", pred)
    if pred_dtype != np.bool_:
        raise TypeError(
            f"lax.select: predicate must be boolean, got {pred_dtype.name}{mlir.where_suffix()}"
        )
    return select_n(pred, on_false, on_true)


def select_n(which, *cases):
    """Picks `cases[which]` elementwise; `which` is boolean (2 cases) or int32 (any number)."""
    if not cases:
        raise ValueError("lax.select_n requires at least one case")
    cases = _prepare("select_n", *cases)
    which_dtype = _selector_dtype("select_n", which)
    if which_dtype != np.bool_ and which_dtype.kind not in "iu":  # even for one case, as JAX
        raise TypeError(
            f"lax.select_n: selector must be bool or int32, got {which_dtype.name}"
            f"{mlir.where_suffix()}"
        )
    if len(cases) == 1:  # no op to check the shapes: check them here
        which_shape, case_shape = operand_aval(which).shape, operand_aval(cases[0]).shape
        if which_shape not in ((), case_shape):
            raise TypeError(
                f"lax.select_n: predicate shape {which_shape} must be scalar or equal to the "
                f"case shape {case_shape}.{mlir.where_suffix()}"
            )
        # The case itself, as an array of its canonical dtype (a NumPy uint64 case is uint32
        # without x64), as the op's result would be.
        return cases[0] if hasattr(cases[0], "aval") else to_array(cases[0])
    if which_dtype == np.bool_:
        if len(cases) != 2:
            raise TypeError(
                f"lax.select_n: a boolean selector needs 2 cases, got {len(cases)}"
                f"{mlir.where_suffix()}"
            )
        return bind("stablehlo.select", which, cases[1], cases[0])
    if which_dtype.kind not in "iu":
        raise TypeError(
            f"lax.select_n: selector must be bool or int32, got {which_dtype.name}"
            f"{mlir.where_suffix()}"
        )
    # Binary tree of selects on the bits of `which`, as JAX lowers it.
    mid = len(cases) // 2
    low = select_n(which, *cases[:mid])
    high = select_n(sub(which, np.asarray(mid, which_dtype)), *cases[mid:])
    return bind("stablehlo.select", lt(which, np.asarray(mid, which_dtype)), low, high)


def clamp_rule(lo: ShapedArray, x: ShapedArray, hi: ShapedArray) -> ShapedArray:
    for bound, name in ((lo, "min"), (hi, "max")):
        if bound.dtype != x.dtype:
            raise TypeError(
                f"lax.clamp requires {name} and operand to have the same dtype, got "
                f"{bound.dtype.name}, {x.dtype.name}.{mlir.where_suffix()}"
            )
        if bound.shape not in ((), x.shape):
            raise TypeError(
                f"lax.clamp requires {name} to be scalar or of the operand's shape {x.shape}, "
                f"got {bound.shape}.{mlir.where_suffix()}"
            )
    check_dtype("clamp", x.dtype, (BOOL, INT, FLOAT))
    return x.update(weak_type=lo.weak_type and x.weak_type and hi.weak_type)  # JAX's rule


def clamp(min, x, max):  # noqa: A002 (JAX's parameter names)
    """Elementwise min(max(x, min), max) (`stablehlo.clamp`); bounds may be scalars."""
    x_aval = aval_or_none(x)
    dts = [x_aval.dtype] if x_aval is not None else []
    lo = _scalar_operand(min, dts) if dtypes.is_python_scalar(min) else min
    hi = _scalar_operand(max, dts) if dtypes.is_python_scalar(max) else max
    if dtypes.is_python_scalar(x):
        x = _scalar_operand(x, [])
    return bind("stablehlo.clamp", lo, x, hi)


# --- ops composed from other elementwise ops ---------------------------------------------------


def sign(x):
    """Elementwise sign: -1, 0 or 1 (`stablehlo.sign`; unsigned integers: x != 0, as JAX)."""
    dtype = getattr(x, "dtype", None)
    if dtype is not None and dtypes.issubdtype(dtype, np.unsignedinteger):  # uint4 too
        return convert_element_type(ne(x, full_like(x, 0)), dtype)
    return unary("sign", x)


# As JAX: a real operand must be float32 or float64, the real parts of complex64/complex128.
_CONJ_DTYPES = (
    ("float32", lambda dt: dt == np.float32),
    COMPLEX,
    ("float64", lambda dt: dt == np.float64),
)


def conj(x):
    """Complex conjugate; real inputs are returned unchanged (as JAX does)."""
    (x,) = _prepare("conj", x)
    aval = aval_or_none(x)
    dt = aval.dtype if aval is not None else dtypes.dtype_of(x)
    check_dtype("conj", dt, _CONJ_DTYPES)
    if dt.kind != "c":  # a real operand becomes complex (weak if it was), as in JAX
        complex_dtype = np.complex128 if dt == np.float64 else np.complex64
        return convert_element_type(x, complex_dtype, weak_type=operand_aval(x).weak_type)
    return complex(real(x), neg(imag(x)))


def exp2(x, *, accuracy=None):
    """Elementwise 2**x, as exp(x * ln 2); `accuracy` (a `lax.Tolerance` or `lax.AccuracyMode`)
    is that `stablehlo.exponential`'s, as JAX lowers it."""
    (x,) = _prepare("exp2", x)
    aval = operand_aval(x)
    check_dtype("exp2", aval.dtype, INEXACT)
    ln2 = float(np.log(2.0))
    ln2 = ln2 + 0j if np.issubdtype(aval.dtype, np.complexfloating) else ln2
    # A Python scalar keeps a weak x weak; a NumPy x gets a NumPy factor of its own dtype.
    return exp(mul(x, ln2 if aval.weak_type else np.asarray(ln2, aval.dtype)), accuracy)


def square(x):
    """Elementwise x * x."""
    x_aval = operand_aval(x)
    check_dtype("square", x_aval.dtype, NUMBER)  # not bool, as JAX (mul accepts it)
    return mul(x, x)


def reciprocal(x):
    """Elementwise 1 / x."""
    return integer_pow(x, -1)


__all__ = [
    *BINARY_OPS,
    *COMPARISONS,
    "sign",
    "and_",
    "or_",
    "xor",
    "conj",
    "exp2",
    "square",
    "reciprocal",
    "complex",
    "integer_pow",
    "select",
    "select_n",
    "clamp",
]
