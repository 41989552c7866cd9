"""The linalg ops as marker custom calls: their names, lowering, decoder, batching rule and matrix
checks, and `def_linalg_op`, which registers one such op with all of its rules."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax._src import dtypes, ir_passes
from stablax._src import ir as mlir
from stablax._src.avals import ShapedArray
from stablax._src.dispatch import bind
from stablax._src.interpreters.batching import bdim_at_front
from stablax._src.ir import ir
from stablax._src.lax import _linalg_util as u
from stablax._src.op_rules import JvpRule, ShapeRule, TransposeRule, def_op

TARGET_PREFIX = "stablax.linalg."
PARAMS_ATTRIBUTE = "stablax.params"


def op_name(name: str) -> str:
    """The rule-table key of linalg op `name`."""
    return f"stablehlo.custom_call:{TARGET_PREFIX}{name}"


CHOLESKY, LU, QR, EIGH = op_name("cholesky"), op_name("lu"), op_name("qr"), op_name("eigh")
SVD, EIG, TRIANGULAR_SOLVE = op_name("svd"), op_name("eig"), op_name("triangular_solve")
HESSENBERG, TRIDIAGONAL, SCHUR = op_name("hessenberg"), op_name("tridiagonal"), op_name("schur")
HOUSEHOLDER_PRODUCT, ORMQR = op_name("householder_product"), op_name("ormqr")
TRIDIAGONAL_SOLVE, GEQRF = op_name("tridiagonal_solve"), op_name("geqrf")


# --- checks of the shape rules -----------------------------------------------------------------


def linalg_error(name: str, message: str, kind: type[Exception] = TypeError) -> Exception:
    return kind(f"lax.linalg.{name}: {message}{mlir.where_suffix()}")


def check_matrix(
    name: str, x: ShapedArray, square: bool, empty_any_float: bool = False
) -> tuple[int, int]:
    """(m, n) of a stack of matrices LAPACK can factor; with `empty_any_float`, an empty one of
    any float dtype passes too (no LAPACK call for it, as JAX's qr and svd)."""
    if empty_any_float and x.ndim >= 2 and 0 in x.shape[-2:]:
        if dtypes.issubdtype(x.dtype, np.inexact):
            return x.shape[-2:]
    if x.ndim < 2:
        raise linalg_error(name, f"expected a matrix or a stack of matrices, got {x.str_short()}")
    m, n = x.shape[-2:]
    if square and m != n:
        raise linalg_error(name, f"expected square matrices, got {x.str_short()}", ValueError)
    if not u.is_inexact_linalg_dtype(x.dtype):
        raise linalg_error(
            name, f"expected float32, float64, complex64 or complex128, got {x.str_short()}"
        )
    return m, n


# --- one marker op per linalg op ---------------------------------------------------------------


def _param_attribute(value: bool | int) -> ir.Attribute:
    if isinstance(value, bool):
        return ir.BoolAttr.get(value)
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(value))


def marker_lowering(name: str):
    """The lowering of linalg op `name`: a `stablax.linalg.<name>` custom call whose boolean and
    integer parameters travel in its `stablax.params` dictionary."""

    def lower(operands, in_avals, out_avals, **params):
        attribute = ir.DictAttr.get({k: _param_attribute(v) for k, v in params.items()})
        return ir_passes.emit_marker(
            TARGET_PREFIX + name, operands, out_avals, {PARAMS_ATTRIBUTE: attribute}
        )

    return lower


def decode_params(op: Any) -> dict[str, bool | int]:
    """The parameters of a linalg op (its `stablax.params` dictionary)."""
    attr = ir.DictAttr(op.attributes[PARAMS_ATTRIBUTE])
    named = [attr[i] for i in range(len(attr))]
    return {a.name: a.attr.value for a in named}  # the attributes come typed: BoolAttr, IntegerAttr


def batch_to_front(name: str):
    # The linalg ops take leading batch dimensions: the vmapped axis becomes one more.
    def rule(values, dims, *, axis_size, **params):
        moved = [bdim_at_front(x, d, axis_size) for x, d in zip(values, dims, strict=True)]
        out = bind(name, *moved, **params)
        outs = list(out) if isinstance(out, tuple) else [out]
        return outs, [0] * len(outs)

    return rule


def def_linalg_op(
    name: str,
    shape_rule: ShapeRule,
    *,
    jvp: JvpRule,
    expand: ir_passes.Expansion,
    transpose: TransposeRule | None = None,
) -> str:
    """Registers linalg op `name` with all of its rules: the marker lowering and decoder, the
    batching rule, its derivatives, and `expand`, the kernels that replace it before compiling."""
    key = op_name(name)
    return def_op(
        key,
        shape_rule,
        marker_lowering(name),
        decode=decode_params,
        jvp=jvp,
        transpose=transpose,
        batch=batch_to_front(key),
        expand=expand,
    )
