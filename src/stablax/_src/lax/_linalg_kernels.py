"""The backend kernels behind the linalg ops (LAPACK FFI calls on CPU, XLA's own ops elsewhere),
and `kernel_expansion`: each op's `stablax.linalg.*` call, kept while its function is transformed,
is replaced right before compilation by its kernel, a lax function traced and inlined in place."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from stablax._src import core, ir_passes, runtime
from stablax._src import ir as mlir
from stablax._src.avals import ShapedArray
from stablax._src.bodies import expand_in_place
from stablax._src.core import Tracer
from stablax._src.ir import ir
from stablax._src.lax import _elementwise as ew
from stablax._src.lax import _elementwise_unary as unary
from stablax._src.lax import _linalg_util as u
from stablax._src.lax._linalg_markers import decode_params
from stablax._src.lax._reduce_monoids import reduce_and
from stablax._src.lax._shapes import broadcast_in_dim, full
from stablax._src.lax._slice_pad import pad
from stablax._src.lax._slice_pad import slice as lax_slice

# --- emitting one LAPACK FFI call --------------------------------------------------------------

_LAPACK_PREFIX = {
    np.dtype(np.float32): "s",
    np.dtype(np.float64): "d",
    np.dtype(np.complex64): "c",
    np.dtype(np.complex128): "z",
}


def lapack_target(routine: str, dtype: np.dtype) -> str:
    """`lapack_spotrf_ffi` for ("potrf", float32); complex routines use their own names."""
    return f"lapack_{_LAPACK_PREFIX[np.dtype(dtype)]}{routine}_ffi"


def _layout(rank: int, matrix: bool) -> ir.Attribute:
    # Matrices are column-major within each matrix, batch dimensions outermost; vectors and
    # scalars are row-major.
    if matrix:
        order = (rank - 2, rank - 1, *range(rank - 3, -1, -1))
    else:
        order = tuple(range(rank - 1, -1, -1))
    return ir.DenseIntElementsAttr.get(np.asarray(order, np.int64), type=ir.IndexType.get())


def _attribute(value: str | bool | int) -> ir.Attribute:
    # One character: an unsigned byte (LAPACK's option letters); bool: i1; int: i32.
    if isinstance(value, str):
        return ir.IntegerAttr.get(ir.IntegerType.get_unsigned(8), ord(value))
    if isinstance(value, bool):
        return ir.BoolAttr.get(value)
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(32), int(value))


def ffi_call(
    target: str,
    operands: Sequence[Any],
    out_avals: Sequence[ShapedArray],
    matrices: Sequence[bool],
    **config: str | bool | int,
) -> list[Tracer]:
    """One typed-FFI custom call in the current trace; `matrices` flags operands then results
    that are (stacks of) matrices, `config` the kernel's attributes (one-character options,
    booleans, int32 values)."""
    runtime.ensure_cpu_lapack_targets()
    trace = core.current_trace()
    tracers = [core.to_tracer(trace, x) for x in operands]
    n_in = len(tracers)
    layouts = [
        _layout(a.ndim, m)
        for a, m in zip([t.aval for t in tracers] + list(out_avals), matrices, strict=True)
    ]
    attrs = {
        "call_target_name": ir.StringAttr.get(target),
        "api_version": mlir.i32(1),
        "backend_config": ir.StringAttr.get(""),
        "has_side_effect": ir.BoolAttr.get(False),
        "operand_layouts": ir.ArrayAttr.get(layouts[:n_in]),
        "result_layouts": ir.ArrayAttr.get(layouts[n_in:]),
        "mhlo.backend_config": ir.DictAttr.get({k: _attribute(v) for k, v in config.items()}),
    }
    op = mlir.emit(
        "stablehlo.custom_call",
        [t.value for t in tracers],
        [mlir.aval_type(a) for a in out_avals],
        attrs,
    )
    return [Tracer(trace, a, r) for a, r in zip(out_avals, op.results, strict=True)]


def info_ok(info: Any) -> Any:
    return ew.eq(info, full(u.shape(info), 0, np.int32))


def batch_info(x: Any) -> ShapedArray:
    return ShapedArray(u.shape(x)[:-2], np.int32)


# --- CPU implementations -----------------------------------------------------------------------


def _cpu_cholesky(x):
    if aval_size(x) == 0:
        return [x]
    factor, info = ffi_call(
        lapack_target("potrf", u.dtype(x)),
        [x],
        [core_aval(x), batch_info(x)],
        [True, True, False],
        uplo="L",
    )
    return [u.tril(u.where_ok(info_ok(info), factor))]  # NaN triangle, zeros above, as JAX


def _cpu_lu(x):
    *batch, m, n = u.shape(x)
    k = min(m, n)
    if k == 0:
        return [x, full((*batch, 0), 0, np.int32)]
    pivots = ShapedArray((*batch, k), np.int32)
    factors, ipiv, _ = ffi_call(
        lapack_target("getrf", u.dtype(x)),
        [x],
        [core_aval(x), pivots, batch_info(x)],
        [True, True, False, False],
    )
    return [factors, ew.sub(ipiv, full(pivots.shape, 1, np.int32))]  # LAPACK counts from 1


def geqrf_kernel(a, *, pivoting):
    """geqrf, or geqp3 with column pivoting: LAPACK's packed QR (R on and above the diagonal, the
    Householder reflectors below) and the reflectors' scales, then, with pivoting, the column
    permutation (counted from 0)."""
    *batch, m, n = u.shape(a)
    dt, k = u.dtype(a), min(m, n)
    taus = ShapedArray((*batch, k), dt)
    if k == 0:
        outs = [a, full(taus.shape, 0, dt)]
        return outs + [full((*batch, n), 0, np.int32)] if pivoting else outs
    if not pivoting:
        return ffi_call(lapack_target("geqrf", dt), [a], [core_aval(a), taus], [True, True, False])
    columns = ShapedArray((*batch, n), np.int32)
    packed, jpvt, tau = ffi_call(
        lapack_target("geqp3", dt),
        [a, full(columns.shape, 0, np.int32)],
        [core_aval(a), columns, taus],
        [True, False, True, False, False],
    )
    return [packed, tau, ew.sub(jpvt, full(columns.shape, 1, np.int32))]  # geqp3 counts from 1


def _cpu_qr(x, *, full_matrices, pivoting=False):
    *batch, m, n = u.shape(x)
    k, dt, nd = min(m, n), u.dtype(x), len(u.shape(x))
    batch = tuple(batch)
    q_cols = m if full_matrices else k
    if k == 0:  # Q is the identity's first columns, R empty
        outs = [u.eye(m, dt, batch, q_cols), full((*batch, q_cols, n), 0, dt)]
        return outs + [full((*batch, n), 0, np.int32)] if pivoting else outs
    packed, tau, *permutation = geqrf_kernel(x, pivoting=pivoting)
    r = u.triu(lax_slice(packed, (0,) * nd, (*batch, q_cols, n)))
    if q_cols > n:  # full Q of a tall matrix: pad the reflectors with columns
        reflectors = pad(packed, full((), 0, dt), [(0, 0, 0)] * (nd - 1) + [(0, q_cols - n, 0)])
    else:
        reflectors = lax_slice(packed, (0,) * nd, (*batch, m, q_cols))
    return [householder_product_kernel(reflectors, tau), r, *permutation]


def householder_product_kernel(reflectors, taus):
    """orgqr/ungqr: the product of the elementary reflectors below the diagonal."""
    dt = u.dtype(reflectors)
    routine = "ungqr" if dt.kind == "c" else "orgqr"
    (q,) = ffi_call(
        lapack_target(routine, dt),
        [reflectors, taus],
        [core_aval(reflectors)],
        [True, False, True],
    )
    return q


def _cpu_eigh(x, *, lower):
    n = u.shape(x)[-1]
    if n == 0:
        return [x, full(u.shape(x)[:-1], 0, u.real_dtype(u.dtype(x)))]
    dt = u.dtype(x)
    routine = "heevd" if dt.kind == "c" else "syevd"
    w_aval = ShapedArray(u.shape(x)[:-1], u.real_dtype(dt))
    v, w, info = ffi_call(
        lapack_target(routine, dt),
        [x],
        [core_aval(x), w_aval, batch_info(x)],
        [True, True, False, False],
        mode="V",
        uplo="L" if lower else "U",
    )
    ok = info_ok(info)
    return [u.where_ok(ok, v), u.where_ok(ok, w)]


def _all_finite_per_matrix(x):
    """Per matrix (shape batch): whether every entry is finite."""
    entries = unary.is_finite(unary.real(x)) if u.is_complex(x) else unary.is_finite(x)
    if u.is_complex(x):
        entries = ew.bitwise_and(entries, unary.is_finite(unary.imag(x)))
    return reduce_and(entries, (len(u.shape(x)) - 2, len(u.shape(x)) - 1))


def _zeros_where_not_finite(finite, x):
    """x, with every matrix that holds an inf or NaN replaced by zeros.

    LAPACK's gesdd/gesvd can loop forever on such a matrix (a (4, 4) float32 one with -inf and
    inf entries never returns); the caller reports NaN for those matrices instead, as NumPy's
    non-convergence and JAX's newer releases do.
    """
    mask = broadcast_in_dim(finite, u.shape(x), tuple(range(len(u.shape(finite)))))
    return ew.select(mask, x, full(u.shape(x), 0, u.dtype(x)))


def _cpu_svd(x, *, full_matrices, compute_uv, gesvd=False):
    *batch, m, n = u.shape(x)
    k, dt = min(m, n), u.dtype(x)
    batch = tuple(batch)
    if k == 0:
        s = full((*batch, 0), 0, u.real_dtype(dt))
        if not compute_uv:
            return [s]
        if full_matrices:
            return [s, u.eye(m, dt, batch), u.eye(n, dt, batch)]
        return [s, full((*batch, m, 0), 0, dt), full((*batch, 0, n), 0, dt)]
    rows, cols = (m, n) if full_matrices else (k, k)
    avals = [
        core_aval(x),
        ShapedArray((*batch, k), u.real_dtype(dt)),
        ShapedArray((*batch, m, rows), dt),
        ShapedArray((*batch, cols, n), dt),
        ShapedArray(batch, np.int32),
    ]
    mode = "N" if not compute_uv else ("A" if full_matrices else "S")
    finite = _all_finite_per_matrix(x)
    _, s, left, right, info = ffi_call(
        lapack_target("gesvd" if gesvd else "gesdd", dt),
        [_zeros_where_not_finite(finite, x)],
        avals,
        [True, True, False, True, True, False],
        mode=mode,
    )
    ok = ew.bitwise_and(info_ok(info), finite)
    if not compute_uv:
        return [u.where_ok(ok, s)]
    return [u.where_ok(ok, s), u.where_ok(ok, left), u.where_ok(ok, right)]


def _cpu_eig(x, *, compute_left_eigenvectors, compute_right_eigenvectors, **_):
    shp, dt = u.shape(x), u.dtype(x)
    cdt = u.complex_dtype(dt)
    if shp[-1] == 0:
        outs = [full(shp[:-1], 0, cdt)]
        return outs + [full(shp, 0, cdt)] * (compute_left_eigenvectors + compute_right_eigenvectors)
    values = [ShapedArray(shp[:-1], dt)] * (2 if dt.kind == "f" else 1)
    vectors = ShapedArray(shp, cdt)
    results = ffi_call(
        lapack_target("geev", dt),
        [x],
        [*values, vectors, vectors, batch_info(x)],
        [True] + [False] * len(values) + [True, True, False],
        compute_left="V" if compute_left_eigenvectors else "N",
        compute_right="V" if compute_right_eigenvectors else "N",
    )
    *w, left, right, info = results
    w = ew.complex(w[0], w[1]) if len(w) == 2 else w[0]
    ok = info_ok(info)
    outs = [u.where_ok(ok, w)]
    if compute_left_eigenvectors:
        outs.append(u.where_ok(ok, left))
    if compute_right_eigenvectors:
        outs.append(u.where_ok(ok, right))
    return outs


def _cpu_triangular_solve(a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
    if aval_size(b) == 0:
        return [b]
    if conjugate_a and not transpose_a:  # trsm conjugates only together with transposing
        a, conjugate_a = u.conj(a), False
    (x,) = ffi_call(
        lapack_target("trsm", u.dtype(a)),
        [a, b],
        [core_aval(b)],
        [True, True, True],
        side="L" if left_side else "R",
        uplo="L" if lower else "U",
        trans_x="C" if conjugate_a else ("T" if transpose_a else "N"),
        diag="U" if unit_diagonal else "N",
    )
    return [x]


def core_aval(x: Any) -> ShapedArray:
    return ShapedArray(u.shape(x), u.dtype(x))


def aval_size(x: Any) -> int:
    return int(np.prod(u.shape(x), dtype=np.int64))


# --- other backends: XLA's own ops where StableHLO has one -------------------------------------


def _xla_cholesky(x):
    op = mlir.emit(
        "stablehlo.cholesky",
        [_value(x)],
        [mlir.aval_type(core_aval(x))],
        {"lower": ir.BoolAttr.get(True)},
    )
    return [u.tril(Tracer(core.current_trace(), core_aval(x), op.result))]


def _xla_triangular_solve(a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
    transpose = (
        "ADJOINT"
        if transpose_a and conjugate_a
        else ("TRANSPOSE" if transpose_a else "NO_TRANSPOSE")
    )
    if conjugate_a and not transpose_a:
        a = u.conj(a)
    op = mlir.emit(
        "stablehlo.triangular_solve",
        [_value(a), _value(b)],
        [mlir.aval_type(core_aval(b))],
        {
            "left_side": ir.BoolAttr.get(left_side),
            "lower": ir.BoolAttr.get(lower),
            "unit_diagonal": ir.BoolAttr.get(unit_diagonal),
            "transpose_a": ir.Attribute.parse(f"#stablehlo<transpose {transpose}>"),
        },
    )
    return [Tracer(core.current_trace(), core_aval(b), op.result)]


def _value(x: Any) -> Any:
    return core.to_tracer(core.current_trace(), x).value


# --- the expansion pass ------------------------------------------------------------------------


Kernel = Callable[..., list[Any]]

# The GPU solver kernels (cusolver/hipsolver) are not wired yet: those decompositions raise a
# NotImplementedError naming the kernel.
_MISSING_GPU_KERNELS = {
    "lu": "solver_getrf_ffi",
    "qr": "solver_geqrf_ffi + solver_orgqr_ffi",
    "eigh": "solver_syevd_ffi",
    "svd": "solver_gesvdj_ffi",
    "eig": "geev (hybrid)",
}


def _kernel(name: str, kernels: Mapping[str, Kernel], platform: str) -> Kernel:
    kernel = kernels.get(platform)
    if kernel is None:
        prefix = {"cuda": "cu", "rocm": "hip"}.get(platform, platform)
        missing = _MISSING_GPU_KERNELS.get(name, "?")
        raise NotImplementedError(
            f"lax.linalg.{name} has no kernel on backend {platform!r} in stablax yet "
            f"(it needs {prefix}{missing} on GPU)"
        )
    return kernel


def kernel_expansion(name: str, kernels: Mapping[str, Kernel]) -> ir_passes.Expansion:
    """How a `stablax.linalg.<name>` custom call (in a module being compiled) is replaced by the
    kernel of the default backend; `kernels`: platform -> kernel."""

    def expand(operation: Any) -> None:
        impl = _kernel(name, kernels, runtime.default_backend())
        params = decode_params(operation)

        def kernel(*xs):
            return impl(*xs, **params)

        expand_in_place(operation, kernel, f"linalg_{name}", f"{name} kernel")

    return expand


# Other backends get XLA's own ops where StableHLO has one.
_XLA = ("cuda", "rocm", "tpu")
EXPANSIONS = {
    "cholesky": kernel_expansion(
        "cholesky", {"cpu": _cpu_cholesky, **dict.fromkeys(_XLA, _xla_cholesky)}
    ),
    "lu": kernel_expansion("lu", {"cpu": _cpu_lu}),
    "qr": kernel_expansion("qr", {"cpu": _cpu_qr}),
    "eigh": kernel_expansion("eigh", {"cpu": _cpu_eigh}),
    "svd": kernel_expansion("svd", {"cpu": _cpu_svd}),
    "eig": kernel_expansion("eig", {"cpu": _cpu_eig}),
    "triangular_solve": kernel_expansion(
        "triangular_solve",
        {"cpu": _cpu_triangular_solve, **dict.fromkeys(_XLA, _xla_triangular_solve)},
    ),
}
