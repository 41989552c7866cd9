"""lax.linalg: one op per matrix decomposition, and the public functions that bind them.

Each decomposition is a `stablehlo.custom_call` to a `stablax.linalg.<name>` target, so the rule
tables hold one jvp and one batching rule per decomposition, whatever the dtype or backend. Just
before compilation `_linalg_kernels` replaces each call by the backend's kernels (LAPACK on CPU).
All ops accept leading batch dimensions.
"""

from __future__ import annotations

import enum
import operator
import warnings
from typing import Any

import numpy as np

from stablax._src import dtypes
from stablax._src import ir as mlir
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.dispatch import bind
from stablax._src.interpreters.batching import bdim_at_front
from stablax._src.ir import ir
from stablax._src.lax import _elementwise as ew
from stablax._src.lax import _linalg_util as u
from stablax._src.lax._argcheck import sequence
from stablax._src.lax._control_flow_while import fori_loop
from stablax._src.lax._reductions import reduce_sum
from stablax._src.lax._reshape_axes import expand_dims, squeeze
from stablax._src.lax._shapes import (
    broadcast_in_dim,
    broadcasted_iota,
    convert_element_type,
    full,
    reshape,
)
from stablax._src.lax._slicing import dynamic_slice
from stablax._src.op_rules import batch_rules, def_op

TARGET_PREFIX = "stablax.linalg."
PARAMS_ATTRIBUTE = "stablax.params"


def op_name(name: str) -> str:
    """The rule-table key of decomposition `name`."""
    return f"stablehlo.custom_call:{TARGET_PREFIX}{name}"


CHOLESKY, LU, QR, EIGH = op_name("cholesky"), op_name("lu"), op_name("qr"), op_name("eigh")
SVD, EIG, TRIANGULAR_SOLVE = op_name("svd"), op_name("eig"), op_name("triangular_solve")


# --- shape rules -------------------------------------------------------------------------------


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


def _cholesky_rule(x: ShapedArray) -> ShapedArray:
    check_matrix("cholesky", x, square=True)
    return x  # a weak input stays weak, as in JAX


def _lu_rule(x: ShapedArray) -> tuple[ShapedArray, ShapedArray]:
    m, n = check_matrix("lu", x, square=False)
    return x.strip_weak_type(), ShapedArray((*x.shape[:-2], min(m, n)), np.int32)


def _qr_rule(x: ShapedArray, *, full_matrices: bool, pivoting: bool = False) -> tuple:
    m, n = check_matrix("qr", x, square=False, empty_any_float=True)
    k = m if full_matrices else min(m, n)
    batch = x.shape[:-2]
    q, r = ShapedArray((*batch, m, k), x.dtype), ShapedArray((*batch, k, n), x.dtype)
    return (q, r, ShapedArray((*batch, n), np.int32)) if pivoting else (q, r)


def _eigh_rule(x: ShapedArray, *, lower: bool) -> tuple[ShapedArray, ShapedArray]:
    check_matrix("eigh", x, square=True)
    return x.strip_weak_type(), ShapedArray(x.shape[:-1], u.real_dtype(x.dtype))


def _svd_rule(
    x: ShapedArray, *, full_matrices: bool, compute_uv: bool, gesvd: bool = False
) -> tuple:
    m, n = check_matrix("svd", x, square=False, empty_any_float=True)
    batch, k = x.shape[:-2], min(m, n)
    s = ShapedArray((*batch, k), u.real_dtype(x.dtype))
    if not compute_uv:
        return (s,)
    rows, cols = (m, n) if full_matrices else (k, k)
    return s, ShapedArray((*batch, m, rows), x.dtype), ShapedArray((*batch, cols, n), x.dtype)


def _eig_rule(
    x: ShapedArray,
    *,
    compute_left_eigenvectors: bool,
    compute_right_eigenvectors: bool,
    enable_eigvec_derivs: bool = False,
) -> tuple:
    check_matrix("eig", x, square=True)
    complex_dtype = u.complex_dtype(x.dtype)
    vectors = ShapedArray(x.shape, complex_dtype)
    outs = [ShapedArray(x.shape[:-1], complex_dtype)]
    outs += [vectors] * (int(compute_left_eigenvectors) + int(compute_right_eigenvectors))
    return tuple(outs)


def _triangular_solve_rule(
    a: ShapedArray,
    b: ShapedArray,
    *,
    left_side: bool,
    lower: bool,
    transpose_a: bool,
    conjugate_a: bool,
    unit_diagonal: bool,
) -> ShapedArray:
    name = "triangular_solve"
    # JAX's order: both ranks, then a's and b's matrix shapes, then batch sizes and dtypes.
    for x in (a, b):
        if x.ndim < 2:
            message = f"expected a matrix or a stack of matrices, got {x.str_short()}"
            raise linalg_error(name, message)
    batch_error = linalg_error(
        name,
        f"a and b must have equal ranks and batch dimensions, got {a.str_short()} "
        f"and {b.str_short()}",
    )
    if b.ndim != a.ndim:
        raise batch_error
    if a.shape[-2] != a.shape[-1]:
        raise linalg_error(name, f"expected square matrices, got {a.str_short()}", ValueError)
    solved = b.shape[-2] if left_side else b.shape[-1]
    if solved != a.shape[-1]:
        side = "rows" if left_side else "columns"
        raise linalg_error(
            name,
            f"b must have as many {side} as a has columns (left_side={left_side}), got "
            f"{a.str_short()} and {b.str_short()}",
            ValueError,
        )
    if b.shape[:-2] != a.shape[:-2]:  # JAX's class: its batching's ValueError
        raise linalg_error(
            name,
            f"a and b must have equal batch dimensions, got {a.str_short()} and {b.str_short()}",
            ValueError,
        )
    check_matrix(name, a, square=True)
    if a.dtype != b.dtype:
        raise linalg_error(
            name, f"a and b must have equal dtypes, got {a.str_short()} and {b.str_short()}"
        )
    return b.strip_weak_type()


# --- one marker op per decomposition -----------------------------------------------------------


def _param_attribute(value: bool | int) -> ir.Attribute:
    if isinstance(value, bool):
        return ir.BoolAttr.get(value)
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(value))


def marker_lowering(name: str):
    """The lowering of decomposition `name`: a `stablax.linalg.<name>` custom call whose
    boolean and integer parameters travel in its `stablax.params` dictionary."""

    def lower(operands, in_avals, out_avals, **params):
        attrs = {
            "call_target_name": ir.StringAttr.get(TARGET_PREFIX + name),
            "has_side_effect": ir.BoolAttr.get(False),
            PARAMS_ATTRIBUTE: ir.DictAttr.get({k: _param_attribute(v) for k, v in params.items()}),
        }
        op = mlir.emit(
            "stablehlo.custom_call", operands, [mlir.aval_type(a) for a in out_avals], attrs
        )
        return list(op.results)

    return lower


def decode_params(op: Any) -> dict[str, bool | int]:
    """The parameters of a decomposition op (its `stablax.params` dictionary)."""
    attr = ir.DictAttr(op.attributes[PARAMS_ATTRIBUTE])
    named = [attr[i] for i in range(len(attr))]
    return {a.name: a.attr.value for a in named}  # the attributes come typed: BoolAttr, IntegerAttr


def batch_to_front(name: str):
    # The decompositions take leading batch dimensions: the vmapped axis becomes one more.
    def rule(values, dims, *, axis_size, **params):
        moved = [bdim_at_front(x, d, axis_size) for x, d in zip(values, dims, strict=True)]
        out = bind(name, *moved, **params)
        outs = list(out) if isinstance(out, tuple) else [out]
        return outs, [0] * len(outs)

    return rule


for _name, _rule in [
    ("cholesky", _cholesky_rule),
    ("lu", _lu_rule),
    ("qr", _qr_rule),
    ("eigh", _eigh_rule),
    ("svd", _svd_rule),
    ("eig", _eig_rule),
    ("triangular_solve", _triangular_solve_rule),
]:
    def_op(op_name(_name), _rule, marker_lowering(_name), decode=decode_params)
    batch_rules[op_name(_name)] = batch_to_front(op_name(_name))


# --- public functions ---------------------------------------------------------------------------


def symmetrize(x: Any) -> Any:
    """(x + x^H) / 2: the Hermitian part, so that only a symmetric input is decomposed.

    As JAX's array arithmetic: the sum is in x's own dtype (integers wrap, booleans OR), then a
    true division by a weak 2, so a boolean or weak input gives a weak float."""
    weak = u.dtype(x) == np.bool_ or aval_of(x).weak_type
    total = ew.add(x, u.H(x))
    dtype = dtypes.to_inexact_dtype(u.dtype(x))
    if weak and dtype != u.dtype(x):  # a bool or weak int meets the weak 2: the default float
        dtype = dtypes.default_float_dtype()
    if dtype != u.dtype(x):
        total = convert_element_type(total, dtype)
    half = ew.div(total, full((), 2, dtype))
    return convert_element_type(half, dtype, weak_type=True) if weak else half


def cholesky(x: Any, *, symmetrize_input: bool = True) -> Any:
    """The lower Cholesky factor L of Hermitian positive-definite x = L L^H (NaN if it fails).

    Args:
      x: matrices of shape (..., n, n), float or complex.
      symmetrize_input: decompose (x + x^H) / 2 rather than the lower triangle of x.

    Returns:
      L of x's shape; a matrix that is not positive definite gives NaNs.
    """
    if symmetrize_input:
        x = symmetrize(x)
    return bind(CHOLESKY, x)


def lu(x: Any) -> tuple[Any, Any, Any]:
    """LU decomposition with partial pivoting: P x = L U (LAPACK getrf on CPU).

    Returns:
      `(lu, pivots, permutation)`: L below the diagonal (unit diagonal implied) and U on and
      above it; the row swaps (0-based, int32) and the row permutation they amount to.
    """
    factors, pivots = bind(LU, x)
    return factors, pivots, lu_pivots_to_permutation(pivots, u.shape(x)[-2])


def lu_pivots_to_permutation(pivots: Any, permutation_size: int) -> Any:
    """The permutation that applying the row swaps `pivots` (..., k) to range(size) produces."""
    pivots_aval = aval_of(pivots)
    # The size is checked before the dtype, in JAX's order (its shape rule runs first), and
    # compared before it must be an integer: a float too small is JAX's ValueError too.
    comparable = isinstance(permutation_size, (int, float, np.integer, np.floating))
    bound = permutation_size if comparable else operator.index(permutation_size)
    if pivots_aval.ndim >= 1 and pivots_aval.shape[-1] > bound:
        raise ValueError(
            f"lax.linalg.lu_pivots_to_permutation: {pivots_aval.shape[-1]} pivots exceed "
            f"permutation_size={permutation_size}{mlir.where_suffix()}"
        )
    size = operator.index(permutation_size)
    if pivots_aval.ndim < 1 or pivots_aval.dtype != np.int32:
        raise TypeError(
            f"lax.linalg.lu_pivots_to_permutation: pivots must be an int32 array of rank >= 1, "
            f"got {pivots_aval.str_short()}{mlir.where_suffix()}"
        )
    *batch, k = pivots_aval.shape
    shp = (*batch, size)
    nd = len(shp)
    positions = broadcasted_iota(np.int32, shp, nd - 1)
    zeros = full(shp, 0, np.int32)

    def entry(table, where):  # table[..., where[...]] spread over the last axis
        return _spread_last(reduce_sum(ew.select(where, table, zeros), (nd - 1,)), shp)

    size_grid = full(shp, size, np.int32)

    def swap(i, permutation):  # swap entries i and pivots[..., i]
        i = convert_element_type(i, np.int32)  # the loop index is int64 under x64
        start = (*(0 for _ in batch), i)
        j = _spread_last(reshape(dynamic_slice(pivots, start, (*batch, 1)), batch), shp)
        # As JAX: a negative pivot counts from the end; out of range, it reads the nearest
        # entry and its write is dropped.
        j = ew.select(ew.lt(j, zeros), ew.add(j, size_grid), j)
        j_read = ew.clamp(zeros, j, ew.sub(size_grid, full(shp, 1, np.int32)))
        at_i, at_j = ew.eq(positions, broadcast_in_dim(i, shp, ())), ew.eq(positions, j)
        value_i, value_j = entry(permutation, at_i), entry(permutation, ew.eq(positions, j_read))
        return ew.select(at_i, value_j, ew.select(at_j, value_i, permutation))

    # A loop, not k unrolled steps: an unrolled 500x500 solve took 24 s to trace and compile.
    return fori_loop(0, k, swap, positions) if k else positions


def _spread_last(v: Any, shp: tuple[int, ...]) -> Any:
    return broadcast_in_dim(v, shp, tuple(range(len(shp) - 1)))


class EigImplementation(enum.Enum):
    """Algorithm choice for `eig` (only LAPACK exists on CPU)."""

    CUSOLVER = "cusolver"
    MAGMA = "magma"
    LAPACK = "lapack"


class EighImplementation(enum.Enum):
    """Algorithm choice for `eigh` (QR on CPU; Jacobi and QDWH are accelerator-only)."""

    QR = "qr"
    JACOBI = "jacobi"
    QDWH = "qdwh"


class SvdAlgorithm(enum.Enum):
    """Algorithm choice for `svd`: DEFAULT/DIVIDE_AND_CONQUER (gesdd) or QR (gesvd) on CPU."""

    DEFAULT = "default"
    QR = "QR"
    JACOBI = "Jacobi"
    POLAR = "polar"
    DIVIDE_AND_CONQUER = "divide_and_conquer"


def qr(
    x: Any, *, pivoting: bool = False, full_matrices: bool = True, use_magma: bool | None = None
) -> tuple[Any, ...]:
    """QR decomposition x = Q R (LAPACK geqrf/geqp3 + orgqr/ungqr on CPU).

    Args:
      x: matrices of shape (..., m, n).
      pivoting: column pivoting (geqp3): x[..., :, p] = Q R with |diag(R)| non-increasing.
      full_matrices: Q of shape (..., m, m) and R (..., m, n); otherwise the reduced
        (..., m, k) and (..., k, n) with k = min(m, n).
      use_magma: ignored (a GPU option in JAX).

    Returns:
      `(q, r)`, or `(q, r, p)` with the int32 column permutation p when pivoting.
    """
    del use_magma
    return bind(QR, x, full_matrices=bool(full_matrices), pivoting=bool(pivoting))


def eigh(
    x: Any,
    *,
    lower: bool = True,
    symmetrize_input: bool = True,
    sort_eigenvalues: bool = True,
    subset_by_index: tuple[int, int] | None = None,
    implementation: EighImplementation | None = None,
) -> tuple[Any, Any]:
    """Eigendecomposition of Hermitian matrices (LAPACK syevd/heevd on CPU).

    Args:
      x: matrices of shape (..., n, n).
      lower: read the lower triangle (else the upper) when `symmetrize_input` is False.
      symmetrize_input: decompose (x + x^H) / 2.
      sort_eigenvalues: eigenvalues come in ascending order (always true here).
      subset_by_index: only None or (0, n) (all eigenpairs), as on JAX's CPU backend.
      implementation: None or `EighImplementation.QR`; Jacobi and QDWH are TPU/GPU-only.

    Returns:
      `(v, w)`: eigenvectors in the columns of v, real eigenvalues w in ascending order.
    """
    del sort_eigenvalues  # LAPACK returns them sorted
    # JAX's order: the symmetrization, the operand's shape, subset_by_index, the algorithm
    if symmetrize_input:
        x = symmetrize(x)
    _, n = check_matrix("eigh", aval_of(x), square=True)
    if subset_by_index is not None and tuple(
        sequence(subset_by_index, "subset_by_index", "lax.linalg.eigh")
    ) != (0, n):
        raise NotImplementedError("subset_by_index not supported on CPU and GPU")
    if implementation == EighImplementation.QDWH:
        raise NotImplementedError("QDWH implementation is only supported on TPU")
    if implementation == EighImplementation.JACOBI:
        raise NotImplementedError("Jacobi implementation is not supported on CPU")
    return bind(EIGH, x, lower=bool(lower))


def svd(
    x: Any,
    *,
    full_matrices: bool = True,
    compute_uv: bool = True,
    subset_by_index: tuple[int, int] | None = None,
    algorithm: SvdAlgorithm | None = None,
) -> Any:
    """Singular value decomposition x = U diag(s) V^H (LAPACK gesdd, or gesvd, on CPU).

    Args:
      x: matrices of shape (..., m, n).
      full_matrices: U (..., m, m) and V^H (..., n, n); else the reduced (..., m, k), (..., k, n).
      compute_uv: return U and V^H too, else only s.
      subset_by_index: only None or (0, min(m, n)), as on JAX's CPU backend.
      algorithm: None, DEFAULT or DIVIDE_AND_CONQUER (gesdd), QR (gesvd).

    Returns:
      `(u, s, vh)` when `compute_uv`, else `s`; s is real, descending.
    """
    aval = aval_of(x)
    if subset_by_index is not None and aval.ndim >= 2:
        rank = min(aval.shape[-2:])
        if full_matrices and not isinstance(subset_by_index, (tuple, list)):
            # JAX's first check: a non-sequence is never the whole range (0, rank)
            raise ValueError("full_matrices and subset_by_index cannot both be set")
        subset = tuple(sequence(subset_by_index, "subset_by_index", "lax.linalg.svd"))
        if full_matrices and subset != (0, rank):
            raise ValueError("full_matrices and subset_by_index cannot both be set")
        if subset != (0, rank):
            raise NotImplementedError("subset_by_index not implemented for CPU and GPU")
    if algorithm in (SvdAlgorithm.JACOBI, SvdAlgorithm.POLAR):
        raise NotImplementedError("The SVD Jacobi and Polar algorithms are not implemented on CPU.")
    outs = bind(
        SVD,
        x,
        full_matrices=bool(full_matrices),
        compute_uv=bool(compute_uv),
        gesvd=algorithm == SvdAlgorithm.QR,
    )
    if not compute_uv:
        return outs[0]
    s, left, right = outs
    return left, s, right


def eig(
    x: Any,
    *,
    compute_left_eigenvectors: bool = True,
    compute_right_eigenvectors: bool = True,
    enable_eigvec_derivs: bool = False,
    implementation: EigImplementation | None = None,
    use_magma: bool | None = None,
) -> list[Any]:
    """Eigendecomposition of general square matrices (LAPACK geev, CPU only).

    Args:
      x: matrices of shape (..., n, n).
      compute_left_eigenvectors, compute_right_eigenvectors: which eigenvectors to return.
      enable_eigvec_derivs: allow differentiating the eigenvectors (valid for distinct
        eigenvalues, under LAPACK's normalisation: unit norm, real largest component).
      implementation: None or `EigImplementation.LAPACK` on CPU.
      use_magma: deprecated alias of `implementation`.

    Returns:
      `[w]` followed by the left eigenvectors `vl` and the right eigenvectors `vr` (columns,
      unit norm) when requested; all complex.
    """
    if use_magma is not None:
        warnings.warn(
            "use_magma is deprecated, please use implementation=EigImplementation.MAGMA instead.",
            DeprecationWarning,
            stacklevel=2,
        )
        implementation = EigImplementation.MAGMA if use_magma else EigImplementation.LAPACK
    try:  # a static parameter: JAX hashes it when binding, before it looks at x
        hash(implementation)
    except TypeError:
        raise TypeError(
            "lax.linalg.eig: implementation must be an EigImplementation or None, got the "
            f"unhashable {implementation!r}{mlir.where_suffix()}"
        ) from None
    if implementation is not None and implementation != EigImplementation.LAPACK:
        # After the input's checks, as in JAX (its shape and dtype rules, then the lowering).
        _eig_rule(
            aval_of(x),
            compute_left_eigenvectors=bool(compute_left_eigenvectors),
            compute_right_eigenvectors=bool(compute_right_eigenvectors),
        )
        raise ValueError("Only the lapack implementation is supported on CPU.")
    outs = bind(
        EIG,
        x,
        compute_left_eigenvectors=bool(compute_left_eigenvectors),
        compute_right_eigenvectors=bool(compute_right_eigenvectors),
        enable_eigvec_derivs=bool(enable_eigvec_derivs),
    )
    return list(outs)


def triangular_solve(
    a: Any,
    b: Any,
    *,
    left_side: bool = False,
    lower: bool = False,
    transpose_a: bool = False,
    conjugate_a: bool = False,
    unit_diagonal: bool = False,
) -> Any:
    """Solves op(a) x = b (left_side) or x op(a) = b for triangular a (LAPACK trsm on CPU).

    op(a) is a, its transpose or its conjugate transpose (`transpose_a`, `conjugate_a`); only
    the triangle named by `lower` is read, and with `unit_diagonal` its diagonal is taken as 1.
    Both operands share their batch dimensions; b may also be one vector (rank of a minus one)
    per matrix. Linear in b.
    """
    a_aval, b_aval = aval_of(a), aval_of(b)
    conjugate_a = bool(conjugate_a) and a_aval.dtype.kind == "c"
    singleton = b_aval.ndim == a_aval.ndim - 1
    if singleton:
        if b_aval.ndim == 0 and not left_side:  # JAX's expand_dims at axis -2 fails
            raise ValueError(
                f"lax.linalg.triangular_solve: a must be a matrix or a stack of matrices and b "
                f"of rank 1 or more, got {a_aval.str_short()} and {b_aval.str_short()}"
                f"{mlir.where_suffix()}"
            )
        b = expand_dims(b, (-1 if left_side else -2,))  # JAX's negative axes
    out = bind(
        TRIANGULAR_SOLVE,
        a,
        b,
        left_side=bool(left_side),
        lower=bool(lower),
        transpose_a=bool(transpose_a),
        conjugate_a=conjugate_a,
        unit_diagonal=bool(unit_diagonal),
    )
    if singleton:
        nd = b_aval.ndim + 1
        out = squeeze(out, (nd - 1 if left_side else nd - 2,))
    return out
