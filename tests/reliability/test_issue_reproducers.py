"""Every reproducer of the reliability issue, with JAX 0.10.2's answer (or NumPy's, where JAX's
is an artefact of XLA) as the expected outcome.

Crashes run in a child process (one for all of them), so a regression fails the test instead of
killing the test run; the rest run here, table-driven: (id, call, expected value or exception).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import ml_dtypes
import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax import lax

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# (id, expression, expected repr of np.asarray(result).tolist() or the exception class name)
_CRASHES = [
    ("C1 complex order under jit", "jax.jit(lambda: jnp.greater(1+2j, float('inf')))()", False),
    ("C2 nonzero", "jnp.nonzero(jnp.zeros((0,)), size=3)[0]", [0, 0, 0]),
    ("C2 argwhere", "jnp.argwhere(jnp.zeros((0,)), size=3)", [[0], [0], [0]]),
    ("C2 flatnonzero", "jnp.flatnonzero(jnp.zeros((0, 2)), size=2)", [0, 0]),
    ("C2 where", "jnp.where(jnp.zeros((2, 0)), size=2)[1]", [0, 0]),
    ("C3 igamma", "lax.igamma(jnp.zeros((0,)), jnp.zeros((0,)))", []),
    ("C3 igammac jit", "jax.jit(lax.igammac)(jnp.zeros((0,)), jnp.zeros((0,)))", []),
    ("C3 igamma_grad_a", "lax.igamma_grad_a(jnp.zeros((0, 2)), jnp.zeros((0, 2)))", []),
    ("C3 random_gamma_grad", "lax.random_gamma_grad(jnp.zeros((0,)), jnp.zeros((0,)))", []),
    (
        "C3 igamma vmap",
        "jax.vmap(lax.igamma)(jnp.zeros((2, 0)), jnp.zeros((2, 0)))",
        [[], []],
    ),
    ("C3 igamma grad", "jax.grad(lambda a: lax.igamma(a, a).sum())(jnp.zeros((0,)))", []),
    (
        "C3 empty while",
        "lax.while_loop(lambda c: jnp.any(c > 0), lambda c: c - 1, jnp.ones(0))",
        [],
    ),
    ("C4 reciprocal(0) jit", "jax.jit(lambda: lax.reciprocal(0))()", "TypeError"),
    ("C4 reciprocal(0)", "lax.reciprocal(0)", "TypeError"),
    (
        "C4 integer_pow jit",
        "jax.jit(lambda: lax.integer_pow(jnp.zeros(2, jnp.int32), -1))()",
        "TypeError",
    ),
    ("C5 bytes shape", "jnp.zeros(b'ab')", "TypeError"),
    ("C5 bytes shape ones", "jnp.ones(b'bytes')", "TypeError"),
    ("int mean of nothing", "jnp.mean(jnp.zeros((0,), jnp.int32), dtype=jnp.int32)", "ValueError"),
    (
        "int nanmean of nothing",
        "jnp.nanmean(jnp.zeros((0,), jnp.int32), dtype=jnp.int32)",
        "ValueError",
    ),
    ("constant x / 0", "jax.jit(lambda: lax.div(jnp.ones(3, jnp.int32), 0))()", [-1, -1, -1]),
    ("constant x % 0", "jax.jit(lambda: lax.rem(jnp.arange(3), 0))()", [0, 1, 2]),
    # NumPy's 0 (JAX's 255 is XLA's unsigned x / 0, as W4's floor_divide).
    ("constant x // 0", "jax.jit(lambda: jnp.ones(2, jnp.uint8) // 0)()", [0, 0]),
    ("hfft n=2**63", "jnp.fft.hfft(jnp.ones(3), n=2**63)", "ValueError"),
    ("diagflat 2**31", "jnp.diagflat(jnp.ones(2), 2**31)", "ValueError"),
    # XLA's RNG expander aborts on 8/16-bit integers (JAX's process dies); 16-bit floats work.
    ("rng_uniform int8", "lax.rng_uniform(jnp.int8(2), jnp.int8(5), ())", "TypeError"),
    (
        "rng_uniform uint16 jit",
        "jax.jit(lambda a: lax.rng_uniform(a, a, (2,)))(jnp.uint16(2))",
        "TypeError",
    ),
    ("rng_uniform bfloat16", "lax.rng_uniform(jnp.bfloat16(2), jnp.bfloat16(2), ())", 2.0),
]

_CHILD = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import stablax as jax, stablax.numpy as jnp
    from stablax import lax
    for name, expression in json.loads(sys.stdin.read()):
        print(json.dumps(["start", name]), flush=True)
        try:
            out = np.asarray(eval(expression)).tolist()
        except Exception as error:
            out = type(error).__name__
        print(json.dumps(["done", name, out]), flush=True)
    """
)


def test_crash_reproducers_run_and_answer_as_jax():
    cases = [(name, expression) for name, expression, _ in _CRASHES]
    env = dict(os.environ, PYTHONPATH=os.path.join(_ROOT, "src"))
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("[")]
    finished = {line[1]: line[2] for line in lines if line[0] == "done"}
    started = [line[1] for line in lines if line[0] == "start"]
    assert proc.returncode == 0, (
        f"the process died ({proc.returncode}) in {started[-1] if started else '?'}: "
        f"{proc.stderr[-2000:]}"
    )
    wrong = {
        name: (finished.get(name), expected)
        for name, _, expected in _CRASHES
        if finished.get(name) != expected
    }
    assert not wrong, wrong


def _x64(call):
    with stablax.enable_x64():
        return call()


def _value(x):
    return np.asarray(x).tolist()


# (id, call, expected value or exception class)
_CASES = [
    (
        "C1 less_equal complex",
        lambda: jnp.less_equal(jnp.array([1 + 2j]), jnp.array([1 + 1j])),
        [False],
    ),
    (
        "C1 greater_equal complex",
        lambda: jnp.greater_equal(jnp.array([1 + 0j]), jnp.array([1 + 1j])),
        [False],
    ),
    (
        "C1 lax.lt complex",
        lambda: lax.lt(jnp.ones(2, jnp.complex64), jnp.ones(2, jnp.complex64)),
        TypeError,
    ),
    ("E1 trunc of np.int64 under jit", lambda: stablax.jit(lambda: jnp.trunc(np.int64(-3)))(), -3),
    ("E1 abs of a list", lambda: jnp.abs([1, 2]), TypeError),
    ("E1 sign of None", lambda: jnp.sign(None), TypeError),
    ("E2 eye(-1)", lambda: jnp.eye(-1), ValueError),
    ("E2 tri(-2)", lambda: jnp.tri(-2), TypeError),
    ("E2 identity(-1)", lambda: jnp.identity(-1), ValueError),
    ("E2 indices((-1, 2))", lambda: jnp.indices((-1, 2)), TypeError),
    ("E2 iota(int32, -1)", lambda: lax.iota(jnp.int32, -1), TypeError),
    ("E2 eye(2, -1)", lambda: jnp.eye(2, -1), ValueError),
    ("E2 tril_indices(-1)", lambda: jnp.tril_indices(-1), TypeError),
    ("E3 iota(bool)", lambda: lax.iota(bool, 3), TypeError),
    (
        "E4 bitcast complex",
        lambda: lax.bitcast_convert_type(jnp.ones(2, jnp.complex64), jnp.uint8),
        TypeError,
    ),
    (
        "E4 bitcast to bool",
        lambda: lax.bitcast_convert_type(jnp.ones(2, jnp.bfloat16), bool),
        TypeError,
    ),
    ("E5 device_put('cpu')", lambda: stablax.device_put(jnp.ones(2), "cpu"), ValueError),
    ("E5 eye(device=2)", lambda: jnp.eye(3, device=2), ValueError),
    ("E6 column_stack 0-d", lambda: jnp.column_stack(jnp.ones(())), ValueError),
    ("E6 hstack 0-d", lambda: jnp.hstack(jnp.ones(())), ValueError),
    ("E6 vstack 0-d", lambda: jnp.vstack(jnp.ones(())), ValueError),
    ("E6 dstack 0-d", lambda: jnp.dstack(jnp.ones(())), ValueError),
    ("E6 multi_dot 0-d", lambda: jnp.linalg.multi_dot([jnp.ones(()), jnp.ones(())]), ValueError),
    ("E6 cumsum axis=()", lambda: jnp.cumsum(jnp.ones(3), axis=()), TypeError),
    ("E6 cumprod axis=()", lambda: jnp.cumprod(jnp.ones(3), axis=()), TypeError),
    ("E6 diff axis=()", lambda: jnp.diff(jnp.ones(3), axis=()), TypeError),
    ("E6 argmin axis=()", lambda: jnp.argmin(jnp.ones(3), axis=()), TypeError),
    ("E6 size axis=-100", lambda: jnp.size(jnp.ones(()), -100), ValueError),
    ("E6 trapezoid 0-d", lambda: jnp.trapezoid(jnp.ones(())), ValueError),
    ("E6 map over a scalar", lambda: lax.map(lambda x: x, 3), ValueError),
    (
        "E6 associative_scan axis",
        lambda: lax.associative_scan(jnp.add, jnp.ones(3), axis=5),
        ValueError,
    ),
    ("E7 vecmat of vectors", lambda: jnp.vecmat(jnp.ones(3), jnp.ones(3)), ValueError),
    ("E9 donate_argnums=5", lambda: stablax.jit(lambda x: x, donate_argnums=5), ValueError),
    ("E9 shapes that do not broadcast", lambda: jnp.ones(3) + jnp.ones(4), TypeError),
    (
        "W2 uint8 power",
        lambda: jnp.power(jnp.array([3], jnp.uint8), jnp.array([255], jnp.uint8)),
        [171],
    ),
    (
        "W3 bool linear_ramp",
        lambda: jnp.pad(jnp.array([True, True]), 2, mode="linear_ramp"),
        [False, True, True, True, True, False],
    ),
    ("W4 remainder by 0", lambda: jnp.remainder(jnp.array([5]), jnp.array([0])), [0]),
    ("W4 mod by 0", lambda: jnp.mod(jnp.array([-5]), jnp.array([0])), [0]),
    ("W4 fmod by 0", lambda: jnp.fmod(jnp.array([5]), jnp.array([0])), [0]),
    # NumPy's answer; JAX's -2 is an artefact of XLA's x / 0 = -1.
    ("W4 floor_divide by 0", lambda: jnp.floor_divide(jnp.array([7]), jnp.array([0])), [0]),
    ("W4 divmod by 0", lambda: jnp.divmod(jnp.array([5]), jnp.array([0])), [[0], [0]]),
    ("W5 conj of floats", lambda: lax.conj(jnp.ones(2)).dtype == np.complex64, True),
    (
        "W6 setdiff1d keeps ar1's dtype",
        lambda: str(jnp.setdiff1d(jnp.array([1, 2, 3], jnp.int8), np.int64(-3), size=2).dtype),
        "int8",
    ),
    (
        "W8 geomspace under jit",
        lambda: stablax.jit(lambda: jnp.geomspace(1.0, 1000.0, 4))(),
        [1.0, 10.0, 100.0, 1000.0],
    ),
    ("W9 remainder of bools", lambda: jnp.remainder(jnp.array([True]), jnp.array([True])), [0]),
    ("W9 right_shift of bools", lambda: jnp.right_shift(jnp.array([True]), jnp.array([True])), [0]),
    (
        "W9 floor_divide of bools is int32",
        lambda: str(jnp.floor_divide(jnp.array([True]), jnp.array([True])).dtype),
        "int32",
    ),
    # A Python int out of the other operand's range wraps, as in JAX (-5 is 251 in uint8).
    ("minimum(uint8, -5)", lambda: jnp.minimum(jnp.array([3, 255], jnp.uint8), -5), [3, 251]),
    ("add(uint8, -5)", lambda: jnp.add(jnp.array([3], jnp.uint8), -5), [254]),
    # Found by the fuzz; values recorded from JAX 0.10.2.
    ("lax size-1 broadcast", lambda: lax.add(jnp.ones((2, 1)), jnp.ones((1, 2))), [[2.0] * 2] * 2),
    ("lax ranks differ", lambda: lax.mul(jnp.ones((1,)), jnp.ones((4, 3))), TypeError),
    ("exp2 of complex", lambda: str(lax.exp2(jnp.ones(2, jnp.complex64)).dtype), "complex64"),
    (
        "select with int conditions",
        lambda: jnp.select([jnp.array([1, 0])], [jnp.arange(3, 5)]),
        [3, 0],
    ),
    ("poly of one root", lambda: jnp.poly(2.0), [1.0, -2.0]),
    ("diff of nothing", lambda: jnp.diff(jnp.zeros((0,))).shape, [0]),
    (
        "unique broadcasts fill_value",
        lambda: jnp.unique(jnp.array([1, 1, 2]), size=3, fill_value=jnp.array([9])),
        [1, 2, 9],
    ),
    (
        "trim_zeros under eager grad",
        lambda: stablax.grad(lambda x: jnp.trim_zeros(x).sum())(jnp.array([0.0, 1.0, 0.0])),
        [0.0, 1.0, 0.0],
    ),
    (
        "argwhere size=0 ignores fill_value",
        lambda: jnp.argwhere(jnp.ones(3), size=0, fill_value=jnp.ones(1)).shape,
        [0, 1],
    ),
    (
        "nonzero fill_value array",
        lambda: jnp.nonzero(jnp.ones(3), size=4, fill_value=jnp.ones(1)),
        ValueError,
    ),
    (
        "fftshift axes=object() under jit",
        lambda: stablax.jit(lambda x: jnp.fft.fftshift(x, axes=object()))(jnp.ones((2, 2))),
        TypeError,
    ),
    ("platform_dependent default", lambda: lax.platform_dependent(default=jnp.ones(2)), TypeError),
    (
        "ragged_dot_general numbers",
        lambda: lax.ragged_dot_general(
            jnp.ones((2, 3)), jnp.ones((2, 3, 4)), jnp.array([1, 1]), jnp.ones(3)
        ),
        TypeError,
    ),
    (
        "custom_linear_solve matvec",
        lambda: lax.custom_linear_solve(jnp.ones(2), jnp.ones(2), jnp.ones(2)),
        TypeError,
    ),
    ("custom_root f", lambda: lax.custom_root(None, 1.0, jnp.sin, jnp.sin), TypeError),
    ("round decimals=None", lambda: jnp.round(2.5, decimals=None), TypeError),
    # JAX raises TypeError for a linalg argument of rank < 2 (and for a non-square one in
    # cholesky, eigh, svd(hermitian=True), matrix_power), ValueError in eig's non-square case.
    ("eigh of a vector", lambda: jnp.linalg.eigh(jnp.ones(3)), TypeError),
    ("eigvalsh non-square", lambda: jnp.linalg.eigvalsh(jnp.ones((2, 3, 4))), TypeError),
    ("eig of a scalar", lambda: jnp.linalg.eig(jnp.ones(())), TypeError),
    ("eigvals non-square", lambda: jnp.linalg.eigvals(jnp.ones((2, 3))), ValueError),
    ("svd of a vector", lambda: jnp.linalg.svd(jnp.ones(5)), TypeError),
    ("svdvals of a vector", lambda: jnp.linalg.svdvals(jnp.ones(2)), TypeError),
    ("cholesky non-square", lambda: jnp.linalg.cholesky(jnp.ones((3, 5, 3))), TypeError),
    ("matrix_power non-square", lambda: jnp.linalg.matrix_power(jnp.ones((2, 4)), 2), TypeError),
    ("matrix_power of a scalar", lambda: jnp.linalg.matrix_power(jnp.ones(()), 2), TypeError),
    ("inv non-square", lambda: jnp.linalg.inv(jnp.ones((2, 3))), ValueError),
    # lax.dot without dimension numbers takes only plain matrix/vector products (ValueError);
    # dot_general(..., None) is that dot, as in JAX.
    ("lax.dot contracting mismatch", lambda: lax.dot(jnp.ones(3), jnp.ones(1)), ValueError),
    ("lax.dot with a scalar", lambda: lax.dot(jnp.ones((2, 3)), jnp.ones(())), ValueError),
    ("lax.dot rank 4", lambda: lax.dot(jnp.ones((2, 1, 2, 2)), jnp.ones((2,))), ValueError),
    (
        "dot_general bad numbers",
        lambda: lax.dot_general(jnp.ones(3), jnp.ones(3), "ab"),
        ValueError,
    ),
    ("dot_general None numbers", lambda: lax.dot_general(jnp.ones(3), jnp.ones(3), None), 3.0),
    (
        "lax.dot with dimension_numbers",
        lambda: lax.dot(
            jnp.ones((2, 3)), jnp.ones((2, 3)), dimension_numbers=(((1,), (1,)), ((), ()))
        ),
        [[3.0, 3.0], [3.0, 3.0]],
    ),
    # lax functions whose dtype argument is None: ValueError, as JAX; iota's dimension range.
    ("iota without dtype", lambda: lax.iota(None, 3), ValueError),
    ("broadcasted_iota without dtype", lambda: lax.broadcasted_iota(None, (3,), 0), ValueError),
    ("broadcasted_iota dimension -1", lambda: lax.broadcasted_iota(jnp.int32, (), -1), ValueError),
    ("broadcasted_iota dimension 1", lambda: lax.broadcasted_iota(jnp.int32, (3,), 1), ValueError),
    ("argmax without index_dtype", lambda: lax.argmax(jnp.ones(3), 0, None), ValueError),
    ("argmin float index_dtype", lambda: lax.argmin(jnp.ones(3), 0, jnp.float32), TypeError),
    (
        "rng_bit_generator without dtype",
        lambda: lax.rng_bit_generator(jnp.zeros(4, jnp.uint32), (3,), dtype=None),
        ValueError,
    ),
    ("rng_uniform of vectors", lambda: lax.rng_uniform(jnp.ones(3), jnp.ones(1), (3,)), ValueError),
    (
        "rng_uniform of two dtypes",
        lambda: lax.rng_uniform(jnp.ones((), jnp.bfloat16), jnp.float32(0), ()),
        ValueError,
    ),
    # Argument checks with JAX's exception classes.
    ("choose float indices", lambda: jnp.choose(jnp.ones(2), [jnp.ones(2)]), ValueError),
    ("insert float index", lambda: jnp.insert(jnp.ones(3), np.float32(0.5), 1.0), ValueError),
    (
        "insert 2-D index",
        lambda: jnp.insert(jnp.ones(3), jnp.zeros((2, 1), jnp.int16), 1.0),
        ValueError,
    ),
    (
        "insert 2-D traced index",
        lambda: stablax.jit(lambda o: jnp.insert(jnp.ones(3), o, 1.0))(
            jnp.zeros((2, 1), jnp.int16)
        ),
        ValueError,
    ),
    (
        "delete float index",
        lambda: jnp.delete(jnp.ones(3), jnp.array([0.5], jnp.float16)),
        ValueError,
    ),
    ("delete boolean mask", lambda: jnp.delete(jnp.arange(3), jnp.array([True, False, True])), [1]),
    ("block of a tuple", lambda: jnp.block((jnp.ones(2), jnp.ones(2))), ValueError),
    ("argsort kind", lambda: jnp.argsort(jnp.ones(3), kind="quicksort"), TypeError),
    ("argsort order", lambda: jnp.argsort(jnp.ones(3), order="a"), TypeError),
    ("polyint of a matrix", lambda: jnp.polyint(jnp.ones((1, 2))), TypeError),
    (
        "polydiv trim under jit",
        lambda: stablax.jit(lambda u: jnp.polydiv(u, u, trim_leading_zeros=True))(jnp.ones(2)),
        stablax.errors.ConcretizationTypeError,
    ),
    ("place in place of a string", lambda: jnp.place("ab", jnp.ones(2, bool), 1), TypeError),
    (
        "gcd of floats that do not broadcast",
        lambda: jnp.gcd(jnp.ones((5, 0)), jnp.ones(3)),
        ValueError,
    ),
    ("lcm of floats", lambda: jnp.lcm(jnp.ones(3), 2), ValueError),
    ("clip of complex", lambda: jnp.clip(jnp.ones(4, jnp.complex64), 0), ValueError),
    ("clip complex bound", lambda: jnp.clip(jnp.ones(4), 1j), ValueError),
    ("corrcoef integer dtype", lambda: jnp.corrcoef(jnp.ones(3), dtype=jnp.int8), ValueError),
    ("matrix_transpose of a vector", lambda: jnp.matrix_transpose(jnp.ones(3)), ValueError),
    (
        "compress 2-D condition",
        lambda: jnp.compress(jnp.ones((2, 2), bool), jnp.ones(4)),
        ValueError,
    ),
    (
        "reduce_precision bits before dtype",
        lambda: lax.reduce_precision(jnp.ones(2, jnp.int8), 3, -3),
        ValueError,
    ),
    (
        "dynamic_update_slice index count first",
        lambda: lax.dynamic_update_slice(jnp.ones((3, 3, 5)), jnp.ones(()), (0,)),
        ValueError,
    ),
    (
        "dynamic_update_slice rank",
        lambda: lax.dynamic_update_slice(jnp.ones((3, 3)), jnp.ones(3), (0, 0)),
        TypeError,
    ),
    (
        "dynamic_slice index count first",
        lambda: lax.dynamic_slice(jnp.ones((2, 5, 2)), (0, 0, 0, 0), (3, 4, 0)),
        ValueError,
    ),
    (
        "dynamic_slice sizes count",
        lambda: lax.dynamic_slice(jnp.ones((2, 5, 2)), (0, 0, 0), (1, 1)),
        ValueError,
    ),
    (
        "dynamic_slice sizes too big",
        lambda: lax.dynamic_slice(jnp.ones((2, 5, 2)), (0, 0, 0), (3, 1, 1)),
        TypeError,
    ),
    ("sum where float", lambda: jnp.sum(jnp.ones(3), where=jnp.ones(3)), ValueError),
    ("nanvar where int", lambda: jnp.nanvar(jnp.ones(3), where=jnp.ones(3, jnp.int32)), ValueError),
    (
        "mean where bool",
        lambda: jnp.mean(jnp.arange(3.0), where=jnp.array([True, False, True])),
        1.0,
    ),
    ("fft2 one axis", lambda: jnp.fft.fft2(jnp.ones((2, 2)), axes=(0,)), ValueError),
    ("rfft2 no axes", lambda: jnp.fft.rfft2(jnp.ones((2, 2)), axes=()), ValueError),
    ("array order C", lambda: jnp.array([1, 2], order="C"), NotImplementedError),
    ("asarray order F", lambda: jnp.asarray([1, 2], order="F"), NotImplementedError),
    ("array order K", lambda: jnp.array([1, 2], order="K"), [1, 2]),
    ("can_cast to None", lambda: jnp.can_cast(jnp.int32, None), TypeError),
    ("vecdot mismatched axes", lambda: jnp.vecdot(jnp.ones(3), jnp.ones(1)), ValueError),
    (
        "linalg.vecdot mismatched axes",
        lambda: jnp.linalg.vecdot(jnp.ones(3), jnp.ones(1)),
        ValueError,
    ),
    (
        "bitcast_convert_type no dtype",
        lambda: lax.bitcast_convert_type(jnp.ones(2), None),
        ValueError,
    ),
    (
        "select_n bfloat16 selector",
        lambda: lax.select_n(jnp.ones(3, jnp.bfloat16), jnp.ones(3)),
        TypeError,
    ),
    ("full_like array fill", lambda: lax.full_like(jnp.ones(3), jnp.ones((5, 1))), TypeError),
    (
        "matrix_rank tol and rtol",
        lambda: jnp.linalg.matrix_rank(jnp.ones((2, 2)), tol=1.0, rtol=1.0),
        ValueError,
    ),
    ("meshgrid copy=False", lambda: jnp.meshgrid(jnp.ones(2), copy=False), ValueError),
    ("three-term where with size", lambda: jnp.where(jnp.ones(2, bool), 1, 2, size=3), ValueError),
    ("var ddof and correction", lambda: jnp.var(jnp.ones(3), ddof=1, correction=1), ValueError),
    ("fft with n=0", lambda: jnp.fft.fft(jnp.ones((2, 3)), n=0), ValueError),
    (
        "polyadd shapes that do not fit",
        lambda: jnp.polyadd(jnp.ones((2, 3)), jnp.ones(2)),
        ValueError,
    ),
    (
        "cholesky of integers",
        lambda: jnp.linalg.cholesky(jnp.array([[4, 0], [0, 9]])),
        [[2.0, 0.0], [0.0, 3.0]],
    ),
    ("unravel_index int shape", lambda: jnp.unravel_index(jnp.array([3, 1]), 4), [[3, 1]]),
    (
        "unravel_index bool indices",
        lambda: jnp.unravel_index(jnp.array([False, True]), (3, 3)),
        [[0, 0], [0, 1]],
    ),
    ("extract size=0 long condition", lambda: jnp.extract(jnp.ones(3), jnp.ones(1), size=0), []),
    (
        "extract unused fill_value",
        lambda: jnp.extract(1.5, jnp.array([[-3.0, 2.0]]), fill_value=jnp.ones((1, 2))),
        [-3.0],
    ),
    (
        "union1d unused fill_value",
        lambda: jnp.union1d(jnp.array([6, 2, 1]), 0.5, fill_value=jnp.array([7, 1, 2])),
        [0.5, 1.0, 2.0, 6.0],
    ),
    (
        "lu_pivots_to_permutation size before dtype",
        lambda: lax.linalg.lu_pivots_to_permutation(jnp.ones(3), 0),
        ValueError,
    ),
    (
        "arctan of a huge int under jit",
        lambda: stablax.jit(lambda: jnp.arctan(2**31))(),
        OverflowError,
    ),
    ("reduce_sum of a string", lambda: lax.reduce_sum("a", (0,)), TypeError),
    ("reduce_sum of bools", lambda: lax.reduce_sum(jnp.ones(3, bool), (0,)), TypeError),
    ("reduce_prod of bools", lambda: lax.reduce_prod(jnp.ones(3, bool), (0,)), TypeError),
    ("reduce_xor dtype before axes", lambda: lax.reduce_xor(jnp.ones((1, 1)), (0, -3)), TypeError),
    ("sort tuple num_keys", lambda: lax.sort(jnp.ones(3), num_keys=(1,)), ValueError),
    (
        "searchsorted float sorter before method",
        lambda: jnp.searchsorted(jnp.ones(3), 1.0, sorter=jnp.ones(3), method="linear"),
        TypeError,
    ),
    ("approx_min_k of a scalar", lambda: lax.approx_min_k(jnp.ones(()), 1), TypeError),
    (
        "put_along_axis axis=None 0-d indices",
        lambda: jnp.put_along_axis(jnp.ones(3), 0.5, jnp.ones(4), None, inplace=False),
        ValueError,
    ),
    (
        "put_along_axis values that do not broadcast",
        lambda: jnp.put_along_axis(jnp.ones(3), jnp.ones(3), jnp.ones(4), 0, inplace=False),
        ValueError,
    ),
    ("qr mode before shape", lambda: jnp.linalg.qr(jnp.ones(3), mode="constant"), ValueError),
    ("eigh UPLO before shape", lambda: jnp.linalg.eigh(jnp.ones(3), UPLO="X"), ValueError),
    (
        "full_like traced fill_value",
        lambda: stablax.jit(lambda v: lax.full_like(np.uint32(3), v))(jnp.uint32(1)),
        1,
    ),
    ("roots of a constant", lambda: jnp.roots(3.0), []),
    ("take float indices", lambda: jnp.take(jnp.ones(3), jnp.ones(2)), ValueError),
    ("rng_uniform int shape", lambda: lax.rng_uniform(0.0, 1.0, 3), TypeError),
    (
        "conv_general_dilated_patches filter rank",
        lambda: lax.conv_general_dilated_patches(
            jnp.ones((2, 2, 2, 2)), (2, 2, 2, 2), (3,), "SAME"
        ),
        TypeError,
    ),
    (
        "scaled_dot ranks",
        lambda: lax.scaled_dot(jnp.ones((5, 2, 5)), 1.5, rhs_scale=jnp.float32(2)),
        TypeError,
    ),
    (
        "scaled_dot empty scale",
        lambda: lax.scaled_dot(
            jnp.ones((2, 4)),
            jnp.ones((4, 3)),
            lhs_scale=jnp.ones((2, 0)),
            rhs_scale=jnp.ones((1, 3)),
        ),
        TypeError,
    ),
    ("broadcast_shapes of an int", lambda: lax.broadcast_shapes(1), TypeError),
    ("lax.stack of a float", lambda: lax.stack(3.0), TypeError),
    ("cumsum axis before dtype", lambda: lax.cumsum(np.bool_(True)), ValueError),
    (
        "tensorsolve leading shape",
        lambda: jnp.linalg.tensorsolve(jnp.zeros(()), jnp.zeros(1), axes=()),
        ValueError,
    ),
    ("setdiff1d negative size", lambda: jnp.setdiff1d(1, jnp.ones(3), size=-1), ValueError),
    ("lstsq leading dimensions", lambda: jnp.linalg.lstsq(jnp.ones(3), jnp.ones(1)), ValueError),
    (
        "conv string padding with lhs_dilation first",
        lambda: lax.conv_general_dilated(jnp.ones(3), jnp.ones(1), (3,), "SAME", lhs_dilation=(3,)),
        ValueError,
    ),
    (
        "rng_bit_generator int shape",
        lambda: lax.rng_bit_generator(jnp.zeros(2, jnp.uint32), 1),
        TypeError,
    ),
    ("approx_max_k k before rank", lambda: lax.approx_max_k(0.0, -2), ValueError),
    (
        "pinv rtol and rcond",
        lambda: jnp.linalg.pinv(jnp.ones((2, 2)), rtol=0.0, rcond=0.0),
        ValueError,
    ),
    (
        "put mode before indices",
        lambda: jnp.put(jnp.ones(3), jnp.ones(1), 1.0, mode="constant", inplace=False),
        ValueError,
    ),
    (
        "dynamic_index_in_dim allow_negative_indices=None",
        lambda: stablax.jit(
            lambda x: lax.dynamic_index_in_dim(x, -3, keepdims=False, allow_negative_indices=None)
        )(jnp.array([5, 6, 7])),
        ValueError,  # None is False, as in JAX; stablax rejects a static negative index then
    ),
    ("shape_as_value of an int", lambda: lax.shape_as_value(0), TypeError),
    ("lax.tile with int reps", lambda: lax.tile(jnp.ones(2), 3), TypeError),
    ("choose from an int", lambda: jnp.choose(jnp.int8(0), 4), TypeError),
    (
        "quantile method before weights",
        lambda: jnp.quantile(jnp.ones(2), 0.5, method="auto", weights=jnp.ones(2)),
        ValueError,
    ),
    # lax.dot_general takes operands of different dtypes, both converted to the result dtype
    # (the preferred one if given), and jnp's products pass them on unpromoted, as JAX 0.10.2.
    (
        "dot_general of int32 and float16 into int32",
        lambda: lax.dot_general(
            jnp.array([2]), jnp.array([3.5], jnp.float16), (((0,), (0,)), ((), ())), None, jnp.int32
        ),
        6,
    ),
    (
        "vdot under vmap into uint32",
        lambda: stablax.vmap(
            lambda x: jnp.vdot(x, jnp.float16(1.0), preferred_element_type=jnp.uint32)
        )(jnp.array([-5, 3, 3])),
        [4294967291, 3, 3],
    ),
    (
        "dot of 0-d floats into int32",
        lambda: jnp.dot(2.5, 3.5, preferred_element_type=jnp.int32),
        8,
    ),
    # Fuzz compare, seed 201.
    (
        "repeat under vmap with x64",
        lambda: _x64(
            lambda: stablax.vmap(lambda a, r: jnp.repeat(a, r, total_repeat_length=2))(
                jnp.ones((2, 3)), jnp.ones((2, 3), int)
            )
        ),
        [[1.0, 1.0], [1.0, 1.0]],
    ),
    ("hanning of a float length", lambda: jnp.hanning(1.5), [1.0]),  # as JAX: int(M)
    (
        "place with a short mask",
        lambda: jnp.place(jnp.ones(3), 1.0, 2.0, inplace=False),
        ValueError,
    ),
    ("sum into bool", lambda: jnp.sum(jnp.array([0.0, 0.5]), dtype=bool), True),
    ("prod into bool", lambda: jnp.prod(jnp.array([0.0, 0.5]), dtype=bool), False),
    ("lexsort of scalar keys", lambda: jnp.lexsort(jnp.array([3.0, 1.0, 2.0]), axis=0), 0),
    ("vecmat core sizes", lambda: jnp.vecmat(jnp.ones((2, 4)), jnp.ones((2, 4))), ValueError),
    ("matvec core sizes", lambda: jnp.matvec(jnp.ones((2, 4)), jnp.ones(3)), ValueError),
    ("cond of an empty matrix", lambda: jnp.linalg.cond(jnp.ones((5, 0))), ValueError),
    (
        "gather under vmap of an empty batch",
        lambda: (
            stablax.vmap(lambda a, r: jnp.repeat(a, r, total_repeat_length=3))(
                jnp.zeros((0,)), jnp.zeros((0,), int)
            ).shape
        ),
        [0, 3],
    ),
    (
        "polydiv leaves exact zeros",
        lambda: jnp.polydiv(
            jnp.array([0.25146043, -0.2642097, 1.2808453]), jnp.array([0.25146043])
        )[1],
        [0.0, 0.0, 0.0],
    ),
    ("full_like broadcasts an array fill", lambda: jnp.full_like(jnp.ones(2), jnp.ones(1)), [1, 1]),
    ("full_like fill of more dimensions", lambda: jnp.full_like(1, jnp.ones((3, 0))), ValueError),
    ("cov into bool", lambda: jnp.cov(jnp.ones(3), dtype=bool), ValueError),
    ("cov observations differ", lambda: jnp.cov(jnp.ones(2), jnp.ones(3)), ValueError),
    ("fft of several axes", lambda: jnp.fft.fft(jnp.ones(3), axis=(-1,)), ValueError),
    # Fuzz compare, seed 301 (linalg, poly*, swapaxes, reductions).
    (
        "cholesky of a non-PD matrix: NaN triangle, zeros above",
        lambda: np.isnan(jnp.linalg.cholesky(jnp.array([[1.0, 2.0], [2.0, 1.0]]))),
        [[True, False], [True, True]],
    ),
    (
        "cholesky under vmap of a non-PD matrix",
        lambda: np.isnan(stablax.vmap(jnp.linalg.cholesky)(jnp.array([[[-1.0, 2.0], [2.0, 1.0]]]))),
        [[[True, False], [True, True]]],
    ),
    (
        "cholesky of a complex non-PD matrix: NaN+NaNj",
        lambda: np.isnan(jnp.linalg.cholesky(jnp.array([[1, 2], [2, 1]], jnp.complex64)).imag),
        [[True, False], [True, True]],
    ),
    (
        "cholesky unsymmetrized of a non-square matrix",
        lambda: jnp.linalg.cholesky(jnp.ones((3, 2)), symmetrize_input=False),
        ValueError,
    ),
    (
        "eigh unsymmetrized of a non-square matrix",
        lambda: jnp.linalg.eigh(jnp.ones((3, 2)), symmetrize_input=False),
        ValueError,
    ),
    (
        "cholesky symmetrized of a non-square matrix",
        lambda: jnp.linalg.cholesky(jnp.ones((3, 2))),
        TypeError,
    ),
    (
        "integer matrix_power keeps its dtype",
        lambda: str(jnp.linalg.matrix_power(jnp.ones((2, 2), jnp.int16), 3).dtype),
        "int16",
    ),
    (
        "argmax reads index_dtype before the axis",
        lambda: lax.argmax(jnp.ones(()), 0, "foo"),
        TypeError,
    ),
    ("reduce_sum checks axes before dtype", lambda: lax.reduce_sum(False, (1, 0)), ValueError),
    ("swapaxes of a None axis", lambda: jnp.swapaxes(jnp.ones((2, 3)), None, 0), TypeError),
    ("polyval negative unroll", lambda: jnp.polyval(jnp.ones(2), 1.0, unroll=-2), ValueError),
    ("roots of a constant under jit", lambda: stablax.jit(jnp.roots)(jnp.array(3.0)).shape, [0]),
    (
        "var of complex into float",
        lambda: jnp.var(jnp.ones(2, jnp.complex64), dtype=jnp.float32),
        ValueError,
    ),
    (
        "insert with a traced complex index",
        lambda: stablax.jit(lambda i: jnp.insert(jnp.ones(3), i, 1.0))(jnp.ones(1, jnp.complex64)),
        ValueError,
    ),
    (
        "delete with an empty float index array",
        lambda: jnp.delete(jnp.ones(3), jnp.ones(0)),
        ValueError,
    ),
    (
        "choose from empty choices",
        lambda: (
            jnp.choose(
                jnp.zeros((4, 0), jnp.uint8), jnp.zeros((4, 0), jnp.uint8), mode="clip"
            ).shape
        ),
        [4, 0],
    ),
    (
        "convert_element_type to None",
        lambda: lax.convert_element_type(jnp.ones(2), None),
        ValueError,
    ),
    (
        "lax.reduce_sum of a negative axis",
        lambda: lax.reduce_sum(jnp.ones((2, 3)), (-1,)),
        ValueError,
    ),
    (
        "lax.argmax of a negative axis",
        lambda: lax.argmax(jnp.ones((2, 3)), -1, jnp.int32),
        ValueError,
    ),
    (
        "lax.reduce of a negative axis",
        lambda: lax.reduce(jnp.ones(2), 0.0, lax.add, (-1,)),
        ValueError,
    ),
    (
        "quantile overwrite_input",
        lambda: jnp.nanpercentile(jnp.ones(3), 50.0, overwrite_input=True),
        ValueError,
    ),
    (
        "setxor1d broadcasts a fill_value array",
        lambda: jnp.setxor1d(jnp.ones(3), jnp.zeros(1), size=3, fill_value=jnp.full(1, 7.0)),
        [0.0, 1.0, 7.0],
    ),
    ("composite of a non-string name", lambda: lax.composite(lambda x: x, 3), TypeError),
    # Fuzz compare, seed 202.
    (
        "logical_xor of ints and a Python float is no weak bool",
        lambda: stablax.jit(lambda x: jnp.logical_xor(x, float("nan")))(jnp.ones(2, int)).weak_type,
        False,
    ),
    (
        "logical_and of Python scalars is a weak bool",
        lambda: jnp.logical_and(1.0, 2.0).weak_type,
        True,
    ),
    ("indices of an int", lambda: jnp.indices(-1), TypeError),
    (
        "repeat with a str total_repeat_length",
        lambda: jnp.repeat(jnp.ones(2), 2, total_repeat_length="2"),
        TypeError,
    ),
    (
        "take_along_axis with a str axis",
        lambda: jnp.take_along_axis(jnp.ones(3), jnp.zeros(3, int), axis="a"),
        TypeError,
    ),
    ("partition with a bool kth", lambda: jnp.partition(jnp.ones(3), False), TypeError),
    # Fuzz compare, seed 203.
    (
        "intersect1d pads indices one past the end",
        lambda: stablax.jit(lambda x: jnp.intersect1d(x, 300, return_indices=True, size=2))(
            jnp.zeros(12)
        )[1:],
        [[12, 12], [1, 1]],
    ),
    ("blackman of an array length", lambda: jnp.bartlett(jnp.array(3)), [0.0, 1.0, 0.0]),
    ("split into '2' sections", lambda: jnp.split(jnp.ones(4), "2"), TypeError),
    ("std into an integer dtype", lambda: jnp.std(jnp.ones(3), dtype=jnp.int32), ValueError),
    (
        "delete at uint4 indices",
        lambda: jnp.delete(jnp.arange(5), np.array([1, 3], ml_dtypes.uint4)),
        [0, 2, 4],
    ),
    (  # XLA's verifier rejects it (JAX 0.10.2 raises JaxRuntimeError)
        "vdot of int4 into complex under jit",
        lambda: stablax.jit(lambda x: jnp.vdot(x, x, preferred_element_type=jnp.complex64))(
            jnp.array([1, 2, 3], ml_dtypes.int4)
        ),
        14,
    ),
    ("cumsum along a NaN axis", lambda: lax.cumsum(jnp.ones(3), axis=float("nan")), TypeError),
    (
        "dynamic_index_in_dim along a float axis",
        lambda: lax.dynamic_index_in_dim(jnp.ones((3, 1, 5)), 6, axis=1.5),
        TypeError,
    ),
    (
        "histogramdd with one weight per coordinate",
        lambda: jnp.histogramdd(jnp.ones((3, 3)), weights=jnp.ones((3, 3))),
        ValueError,
    ),
    (
        "matmul with a narrower preferred type",
        lambda: jnp.matmul(
            jnp.ones(1, jnp.int8), jnp.ones(1, jnp.complex64), preferred_element_type=jnp.int8
        ),
        TypeError,
    ),
]


@pytest.mark.parametrize("name, call, expected", _CASES, ids=[c[0] for c in _CASES])
def test_reproducer(name, call, expected):
    if isinstance(expected, type):
        with pytest.raises(expected):
            call()
        return
    out = call()
    if isinstance(out, tuple):
        out = [_value(o) for o in out]
    assert (_value(out) if not isinstance(out, list) else out) == expected


_VAR_X = np.array([[3, -7, 2, 9], [1, 1, 5, -2]], np.int16)

# Divergences from JAX in a result's dtype, weak type, shape or type that the comparison fuzz
# (fuzz_runner --compare-jax) found: (id, call, value, dtype, weak_type), as JAX 0.10.2 gives.
_RESULT_TYPES = [
    (
        "dot scalar preferred uint16",
        lambda: jnp.dot(
            np.float16(-0.66),
            np.array([4, -1, 1, -4, -2], np.int8),
            preferred_element_type="uint16",
        ),
        [0, 0, 0, 0, 0],
        "uint16",
        False,
    ),
    (
        "dot scalars preferred int32",
        lambda: jnp.dot(2.5, 3, preferred_element_type="int32"),
        6,
        "int32",
        False,
    ),
    (
        "dot scalar preferred int32 under jit",
        lambda: stablax.jit(lambda x: jnp.dot(float("nan"), x, preferred_element_type="int32"))(
            jnp.zeros((3, 1), jnp.int8)
        ),
        [[0], [0], [0]],
        "int32",
        False,
    ),
    (
        "dot scalars preferred complex64",
        lambda: jnp.dot(-1, False, preferred_element_type=jnp.complex64),
        0j,
        "complex64",
        False,
    ),
    (
        "bincount of uint8",
        lambda: jnp.bincount(jnp.array([4, 1, 4, 4], jnp.uint8)),
        [0, 1, 0, 0, 3],
        "int32",
        False,
    ),
    ("fft of an empty axis", lambda: jnp.fft.fft(jnp.ones((2, 0))), [[], []], "complex64", False),
    (
        "ifftn of an empty axis under jit",
        lambda: stablax.jit(jnp.fft.ifftn)(jnp.ones((4, 0))),
        [[]] * 4,
        "complex64",
        False,
    ),
    ("irfft of one frequency", lambda: jnp.fft.irfft(jnp.ones((2, 1))), [[], []], "float32", False),
    (
        "polyadd of coefficient rows",
        lambda: jnp.polyadd(jnp.array([[1, 2, 3], [4, 5, 6]]), jnp.array([[5, 7, 9], [8, 6, 4]])),
        [[6, 9, 12], [12, 11, 10]],
        "int32",
        False,
    ),
    (
        "polysub broadcasting the shorter",
        lambda: jnp.polysub(jnp.array([[5, 7, 9], [8, 6, 4]]), jnp.array([2])),
        [[5, 7, 9], [6, 4, 2]],
        "int32",
        False,
    ),
    (
        "polyval of coefficient rows",
        lambda: jnp.polyval(jnp.arange(6.0).reshape(2, 3), 2.0),
        [3.0, 6.0, 9.0],
        "float32",
        False,
    ),
    ("shape_as_value of ()", lambda: lax.shape_as_value(()), [], "int32", False),
    ("broadcast_to_rank of a bool", lambda: lax.broadcast_to_rank(False, -3), False, "bool", False),
    ("broadcast of a bool", lambda: lax.broadcast(True, (2,)), [True, True], "bool", False),
    ("broadcast_to_rank of a float", lambda: lax.broadcast_to_rank(1.5, 0), 1.5, "float32", True),
    ("empty without dtype", lambda: lax.empty((2,), None), [0.0, 0.0], "float32", False),
    ("irfftn of a scalar", lambda: jnp.fft.irfftn(7), 7 + 0j, "complex64", False),
    ("rfftn of a scalar", lambda: jnp.fft.rfftn(7), 7.0, "float32", False),
    (
        "unwrap of one element under jit",
        lambda: stablax.jit(jnp.unwrap)(jnp.array([4], jnp.uint32)),
        [4.0],
        "float32",
        False,
    ),
    (
        "polyder of a constant",
        lambda: jnp.polyder(jnp.array([2], jnp.uint32)),
        [],
        "float32",
        False,
    ),
    (
        "polyder past the degree",
        lambda: jnp.polyder(jnp.array([2.0, 3.0]), 2),
        [],
        "float32",
        False,
    ),
    (
        "hypot of an int array and a Python float",
        lambda: jnp.hypot(jnp.array([3], jnp.int8), 4.0),
        [5.0],
        "float32",
        False,
    ),
    (
        "histogramdd density of bfloat16",
        lambda: jnp.histogramdd(jnp.ones((2, 2), jnp.bfloat16), bins=1, density=True)[0],
        [[1.0]],
        "bfloat16",
        False,
    ),
    (
        "histogramdd int weights",
        lambda: jnp.histogramdd(jnp.ones((2, 2)), bins=1, weights=jnp.array([1, 2]))[0],
        [[3.0]],
        "float32",
        False,
    ),
    ("angle of a Python complex", lambda: jnp.angle(0.5 + 0j), 0.0, "float32", True),
    # An integer dtype= makes var compute in that type and mark N - ddof <= 0 with NaN (a weak
    # float); nanvar divides in floating point and casts back, summing in the default int.
    ("var int dtype", lambda: jnp.var(_VAR_X, dtype=jnp.int32), 19.0, "float32", True),
    ("var int dtype ddof", lambda: jnp.var(_VAR_X, dtype=jnp.int32, ddof=3), 31.0, "float32", True),
    ("var int dtype empty", lambda: jnp.var(jnp.zeros(0, int), dtype=int), None, "float32", True),
    (
        "var uint8 ddof wraps",
        lambda: jnp.var(_VAR_X, dtype=jnp.uint8, ddof=9),
        0.0,
        "float32",
        True,
    ),
    ("nanvar int8 dtype", lambda: jnp.nanvar(_VAR_X, dtype=jnp.int8), 19, "int8", False),
    ("nanvar float ddof", lambda: jnp.nanvar(_VAR_X, dtype=jnp.int8, ddof=1.7), 25, "int8", False),
    (
        "nanvar uint8 of floats",
        lambda: jnp.nanvar(_VAR_X.astype(np.float32), dtype=jnp.uint8),
        8,
        "uint8",
        False,
    ),
    (
        "rfftfreq int dtype",
        lambda: jnp.fft.rfftfreq(4, 0.3, dtype=jnp.int8),
        [0, 1, 2],
        "float32",
        False,
    ),
    (
        "fftfreq int dtype",
        lambda: jnp.fft.fftfreq(5, 0.3, dtype=int),
        [0, 0, 1, -1, 0],
        "int32",
        False,
    ),
    (
        "histogram edges with complex weights",
        lambda: jnp.histogram(jnp.array([1.0, 2.0, 3.0]), bins=2, weights=jnp.array([1j, 1, 1]))[1],
        [1, 2, 3],
        "complex64",
        False,
    ),
    (
        "angle of a 0-d float16",
        lambda: jnp.angle(jnp.asarray(np.float16(1.13))),
        0.0,
        "float32",
        False,
    ),
    ("empty_like of 2**63", lambda: jnp.empty_like(2**63, shape=(2,)), [0, 0], "int32", True),
    ("zeros_like of 2**63", lambda: jnp.zeros_like(2**63), 0, "int32", True),
    (
        "corrcoef of no variables",
        lambda: jnp.corrcoef(jnp.zeros((0, 3), jnp.complex64)),
        [],
        "float32",
        False,
    ),
    ("cov of no variables", lambda: jnp.cov(jnp.zeros((0, 3), jnp.int32)), [], "float32", False),
    (
        "lstsq rank of an empty matrix under x64",
        lambda: _x64(lambda: jnp.linalg.lstsq(jnp.zeros((0, 0)), jnp.zeros((0, 0)))[2]),
        0,
        "int64",
        False,
    ),
    (
        "lstsq rank under x64",
        lambda: _x64(lambda: jnp.linalg.lstsq(jnp.eye(2), jnp.ones(2))[2]),
        2,
        "int64",
        False,
    ),
    (
        "logaddexp2 int array and float",
        lambda: jnp.logaddexp2(jnp.array([0]), 0.0),
        [1.0],
        "float32",
        False,
    ),
    (
        "logaddexp2 0-d int and float",
        lambda: jnp.logaddexp2(jnp.array(0), 0.0),
        1.0,
        "float32",
        True,
    ),
    (
        "logaddexp2 complex array",
        lambda: jnp.logaddexp2(jnp.array([0j]), 0j),
        [1 + 0j],
        "complex64",
        False,
    ),
    (
        "rfftn of a 0-d float16",
        lambda: jnp.fft.rfftn(jnp.asarray(np.float16(0.5))),
        0.5,
        "float16",
        False,
    ),
    ("rfftn of a Python float", lambda: jnp.fft.rfftn(2.0), 2.0, "float32", False),
    ("isinf of a Python float", lambda: jnp.isinf(float("nan")), False, "bool", False),
    (
        "cumulative_prod keeps int8",
        lambda: jnp.cumulative_prod(jnp.array([1, 2], jnp.int8))[1],
        2,
        "int8",
        False,
    ),
    (
        "cumulative_prod of bools",
        lambda: jnp.cumulative_prod(jnp.array([True, True]))[1],
        1,
        "int32",
        False,
    ),
    (
        "cumulative_sum widens int8",
        lambda: jnp.cumulative_sum(jnp.array([1, 2], jnp.int8))[1],
        3,
        "int32",
        False,
    ),
    ("zeros_like 2**63 int16", lambda: jnp.zeros_like(2**63, dtype=jnp.int16), 0, "int16", False),
    ("zeros_like 2**64", lambda: jnp.zeros_like(2**64), 0, "int32", True),
    ("full_like -2**64", lambda: jnp.full_like(-(2**64), 3), 3, "int32", True),
    ("empty_like 2**70 float32", lambda: jnp.empty_like(2**70, dtype=float), 0, "float32", False),
    (
        "signbit int4",
        lambda: jnp.signbit(jnp.array([-4, 4, 0], ml_dtypes.int4)),
        [True, False, False],
        "bool",
        False,
    ),
    (
        "signbit uint2",
        lambda: jnp.signbit(jnp.array([3, 0], ml_dtypes.uint2)),
        [False] * 2,
        "bool",
        False,
    ),
    ("max int4", lambda: jnp.max(jnp.array([-4, 4, 1], ml_dtypes.int4)), 4, "int4", False),
    ("min uint4", lambda: jnp.min(jnp.array([15, 4, 1], ml_dtypes.uint4)), 1, "uint4", False),
    ("ptp int4 wraps", lambda: jnp.ptp(jnp.array([-4, 4, 1], ml_dtypes.int4)), -8, "int4", False),
    ("take weak scalar", lambda: jnp.take(1.0, jnp.array([0, 0])), [1.0, 1.0], "float32", True),
    (
        "nanargmin uint4",
        lambda: jnp.nanargmin(jnp.array([15, 4, 1], ml_dtypes.uint4)),
        2,
        "int32",
        False,
    ),
    (
        "map keeps the weak type of f's result",
        lambda: lax.map(lambda x: x * 2, jnp.ones((2, 1), bool)),
        [[2], [2]],
        "int32",
        True,
    ),
    ("rng_uniform of weak bounds", lambda: lax.rng_uniform(0.0, 0.0, ()), 0.0, "float32", True),
    (
        "reduce of a Python scalar from a strong init",
        lambda: lax.reduce(float("inf"), jnp.array(False), lax.add, ()),
        float("inf"),
        "float32",
        False,
    ),
    ("reduce weak bitwise_or", lambda: lax.reduce(3, 0, lax.bitwise_or, ()), 3, "int32", True),
    ("rev of a Python scalar", lambda: lax.rev(0, ()), 0, "int32", True),
    ("whole slice of a Python scalar", lambda: lax.slice(2.0, (), ()), 2.0, "float32", True),
    ("cumsum of one NumPy value", lambda: lax.cumsum(np.array([1.0])), [1.0], "float32", False),
    (
        "qdwh iteration count",
        lambda: lax.linalg.qdwh(jnp.arange(12.0).reshape(4, 3) / 7)[2],
        6,
        "int32",
        True,
    ),
]


@pytest.mark.parametrize(
    "name, call, value, dtype, weak", _RESULT_TYPES, ids=[c[0] for c in _RESULT_TYPES]
)
def test_result_type_reproducer(name, call, value, dtype, weak):
    out = call()
    assert isinstance(out, stablax.Array), type(out)
    assert (str(out.dtype), out.weak_type) == (dtype, weak)
    if value is None:  # NaN
        assert np.isnan(_value(out))
    else:
        assert _value(out) == value


_ONE_ARGUMENT = [
    "abs",
    "absolute",
    "angle",
    "round",
    "around",
    "ceil",
    "floor",
    "trunc",
    "rint",
    "sign",
    "signbit",
    "square",
    "real",
    "imag",
    "isfinite",
    "isinf",
    "isneginf",
    "isposinf",
    "isreal",
    "iscomplex",
    "logical_not",
    "nan_to_num",
    "spacing",
    "bitwise_count",
    "ediff1d",
]


@pytest.mark.parametrize("name", _ONE_ARGUMENT)
def test_e1_numpy_scalars_under_jit_and_bad_inputs(name):
    fn = getattr(jnp, name)
    scalar = np.int64(-3) if name not in ("angle", "spacing") else np.float32(-3.0)
    expected = fn(scalar)
    np.testing.assert_array_equal(stablax.jit(lambda: fn(scalar))(), expected)
    for bad in ([1, 2], None):
        with pytest.raises(TypeError):
            fn(bad)


def test_deleted_and_donated_arrays_raise_runtime_error_naming_the_array(capfd):
    uses = {
        "grad": lambda v: stablax.grad(lambda w: (w**2).sum())(v),
        "vmap": lambda v: stablax.vmap(lambda w: w * 2)(v),
        "eager": lambda v: v + 1,
        "jit": lambda v: stablax.jit(lambda w: w * 2)(v),
    }
    for use in uses.values():
        x = jnp.ones(3)
        x.delete()
        with pytest.raises(RuntimeError, match=r"float32\[3\] has been deleted"):
            use(x)
        y = jnp.ones(3)
        stablax.jit(lambda v: v * 2, donate_argnums=0)(y)
        with pytest.raises(RuntimeError, match=r"float32\[3\] has been deleted"):
            use(y)
    assert "INVALID_ARGUMENT" not in capfd.readouterr().err  # no XLA error line first


def test_float8_and_int4_reproducers_do_not_reach_mlir():
    x = jnp.asarray(np.ones(2, ml_dtypes.float8_e4m3fn))
    with pytest.raises(TypeError):
        lax.bitcast_convert_type(x, bool)


# Found by the 100,000-call fuzz (seed 1001): each was a Python internal error reaching the user.
_FUZZ_100K = [
    ("einsum of an int", lambda: jnp.einsum(3), TypeError),
    ("einsum_path of an int", lambda: jnp.einsum_path(3), TypeError),
    ("einsum object subscripts", lambda: jnp.einsum(None, object(), jnp.ones(2)), TypeError),
    ("einsum nested subscripts", lambda: jnp.einsum(jnp.ones(2), [0], [[1]]), TypeError),
    ("einsum interleaved", lambda: jnp.einsum(jnp.arange(3.0), [0], [])[()], 3.0),
    (
        "dynamic_slice allow_negative_indices None",
        lambda: lax.dynamic_slice(jnp.ones(3), (1,), (2,), allow_negative_indices=None),
        TypeError,
    ),
    ("trapezoid 0-d x", lambda: jnp.trapezoid(jnp.ones((1, 3, 1)), x=float("nan")), ValueError),
    (
        "conv_dimension_numbers float",
        lambda: lax.conv_dimension_numbers((1, 2), (1, 2), 1.5),
        TypeError,
    ),
    (
        "conv_dimension_numbers bool",
        lambda: lax.conv_dimension_numbers((1, 0), (1, 2), True),
        TypeError,
    ),
    (
        "qdwh complex max_iterations",
        lambda: lax.linalg.qdwh(jnp.zeros((2, 1)), max_iterations=jnp.asarray(1 + 2j)),
        TypeError,
    ),
    (
        "qdwh int dynamic_shape",
        lambda: lax.linalg.qdwh(jnp.zeros((2, 1)), dynamic_shape=-5),
        TypeError,
    ),
    (
        "while_loop max_steps non-boolean cond",
        lambda: lax.while_loop(lambda c: c, lambda c: c, jnp.ones(3), max_steps=3),
        TypeError,
    ),
    (
        "while_loop max_steps body structure",
        lambda: lax.while_loop(lambda c: c.sum() > 0, lambda c: (c, 1), jnp.ones(3), max_steps=3),
        TypeError,
    ),
    (
        "while_loop max_steps",
        lambda: lax.while_loop(lambda c: c < 5, lambda c: c + 2, 0, max_steps=10),
        6,
    ),
    (
        "map batch_size of a 0-d leaf",
        lambda: lax.map(lambda x: x, jnp.uint16(6), batch_size=2),
        ValueError,
    ),
    ("tile past int64, empty", lambda: jnp.tile(jnp.zeros((3, 0)), 2**63), ValueError),
    ("reshape to an extent past int64", lambda: lax.reshape(jnp.ones(0), (2**63, 0)), ValueError),
    (
        "padtype_to_pads stride 0",
        lambda: lax.padtype_to_pads((4, 5), (2, 2), (0, 1), "SAME"),
        ValueError,
    ),
    ("trim_zeros trim None", lambda: jnp.trim_zeros(jnp.array([0.0, 1.0]), trim=None), TypeError),
    (
        "var mean past the input's rank",
        lambda: jnp.var(jnp.uint8(4), mean=jnp.zeros((1, 0, 5))),
        TypeError,
    ),
    ("var mean of a mismatched shape", lambda: jnp.var(jnp.ones(3), mean=jnp.ones(2)), TypeError),
    (
        "var mean without the reduced axis",
        lambda: jnp.var(
            jnp.arange(12.0).reshape(3, 4), axis=1, mean=jnp.array([1.5, 5.5, 9.5])
        ).tolist(),
        [1.25, 1.25, 1.25],
    ),
    ("broadcast_to shape None", lambda: jnp.broadcast_to(1 + 2j, None), TypeError),
    ("RFFT of length 0", lambda: lax.fft(jnp.zeros((0,)), "RFFT", (0,)), ValueError),
    (
        "vmap of convolve over an empty batch",
        lambda: stablax.vmap(lambda x: jnp.polymul(jnp.ones(2), x))(jnp.zeros((0, 3))).shape,
        [0, 4],
    ),
    (
        "vmap of conv over an empty batch of kernels",
        lambda: (
            stablax.vmap(lambda w: lax.conv(jnp.ones((1, 3, 8, 8)), w, (1, 1), "SAME"))(
                jnp.zeros((0, 4, 3, 3, 3))
            ).shape
        ),
        [0, 1, 4, 8, 8],
    ),
    (
        "sign of uint4",
        lambda: lax.sign(jnp.array([0, 3], ml_dtypes.uint4)).astype(jnp.int32),
        [0, 1],
    ),
    (
        "reduce_precision 2**63 bits",
        lambda: lax.reduce_precision(jnp.bfloat16(0.5), 2**63, 3),
        ValueError,
    ),
    (
        "reduce_precision 2**31 bits",
        lambda: lax.reduce_precision(jnp.float32(0.5), 2**31, 3),
        ValueError,
    ),
    ("eye k None", lambda: jnp.eye(5, k=None), TypeError),
    ("triu k None", lambda: jnp.triu(jnp.ones((3, 3)), k=None), TypeError),
    ("tril k None", lambda: jnp.tril(jnp.ones((3, 3)), k=None), TypeError),
    ("full_like object fill", lambda: jnp.full_like(jnp.ones(3), object()), TypeError),
    ("var bool dtype", lambda: jnp.var(jnp.ones(3), dtype=bool), TypeError),
    ("nanvar bool dtype", lambda: jnp.nanvar(jnp.ones(3), dtype=bool), TypeError),
    ("rfftfreq bool dtype", lambda: jnp.fft.rfftfreq(4, dtype=bool), TypeError),
    ("array float ndmin", lambda: jnp.array(1.0, ndmin=jnp.asarray(0.9)), TypeError),
    ("array 1-element ndmin", lambda: jnp.array(1.0, ndmin=jnp.asarray([5])), TypeError),
    ("array integer-array ndmin", lambda: jnp.array(1.0, ndmin=jnp.asarray(3)).shape, [1, 1, 1]),
    ("asarray device string", lambda: jnp.asarray(jnp.ones(2), device="a"), ValueError),
    (
        "zeros device string under jit",
        lambda: stablax.jit(lambda: jnp.zeros(2, device="a"))(),
        ValueError,
    ),
    (
        "array str device under jit",
        lambda: stablax.jit(lambda x: jnp.array(x, device="a"))(1.0),
        ValueError,
    ),
    ("asarray str device", lambda: jnp.asarray(1.0, device="a"), ValueError),
    (
        "can_cast bad casting first",
        lambda: jnp.can_cast("foo", jnp.int16, casting="bogus"),
        ValueError,
    ),
    ("can_cast of an object", lambda: jnp.can_cast(object(), "bfloat16"), TypeError),
    (
        "extract size past the condition",
        lambda: jnp.extract(jnp.zeros(0), jnp.asarray(1.0), size=1),
        ValueError,
    ),
    (
        "extract size True",
        lambda: jnp.extract(jnp.ones(3, bool), jnp.array([0], jnp.uint16), size=True),
        [0],
    ),
    (
        "extract fill_value that grows the result",
        lambda: jnp.extract(jnp.asarray(0), jnp.asarray(0), size=1, fill_value=jnp.zeros((0, 2))),
        ValueError,
    ),
    (
        "compress traced condition shorter than the axis",
        lambda: stablax.jit(lambda c: jnp.compress(c, jnp.arange(4), size=2, fill_value=9))(
            jnp.array([True, False])
        ),
        [0, 9],
    ),
    (
        "compress per-row fill along axis 1",
        lambda: jnp.compress(
            np.array([1, 0]),
            jnp.arange(6).reshape(2, 3),
            axis=1,
            size=2,
            fill_value=jnp.array([7, 8]),
        ),
        [[0, 7], [3, 8]],
    ),
    ("rfft axis None", lambda: jnp.fft.rfft(jnp.ones((4, 3)), n=2, axis=None), TypeError),
    (
        "ifft2 one axis checked before s",
        lambda: jnp.fft.ifft2(jnp.ones(5), s=1, axes=(0,)),
        ValueError,
    ),
    (
        "gcd of uint4",
        lambda: jnp.gcd(
            jnp.array([6, 4, 0, 15], ml_dtypes.uint4), jnp.array([4, 6, 5, 10], ml_dtypes.uint4)
        ).astype(jnp.int32),
        [2, 2, 5, 5],
    ),
    (
        "lcm of uint4 wraps",
        lambda: jnp.lcm(
            jnp.array([6, 4, 0, 15], ml_dtypes.uint4), jnp.array([4, 6, 5, 10], ml_dtypes.uint4)
        ).astype(jnp.int32),
        [12, 12, 0, 14],
    ),
    (
        "gcd of int4",
        lambda: jnp.gcd(jnp.array([1, -2], ml_dtypes.int4), jnp.array([3], ml_dtypes.int4)),
        TypeError,
    ),
    (
        "histogram_bin_edges 0-d bins",
        lambda: jnp.histogram_bin_edges(jnp.arange(10.0), bins=jnp.asarray(3)),
        [0, 3, 6, 9],
    ),
    ("linspace stop None", lambda: jnp.linspace(0, None), TypeError),
    (
        "lstsq numpy_resid rank-deficient",
        lambda: jnp.linalg.lstsq(
            jnp.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]]),
            jnp.array([1.0, 2.0, 4.0]),
            numpy_resid=True,
        )[1],
        [],
    ),
    (
        "dot precision checked before dtypes",
        lambda: jnp.dot(jnp.ones(3), -1j, precision="bogus", preferred_element_type="uint16"),
        ValueError,
    ),
    (
        "dot by a scalar checks precision",
        lambda: jnp.dot(jnp.ones(3), 2.0, precision="bogus"),
        ValueError,
    ),
    (
        "dot precision pair",
        lambda: jnp.dot(jnp.ones(3), jnp.ones(3), precision=("high", "high")),
        3.0,
    ),
    ("eye N None before a negative M", lambda: jnp.eye(None, M=-2), TypeError),
    ("eye k None before a negative N", lambda: jnp.eye(-1, M=-3, k=None), TypeError),
    ("eye k 2**63", lambda: jnp.eye(2, k=2**63), [[0, 0], [0, 0]]),
    ("eigvalsh None before UPLO", lambda: jnp.linalg.eigvalsh(None, UPLO="bogus"), TypeError),
    (
        "choose 0-d choices before the index dtype",
        lambda: jnp.choose(jnp.zeros(2), jnp.asarray(0.0)),
        TypeError,
    ),
    (
        "choose among no choices",
        lambda: jnp.choose(jnp.zeros(0, int), jnp.zeros(0), mode="wrap"),
        ValueError,
    ),
    (
        "matrix_norm 2 of an empty matrix",
        lambda: jnp.linalg.matrix_norm(jnp.zeros((3, 0)), ord=2),
        0.0,
    ),
    ("qr of None before mode", lambda: jnp.linalg.qr(None, mode="bogus"), TypeError),
    ("hfft of None before norm", lambda: jnp.fft.hfft(None, norm="bogus"), TypeError),
    (
        "insert at a one-element index array",
        lambda: jnp.insert(np.array([1, 5]), np.array([-2]), np.array([3, 3])),
        [3, 3, 1, 5],
    ),
    ("insert at bytes", lambda: jnp.insert(jnp.arange(4), b"ab", 1), TypeError),
    (
        "insert at a traced boolean",
        lambda: stablax.jit(lambda i: jnp.insert(jnp.arange(5), i, 1))(jnp.array([False, True])),
        ValueError,
    ),
    ("insert at 2**63", lambda: jnp.insert(jnp.arange(10), 2**63, 1), IndexError),
    (
        "interp of complex x",
        lambda: jnp.interp(jnp.array([1j]), jnp.array([1.0]), jnp.array([1.0])),
        ValueError,
    ),
    (
        "interp with no sample points",
        lambda: jnp.interp(0.0, jnp.zeros(0), jnp.zeros(0)),
        ValueError,
    ),
    (
        "convolve of None before mode",
        lambda: jnp.convolve(None, jnp.ones(2), mode="constant"),
        TypeError,
    ),
    (
        "histogramdd one bin count for two dimensions",
        lambda: jnp.histogramdd(jnp.ones((3, 2)), bins=jnp.array([3])),
        ValueError,
    ),
    (
        "histogramdd bin counts as an array",
        lambda: jnp.histogramdd(
            jnp.array([[0.0, 1.0], [2.0, 3.0], [1.0, 1.0]]), bins=jnp.array([2, 3])
        )[0],
        [[1, 0, 0], [1, 0, 1]],
    ),
    (
        "diff prepend of the wrong rank",
        lambda: jnp.diff(jnp.zeros((5, 3, 0)), n=5, axis=2, prepend=jnp.ones(5)),
        ValueError,
    ),
    (
        "correlate complex into int32",
        lambda: jnp.correlate(
            jnp.ones(3, jnp.complex64), jnp.ones(3, jnp.complex64), preferred_element_type=jnp.int32
        ),
        TypeError,
    ),
    ("clip of None", lambda: jnp.clip(None, 0, 1), ValueError),
    (
        "histogram range as an array",
        lambda: jnp.histogram(jnp.arange(4.0), bins=2, range=jnp.array([0, 4]))[0],
        [2.0, 2.0],
    ),
    ("unravel_index negative dim", lambda: jnp.unravel_index(jnp.array([0]), (-1, 2)), ValueError),
    ("unravel_index into size 0", lambda: jnp.unravel_index(jnp.array([0]), (3, 0)), ValueError),
    (
        "unravel_index of nothing into size 0",
        lambda: [a.shape for a in jnp.unravel_index(jnp.zeros(0, int), (3, 0))],
        [(0,), (0,)],
    ),
    ("vander of bool", lambda: jnp.vander(jnp.array([True, False])), TypeError),
    (
        "var ddof and correction checked first",
        lambda: jnp.var(jnp.ones(3), ddof=3, mean=object(), correction=0),
        ValueError,
    ),
    ("std ddof and correction", lambda: jnp.std(jnp.ones(3), ddof=1, correction=1), ValueError),
    (
        "unique_all counts every NaN",
        lambda: jnp.unique_all(jnp.array([np.nan, 1.0, np.nan])).counts.tolist(),
        [1, 1, 1],
    ),
    (
        "unique_values of complex NaNs",
        lambda: list(jnp.unique_values(jnp.array([np.nan, 1, np.nan], np.complex64)).shape),
        [3],
    ),
    ("nancumprod of a scalar along axis 0", lambda: jnp.nancumprod(2, axis=0), [2]),
    ("cumsum of a 0-d array along axis 0", lambda: jnp.cumsum(np.float32(2), axis=0), [2.0]),
    ("nancumprod of a scalar along axis 1", lambda: jnp.nancumprod(2, axis=1), ValueError),
    ("nanmedian of nothing", lambda: bool(np.isnan(jnp.nanmedian(jnp.zeros(0)))), True),
    (
        "nanquantile of empty lanes",
        lambda: np.isnan(jnp.nanquantile(jnp.zeros((2, 0)), 0.5, axis=1)).tolist(),
        [True, True],
    ),
    ("nanmedian out", lambda: jnp.nanmedian(jnp.ones(3), out=jnp.zeros(())), ValueError),
    ("quantile out", lambda: jnp.quantile(jnp.ones(3), 0.5, out=jnp.zeros(())), ValueError),
    (
        "nanquantile complex weights",
        lambda: jnp.nanquantile(jnp.ones(2), 0.5, weights=jnp.ones(2, np.complex64)),
        ValueError,
    ),
    (
        "quantile weights need inverted_cdf",
        lambda: jnp.quantile(jnp.ones(2), 0.5, method="linear", weights=jnp.ones(2)),
        NotImplementedError,
    ),
    (
        "mean checks where before out",
        lambda: jnp.mean(jnp.ones(2), out=1.0, where=jnp.ones(2)),
        ValueError,
    ),
    ("nanmax checks where before axis", lambda: jnp.nanmax(jnp.ones(2), "a", where=1), ValueError),
    ("mean dtype bool", lambda: jnp.mean(jnp.ones(2), dtype=bool), TypeError),
    ("mean dtype bool of nothing", lambda: jnp.mean(jnp.zeros(0), dtype=bool), TypeError),
    (
        "repeat counts of shape (1, 1)",
        lambda: jnp.repeat(jnp.array([[7]]), jnp.array([[2]]), total_repeat_length=3),
        [7, 7, 7],
    ),
    ("repeat of a 0-d array along axis 0", lambda: jnp.repeat(jnp.int8(2), 3, axis=0), [2, 2, 2]),
    (
        "repeat traced counts of shape (1, 1)",
        lambda: stablax.jit(lambda r: jnp.repeat(jnp.array([[5]]), r, 0, total_repeat_length=1))(
            jnp.array([[4]])
        ),
        [[5]],
    ),
    ("repeat float counts", lambda: jnp.repeat(jnp.ones(2), 1.5, total_repeat_length=3), TypeError),
    ("repeat mismatched counts", lambda: jnp.repeat(jnp.ones(3), jnp.ones(2, int)), ValueError),
    ("take bool index", lambda: jnp.take(jnp.array([5, 6]), True), 6),
    ("take int4 indices", lambda: jnp.take(jnp.array([5, 6]), jnp.array([1], ml_dtypes.int4)), [6]),
    ("take from an empty axis", lambda: jnp.take(jnp.zeros((3, 0)), 0), IndexError),
    ("take float index from an empty axis", lambda: jnp.take(jnp.zeros(0), 1.5), IndexError),
    ("ptp checks the axis first", lambda: jnp.ptp(jnp.bool_(True), axis=0), ValueError),
    ("tri N None", lambda: jnp.tri(None), TypeError),
    ("tri k past the corner", lambda: jnp.tri(2, k=2**63).tolist(), [[1.0, 1.0], [1.0, 1.0]]),
    ("tril k 2**40", lambda: jnp.tril(jnp.ones((2, 2)), k=2**40).tolist(), [[1.0] * 2] * 2),
    (
        "setxor1d of nothing with size",
        lambda: jnp.setxor1d(jnp.zeros(0), jnp.zeros((2, 0)), size=3).tolist(),
        [0.0, 0.0, 0.0],
    ),
    (
        "unravel_index of int4 indices",
        lambda: [
            (str(c.dtype), c.tolist())
            for c in jnp.unravel_index(jnp.array([5, 3], ml_dtypes.int4), (2, 5))
        ],
        [("int4", [1, 0]), ("int4", [0, 3])],
    ),
    (
        "trapezoid x broadcast from the right",
        lambda: jnp.trapezoid(jnp.ones((2, 2, 0)), x=jnp.ones((1, 1, 1))).tolist(),
        [[0.0, 0.0], [0.0, 0.0]],
    ),
    ("trapezoid mismatched x", lambda: jnp.trapezoid(jnp.ones((3, 4)), x=jnp.ones(3)), ValueError),
    ("trapezoid dx None", lambda: jnp.trapezoid(jnp.ones(3), dx=None), TypeError),
    ("trapezoid of nothing", lambda: jnp.trapezoid(jnp.zeros((0, 0))).tolist(), []),
    ("rot90 of a scalar", lambda: jnp.rot90(1.0, axes=None), ValueError),
    ("meshgrid checks its arrays first", lambda: jnp.meshgrid(None, copy=False), TypeError),
    ("nanpercentile complex q", lambda: jnp.nanpercentile(jnp.ones(3), 50 + 0j), ValueError),
    (
        "percentile q rank before complex",
        lambda: jnp.percentile(jnp.ones(3), jnp.ones((2, 2), jnp.complex64)),
        ValueError,
    ),
    ("tril checks the rank before k", lambda: jnp.tril(jnp.ones(3), k=1.5), ValueError),
    (
        "concatenate of int2 (XLA:CPU aborts)",
        lambda: jnp.concatenate([jnp.array([1], ml_dtypes.int2)] * 2),
        TypeError,
    ),
    ("size of a NaN axis", lambda: jnp.size(jnp.zeros(2), axis=float("nan")), TypeError),
    ("size of axes", lambda: jnp.size(jnp.zeros((2, 3)), axis=(0, 1)), 6),
    (
        "piecewise conditions of another shape",
        lambda: jnp.piecewise(jnp.zeros((2, 1)), jnp.ones((1, 3), bool), [lambda v: v]),
        ValueError,
    ),
    (
        "unique counts complex NaNs as one",
        lambda: jnp.unique(jnp.array([np.nan, 1, complex(1, np.nan)], np.complex64)).size,
        2,
    ),
    ("packbits of int4", lambda: jnp.packbits(jnp.array([1, -2, 3, 0] * 2, ml_dtypes.int4)), [238]),
    (
        "take_along_axis int4 indices",
        lambda: jnp.take_along_axis(jnp.arange(4), jnp.array([1, -2], ml_dtypes.int4), axis=0),
        [1, 2],
    ),
    (
        "trapezoid of int4 y and x",
        lambda: jnp.trapezoid(*[jnp.array([1, -2, 3, 0], ml_dtypes.int4)] * 2),
        -0.5,
    ),
    ("take fill of uint4", lambda: jnp.take(jnp.array([4, 1], ml_dtypes.uint4), 5).tolist(), 15),
    (
        "polymul checks ranks before trimming",
        lambda: jnp.polymul(jnp.ones((3, 5)), jnp.ones(2), trim_leading_zeros=True),
        ValueError,
    ),
    (
        "polymul trims concrete coefficients under grad",
        lambda: stablax.grad(
            lambda v: jnp.polymul(jnp.array([0.0, 1.0, 2.0]), v, trim_leading_zeros=True).sum()
        )(jnp.array([0.0, 1.0])),
        [0.0, 3.0],
    ),
    ("nanstd array ddof", lambda: jnp.nanstd(jnp.arange(5.0), ddof=jnp.asarray(1)) ** 2, 2.5),
    ("nanstd integer dtype", lambda: jnp.nanstd(jnp.ones(3), dtype=jnp.int8), TypeError),
    (
        "unpackbits checks the dtype first",
        lambda: jnp.unpackbits(jnp.ones(2), bitorder=None),
        TypeError,
    ),
    (
        "matmul checks the precision first",
        lambda: jnp.matmul(jnp.ones((1, 2)), jnp.ones((3, 1)), precision="bogus"),
        ValueError,
    ),
    ("tril_indices_from of a str", lambda: jnp.tril_indices_from("a"), TypeError),
    (
        "stack checks the dtype before the shapes",
        lambda: jnp.stack([jnp.ones(2), jnp.ones(3)], dtype="foo"),
        TypeError,
    ),
    ("round an int to -2**63 decimals", lambda: jnp.round(3, decimals=-(2**63)), 0),
    (
        "associative_scan fn returns a bool",
        lambda: lax.associative_scan(lambda *a: False, jnp.ones((2, 3))),
        TypeError,
    ),
    (
        "clamp of bool",
        lambda: lax.clamp(
            jnp.array([False, True, False, False]),
            jnp.array([True, False, False, True]),
            jnp.array([True, True, False, False]),
        ),
        [True, True, False, False],
    ),
    (
        "map batch_size 0 is vmap",
        lambda: lax.map(lambda v: v * 2, jnp.arange(6.0).reshape(3, 2), batch_size=0),
        [[0.0, 2.0], [4.0, 6.0], [8.0, 10.0]],
    ),
    (
        "map batch_size 0 gives f one argument",
        lambda: lax.map(lax.add, jnp.ones(3), batch_size=0),
        TypeError,
    ),
    ("cummax of None", lambda: lax.cummax(None), TypeError),
    ("cumsum of an object", lambda: stablax.jit(lambda: lax.cumsum(object()))(), TypeError),
    ("index_take of no index arrays", lambda: lax.index_take(jnp.ones(3), (), ()), ValueError),
    (
        "index_take with a 0-d idxs",
        lambda: lax.index_take(jnp.asarray(1), jnp.asarray(1.5 + 0j), (0,)),
        TypeError,
    ),
    ("concatenate of nothing", lambda: lax.concatenate([], 0), ValueError),
    (
        "conv padding of an int",
        lambda: lax.conv_with_general_padding(
            jnp.ones((1, 1, 5)), jnp.ones((1, 1, 2)), (1,), 3, (1,), (1,)
        ),
        ValueError,
    ),
    (
        "conv string padding with float lhs_dilation",
        lambda: lax.conv_with_general_padding(
            jnp.ones((1, 1, 5)), jnp.ones((1, 1, 2)), (1.5,), "SAME_LOWER", (1.5,), (1,)
        ),
        ValueError,
    ),
    (
        "reduce_window_shape_tuple zero stride",
        lambda: lax.reduce_window_shape_tuple((5, 0), (0, 0), (5, 0), "VALID"),
        ValueError,
    ),
    (
        "reduce_window_shape_tuple negative dilation",
        lambda: lax.reduce_window_shape_tuple((2, 2), (3, 4), (2, 2), "SAME", (-1, 2)),
        TypeError,
    ),
    ("select_n one case", lambda: lax.select_n(jnp.array([1, 0]), jnp.ones(1)), TypeError),
    ("argmin empty axis", lambda: lax.argmin(jnp.ones((3, 0)), 1, jnp.float32), ValueError),
    (
        "rng_bit_generator dtype None before out_sharding",
        lambda: lax.rng_bit_generator(jnp.zeros(4, jnp.uint32), (2,), None, out_sharding=True),
        ValueError,
    ),
    (
        "schur sort of a non-square matrix",
        lambda: lax.linalg.schur(jnp.ones((5, 3)), sort_eig_vals=True),
        ValueError,
    ),
    (
        "conv_transpose of rank 2",
        lambda: lax.conv_transpose(jnp.ones((3, 2)), jnp.ones((2, 4)), (), "VALID").shape,
        [3, 4],
    ),
    (
        "conv_transpose too many strides",
        lambda: lax.conv_transpose(jnp.ones((5, 5)), jnp.ones((5, 1)), (5, 5), "SAME"),
        ValueError,
    ),
    ("dynamic_slice indices first", lambda: lax.dynamic_slice(jnp.ones(()), (0, 1), 9), ValueError),
    ("switch bool index", lambda: lax.switch(True, [lambda: 1 / 0, lambda: 1 / 0]), TypeError),
    ("switch bool index before no branches", lambda: lax.switch(True, []), TypeError),
    ("fori_loop bool bound", lambda: lax.fori_loop(True, 0, lambda i, c: c + 1, 0), TypeError),
    ("fori_loop overflow", lambda: lax.fori_loop(-(2**63), 1, lambda i, c: c, 0), OverflowError),
    (
        "conv zero feature groups of scalars",
        lambda: lax.conv_general_dilated(
            jnp.ones(()), jnp.ones(()), (), "VALID", feature_group_count=0
        ),
        ValueError,
    ),
    (
        "conv str dimension_numbers first",
        lambda: lax.conv_general_dilated(
            jnp.ones((2, 2)), jnp.ones((2, 2)), (2,), "SAME", (2,), dimension_numbers="a"
        ),
        TypeError,
    ),
    (
        "symmetric_product shapes before batch",
        lambda: lax.linalg.symmetric_product(jnp.ones((3, 2, 1)), jnp.ones((0, 5, 1))),
        ValueError,
    ),
    (
        "triangular_solve ranks before squareness",
        lambda: lax.linalg.triangular_solve(jnp.ones((3, 3, 2)), jnp.ones(())),
        TypeError,
    ),
    (
        "triangular_solve shapes before dtypes",
        lambda: lax.linalg.triangular_solve(
            jnp.ones((2, 2), bool), jnp.ones((2, 1), bool), left_side=False
        ),
        ValueError,
    ),
    ("square of bool", lambda: lax.square(True), TypeError),
    ("integer_pow numpy bool", lambda: lax.integer_pow(jnp.array([-1.5]), np.bool_(True)), [-1.5]),
    ("select of None", lambda: lax.select(None, jnp.ones(3), jnp.ones(3)), TypeError),
    ("eig input first", lambda: lax.linalg.eig(jnp.ones(1), implementation=True), TypeError),
    ("rng_uniform bounds first", lambda: lax.rng_uniform(jnp.ones(2), 1.0, (1.5,)), ValueError),
    ("full of an int shape", lambda: lax.full(2, 0.5), [0.5, 0.5]),
    ("full_like of an int shape", lambda: lax.full_like(jnp.ones(2), 0, shape=3), [0.0, 0.0, 0.0]),
    (
        "ragged_dot of a 0-d rhs",
        lambda: lax.ragged_dot(jnp.ones(4), jnp.asarray(2.0), jnp.array([3, 2, 6, 3])),
        TypeError,
    ),
    ("polygamma grad m", lambda: stablax.grad(lambda m: lax.polygamma(m, 2.0))(1.0), ValueError),
    (
        "scatter_sub mode before updates",
        lambda: lax.scatter_sub(
            jnp.ones((1, 5), jnp.uint8),
            jnp.array([7], jnp.uint8),
            jnp.ones((1, 1), bool),
            None,
            mode="constant",
        ),
        ValueError,
    ),
    (
        "while_loop traces the body before checking cond",
        lambda: lax.while_loop(jnp.sin, lambda c: 1 / 0, jnp.ones(2)),
        ZeroDivisionError,
    ),
    (
        "cummin gradient along a length-1 axis",
        lambda: stablax.grad(lambda v: jnp.sum(lax.cummin(v)))(jnp.array([[0.0, np.nan, np.inf]])),
        [[1.0, 1.0, 1.0]],
    ),
    ("approx_max_k of bytes", lambda: lax.approx_max_k(b"ab", -5), TypeError),
    ("exp2 of a NumPy bfloat16", lambda: lax.exp2(ml_dtypes.bfloat16(1.0)).astype(float), 2.0),
    (
        "scatter_apply func returning a tuple",
        lambda: lax.scatter_apply(jnp.ones((4, 1)), jnp.zeros((4, 1), int), lambda c: (c, c), None),
        ValueError,
    ),
    ("broadcasted_iota of an int shape", lambda: lax.broadcasted_iota(jnp.int32, 3, 0), [0, 1, 2]),
]


@pytest.mark.parametrize("name, call, expected", _FUZZ_100K, ids=[c[0] for c in _FUZZ_100K])
def test_fuzz_100k_finding(name, call, expected):
    test_reproducer(name, call, expected)
