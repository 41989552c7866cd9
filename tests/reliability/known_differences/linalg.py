"""Rules for jnp.linalg and lax.linalg: shapes, dtypes and derivatives of the factorizations."""

from __future__ import annotations

import re

from tests.reliability.known_differences._shared import (
    Rule,
    _error,
    _given,
    _has_dtype,
    _special_values,
    _value_difference,
)


def _half_precision_linalg(call, ours, theirs, difference) -> bool:
    """stablax computes float16/bfloat16 factorizations and real FFTs in float32 and casts
    back, where JAX raises (LAPACK and its RFFT have no half precision); for the determinants of
    matrices with infinite or NaN entries, that LU (LAPACK's, as NumPy's) pivots differently
    from JAX's half-precision one, and stablax gives NumPy's sign and logarithm. stablax's QR
    rejects half precision whatever the size; JAX returns the empty factors of an empty matrix
    without reaching LAPACK (and raises NotImplementedError for any other)."""
    fn = call["fn"]
    linalg = fn.startswith(("jnp.linalg.", "lax.linalg.", "jnp.fft.")) or fn in ("lax.fft",)
    half = _has_dtype(call, "float16", "bfloat16")
    if fn == "jnp.linalg.qr" and half and _error(ours):  # JAX: empty factors of an empty one
        return (
            "lax.linalg.qr: expected float32, float64, complex64 or complex128" in ours["message"]
        )
    if fn in ("jnp.linalg.slogdet", "jnp.linalg.det") and half and _special_values(call):
        return _value_difference(difference)
    return linalg and half and difference[0] == "diverge-accepts"


def _non_square_hermitian(call, ours, theirs, difference) -> bool:
    """eigh/eigvalsh/cholesky (and pinv/svd with hermitian=True) of a non-square (..., m, 1)
    or (..., 1, n) input: JAX's symmetrize_input adds the input to its transpose, which
    broadcasts to a square matrix, and decomposes that; stablax rejects the input, as NumPy
    (LinAlgError)."""
    hermitian = call["fn"] in ("jnp.linalg.pinv", "jnp.linalg.svd") and bool(
        call["kwargs"].get("hermitian", {}).get("py")
    )
    return (
        (
            hermitian
            or call["fn"] in ("jnp.linalg.eigh", "jnp.linalg.eigvalsh", "jnp.linalg.cholesky")
        )
        and _error(ours)
        and "must have shape [..., n, n]" in ours["message"]
        and theirs["kind"] == "value"
    )


def _lstsq_numpy_residuals(call, ours, theirs, difference) -> bool:
    """lstsq's empty residuals: JAX's are jnp.asarray([]) in the default float type, stablax's
    have the solution's real dtype (as NumPy's); and with numpy_resid under jit, JAX needs a
    concrete rank even when a has no more rows than columns, where the residuals are empty
    whatever the rank (stablax needs it only for overdetermined systems)."""
    if call["fn"] != "jnp.linalg.lstsq" or len(ours.get("value", {}).get("seq", ())) < 2:
        return False
    empty_residuals = ours["value"]["seq"][1]["shape"] == [0]
    if difference[0] == "diverge-dtype":
        return empty_residuals and difference[1].startswith("[1]:")
    return (
        empty_residuals
        and _error(theirs)
        and theirs["type"] == "TracerBoolConversionError"
        and bool(call["kwargs"].get("numpy_resid", {}).get("py"))
    )


def _eig_of_a_vector(call, ours, theirs, difference) -> bool:
    """eig of a per-example vector: stablax refuses it (TypeError, as JAX's eig outside
    transforms); JAX's eig under vmap takes the batch axis for a matrix axis and returns the
    eigenpairs of the whole batch, and under grad its JVP rule refuses eigenvector
    derivatives (NotImplementedError) before it looks at the shape."""
    if call["fn"] != "jnp.linalg.eig" or not _error(ours):
        return False
    if "argument must have shape [..., n, n]" not in ours["message"]:
        return False
    if call["mode"] == "vmap" and theirs["kind"] == "value":
        return True
    return _error(theirs) and "Derivatives of non-symmetric eigenvectors" in theirs["message"]


def _eig_grad_first(call, ours, theirs, difference) -> bool:
    """lax.linalg.eig (or jnp.linalg.eig) under grad of a bad input (a bfloat16 matrix):
    stablax checks the input (or the unsupported implementation) first; JAX's JVP rule first
    refuses eigenvector derivatives without enable_eigvec_derivs (NotImplementedError)."""
    return (
        call["fn"] in ("lax.linalg.eig", "jnp.linalg.eig")
        and call["mode"] == "grad"
        and _error(ours)
        and ours["type"] in ("TypeError", "ValueError")
        and _error(theirs)
        and theirs["message"].startswith("Derivatives of non-symmetric eigenvectors")
    )


def _eigh_integer_symmetrize(call, ours, theirs, difference) -> bool:
    """lax.linalg.eigh of an integer matrix: JAX symmetrizes (x + x^H) / 2 adding in the
    integer dtype, which wraps around (int16 -31239 + -8729), and decomposes that; stablax
    converts to float first, giving the eigenpairs of the matrix converted to float (JAX's own
    answer for the float matrix)."""
    return (
        call["fn"] == "lax.linalg.eigh"
        and _value_difference(difference)
        and call["kwargs"].get("symmetrize_input", {}).get("py", True) is not False
        and call["args"][0].get("dtype", "").startswith(("int", "uint"))
    )


def _vector_norm_integer_orders(call, ours, theirs, difference) -> bool:
    """jnp.linalg.vector_norm of an integer or bool input with ord 0 or a p other than 1 and 2:
    stablax computes in the float type, as NumPy (a count for ord=0, (sum |x|**p)**(1/p)
    otherwise); JAX 0.10.2 takes finfo of the integer type for ord=0 (ValueError "not
    inexact") and raises to the powers p and 1/p in the integer type, 1/p truncated to 0, so
    every norm is 1 (or TypeError for negative p, OverflowError for unsigned ones)."""
    if call["fn"] != "jnp.linalg.vector_norm" or not call["args"]:
        return False
    arg = call["args"][0]
    integer = arg.get("dtype", "").startswith(("int", "uint", "bool")) or (
        isinstance(arg.get("py"), (bool, int)) and "dtype" not in arg
    )
    order = call["kwargs"].get("ord", {}).get("py")
    jax_artefact = (
        _error(theirs)
        and (
            "not inexact" in theirs["message"]
            or "Integers cannot be raised to negative powers" in theirs["message"]
            or bool(re.search(r"Python integer -\d+ out of bounds for uint", theirs["message"]))
        )
    ) or (
        difference[0] == "diverge-dtype" and "int" in (theirs.get("value") or {}).get("dtype", "")
    )
    return integer and isinstance(order, int) and order not in (1, 2) and jax_artefact


def _lstsq_empty_complex_singular_values(call, ours, theirs, difference) -> bool:
    """lstsq of an empty complex matrix: JAX's singular values take the matrix's complex dtype
    (its empty shortcut), while its nonempty ones, NumPy's and stablax's are real."""
    return (
        call["fn"] == "jnp.linalg.lstsq"
        and difference[0] == "diverge-dtype"
        and bool(re.match(r"\[3\]: stablax float(32|64) vs JAX complex(64|128)$", difference[1]))
    )


def _tensorsolve_axes_order(call, ours, theirs, difference) -> bool:
    """tensorsolve with `axes` out of ascending order: JAX's moveaxis to one repeated
    destination moves them to the end in ascending order, NumPy (and stablax) in the order
    given, so JAX may refuse a system NumPy solves."""
    axes = call["kwargs"].get("axes", {}).get("tuple")
    values = [a.get("py") for a in axes or []]
    return (
        call["fn"] == "jnp.linalg.tensorsolve"
        and bool(values)
        and values != sorted(values)
        and _error(theirs)
        and "After moving axes to end" in theirs["message"]
        and not _error(ours)
    )


def _svd_of_non_finite(call, ours, theirs, difference) -> bool:
    """The SVD of a matrix holding an infinity or NaN: stablax returns NaN in every output
    (LAPACK's gesdd can hang on such input, so stablax never hands it one); JAX returns what
    LAPACK left, NaN in places and stray zeros and ones elsewhere (NumPy raises LinAlgError)."""
    return (
        call["fn"] in ("jnp.linalg.svd", "lax.linalg.svd")
        and _special_values(call)
        and _value_difference(difference)
        and ": nan vs JAX" in difference[1]
    )


def _batched_square_check(call, ours, theirs, difference) -> bool:
    """lax.linalg.householder_product and jnp.linalg.eig under vmap of an operand whose
    examples are 1-D: stablax checks each example's rank (TypeError, as JAX does without vmap);
    JAX's batching checks the batched operand's rows against its columns (ValueError quoting
    the batched shape)."""
    return (
        call["fn"] in ("lax.linalg.householder_product", "jnp.linalg.eig")
        and bool(call["batch"])
        and _error(ours)
        and ours["type"] == "TypeError"
        and bool(
            re.search(
                r"must have rank at least 2|must have shape \[\.\.\., n, n\], got \(\d+,\)",
                ours["message"],
            )
        )
        and _error(theirs)
        and bool(
            re.search(
                r"at least as many rows as columns|must be a square matrix", theirs["message"]
            )
        )
    )


def _eigh_unsymmetrized_grad(call, ours, theirs, difference) -> bool:
    """The gradient of lax.linalg.eigh with symmetrize_input=False: eigh reads one triangle, so
    stablax's slope is zero on the other (finite differences agree); JAX differentiates as if
    the matrix were symmetric and gives the unread triangle a slope too."""
    flag = call["kwargs"].get("symmetrize_input")
    return (
        call["fn"] == "lax.linalg.eigh"
        and call["mode"] == "grad"
        and isinstance(flag, dict)
        and flag.get("py") is False
        and _value_difference(difference)
    )


def _pinv_rtol_beyond_the_batch(call, ours, theirs, difference) -> bool:
    """pinv with an rtol that does not broadcast to the matrices' batch shape: stablax raises
    ValueError, as NumPy does; JAX 0.10.2 broadcasts the cutoff against the singular values and
    returns a result of more dimensions than the input (zeros for ones((3, 1, 3, 1)) with
    rtol=ones(4))."""
    return (
        call["fn"] == "jnp.linalg.pinv"
        and _error(ours)
        and "does not broadcast to the batch shape" in ours["message"]
    )


def _pinv_truncated_derivative(call, ours, theirs, difference) -> bool:
    """The derivative of pinv where rtol cuts off a nonzero singular value: stablax
    differentiates the truncated pseudo-inverse it computes (its gradient matches central
    differences of NumPy's pinv with that cutoff: 0.0113608 for seed 3811's 4x3 matrix with
    rtol=0.5); JAX 0.10.2 applies the constant-rank Moore-Penrose formula to the truncated
    result, which is not that function's derivative when the matrix has more rank (0.0112144)."""
    rtol = _given(call, 1, "rtol")
    return (
        call["fn"] == "jnp.linalg.pinv"
        and call["mode"] == "grad"
        and isinstance(rtol, dict)
        and rtol.get("py") is not None
        and _value_difference(difference)
    )


RULES: list[Rule] = [
    ("pinv-truncated-derivative", _pinv_truncated_derivative, _pinv_truncated_derivative.__doc__),
    (
        "pinv-rtol-beyond-the-batch",
        _pinv_rtol_beyond_the_batch,
        _pinv_rtol_beyond_the_batch.__doc__,
    ),
    ("eigh-unsymmetrized-grad", _eigh_unsymmetrized_grad, _eigh_unsymmetrized_grad.__doc__),
    (
        "batched-square-check",
        _batched_square_check,
        _batched_square_check.__doc__,
    ),
    ("non-square-hermitian", _non_square_hermitian, _non_square_hermitian.__doc__),
    ("half-precision-linalg", _half_precision_linalg, _half_precision_linalg.__doc__),
    ("lstsq-numpy-residuals", _lstsq_numpy_residuals, _lstsq_numpy_residuals.__doc__),
    ("eig-of-a-vector", _eig_of_a_vector, _eig_of_a_vector.__doc__),
    ("svd-of-non-finite", _svd_of_non_finite, _svd_of_non_finite.__doc__),
    ("eig-grad-first", _eig_grad_first, _eig_grad_first.__doc__),
    ("eigh-integer-symmetrize", _eigh_integer_symmetrize, _eigh_integer_symmetrize.__doc__),
    (
        "vector-norm-integer-orders",
        _vector_norm_integer_orders,
        _vector_norm_integer_orders.__doc__,
    ),
    (
        "lstsq-empty-complex-singular-values",
        _lstsq_empty_complex_singular_values,
        _lstsq_empty_complex_singular_values.__doc__,
    ),
    (
        "tensorsolve-axes-order",
        _tensorsolve_axes_order,
        _tensorsolve_axes_order.__doc__,
    ),
]
