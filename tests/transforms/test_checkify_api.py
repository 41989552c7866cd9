"""checkify's user-facing API: `check`, `debug_check`, `check_error`, the `Error` value (`get`,
`get_exception`, `throw`), `JaxRuntimeError` with the user's file:line, and the argument errors.

Expected messages are JAX 0.10.2's, recorded from `jax.experimental.checkify` on the same code.
"""

from __future__ import annotations

import inspect
import pathlib

import numpy as np
import pytest

import stablax as jax
import stablax.numpy as jnp
from stablax.experimental import checkify

POSITIVE = "-3.0 needs to be positive (`check` failed)"


def positive_log(x):
    checkify.check(x > 0, "{} needs to be positive", x)
    return jnp.log(x)


CHECK_LINE = inspect.getsourcelines(positive_log)[1] + 1  # the line of the check call


def test_the_module_has_jax_s_names_and_no_others():
    jax_names = pathlib.Path(__file__).parents[1] / "api" / "jax.experimental.checkify.txt"
    names = sorted(n for n in dir(checkify) if not n.startswith("_"))
    assert names == sorted(jax_names.read_text().split())
    assert issubclass(checkify.JaxRuntimeError, ValueError)


def test_check_formats_its_message_with_the_values():
    err, out = checkify.checkify(positive_log)(jnp.float32(-3))
    assert err.get() == POSITIVE
    assert np.isnan(float(out))  # the function still runs: the error is returned beside it
    err, out = checkify.checkify(positive_log)(jnp.float32(np.e))
    assert err.get() is None
    np.testing.assert_allclose(float(out), 1.0, rtol=1e-6)


def test_check_formats_keyword_and_pytree_arguments():
    def f(x):
        checkify.check(jnp.all(x > 0), "x={x} y={y}", x=x, y={"a": x + 1})
        return x

    err, _ = checkify.checkify(f)(jnp.array([1.0, -2.0]))
    assert err.get() == "x=[ 1. -2.] y={'a': Array([ 2., -1.], dtype=float32)} (`check` failed)"


def test_check_takes_python_bools_and_keyword_arguments_of_f():
    def f(x):
        checkify.check(False, "always")
        return x

    assert checkify.checkify(f)(1.0)[0].get() == "always (`check` failed)"
    g = checkify.checkify(lambda x, *, y: positive_log(x * y))
    assert g(jnp.float32(3.0), y=jnp.float32(-1.0))[0].get() == POSITIVE


def test_the_first_failed_check_is_reported():
    def f(x):
        checkify.check(x > 5, "first")
        checkify.check(x > 10, "second")
        return x

    assert checkify.checkify(f)(jnp.float32(1))[0].get() == "first (`check` failed)"
    assert checkify.checkify(f)(jnp.float32(7))[0].get() == "second (`check` failed)"


def test_a_jitted_checkified_function_checks_each_call():
    f = jax.jit(checkify.checkify(positive_log))
    messages = [f(jnp.float32(v))[0].get() for v in (1.0, -1.0, 2.0)]
    assert messages == [None, "-1.0 needs to be positive (`check` failed)", None]


def test_check_outside_checkify_raises_where_values_are_known():
    with pytest.raises(checkify.JaxRuntimeError, match=r"^-1.0 needs to be positive"):
        positive_log(jnp.float32(-1))
    f = jax.grad(lambda x: (checkify.check(False, "always"), x)[1])
    with pytest.raises(checkify.JaxRuntimeError) as info:
        f(1.0)
    assert str(info.value) == "always (`check` failed)"
    assert float(positive_log(jnp.float32(1))) == 0.0


def test_check_staged_without_checkify_asks_for_it():
    with pytest.raises(ValueError) as info:
        jax.jit(positive_log)(jnp.float32(1))
    assert str(info.value).startswith(
        "Cannot abstractly evaluate a checkify.check which was not functionalized. This "
        "probably means you tried to stage (jit/scan/pmap/...) a `check` without "
        "functionalizing it through `checkify.checkify`."
    )


def test_debug_check_is_checked_only_under_checkify():
    def f(x):
        checkify.debug_check(x > 0, "dbg {}", x)
        return x

    assert checkify.checkify(f)(jnp.float32(-1))[0].get() == "dbg -1.0 (`check` failed)"
    assert float(jax.jit(f)(jnp.float32(-1))) == -1.0
    assert float(f(jnp.float32(-1))) == -1.0
    assert checkify.debug_check(False, "x") is None


def test_check_rejects_what_jax_rejects():
    with pytest.raises(TypeError) as info:
        checkify.check(jnp.array([True, False]), "m")
    assert str(info.value) == "check takes a scalar pred as argument, got [ True False]"
    with pytest.raises(TypeError) as info:
        checkify.check(jnp.bool_(True), "m {}", 3)
    assert str(info.value) == (
        "Formatting arguments to checkify.check need to be PyTrees of arrays, but got 3 of type "
        "<class 'int'>."
    )
    with pytest.raises(TypeError) as info:
        checkify.check_error(3)
    assert (
        str(info.value) == "check_error takes an Error as argument, got type <class 'int'> instead."
    )


def test_check_error_raises_or_joins_checkify():
    err, _ = checkify.checkify(positive_log)(jnp.float32(-3))
    with pytest.raises(checkify.JaxRuntimeError, match=r"^-3.0 needs to be positive"):
        checkify.check_error(err)
    again, _ = checkify.checkify(lambda e: checkify.check_error(e))(err)
    assert again.get() == POSITIVE
    ok, _ = checkify.checkify(positive_log)(jnp.float32(3))
    assert checkify.check_error(ok) is None


def test_error_values_read_as_jax_s():
    err, _ = checkify.checkify(positive_log)(jnp.float32(-3))
    assert str(err) == f"Error({POSITIVE})"
    assert type(err.get_exception()).__name__ == "FailedCheckError"
    ok, _ = checkify.checkify(positive_log)(jnp.float32(3))
    assert (ok.get(), str(ok), ok.get_exception()) == (None, "Error(None)", None)
    assert (checkify.init_error.get(), str(checkify.init_error)) == (None, "Error(None)")


def test_throw_raises_jax_runtime_error_naming_the_user_s_line():
    err, _ = checkify.checkify(positive_log)(jnp.float32(-3))
    with pytest.raises(checkify.JaxRuntimeError) as info:
        err.throw()
    assert str(info.value) == POSITIVE
    assert type(info.value.__cause__).__name__ == "FailedCheckError"
    assert f"(check failed at {__file__}:{CHECK_LINE})" in info.value.__notes__
    ok, _ = checkify.checkify(positive_log)(jnp.float32(3))
    assert ok.throw() is None


def test_a_nan_error_names_the_op_s_line():
    def f(x):
        y = jnp.sin(x)
        return jnp.log(y)

    line = inspect.getsourcelines(f)[1] + 2
    for checked in (checkify.checkify, lambda g, **kw: jax.jit(checkify.checkify(g, **kw))):
        err, _ = checked(f, errors=checkify.nan_checks)(jnp.float32(-1))
        with pytest.raises(checkify.JaxRuntimeError) as info:
            err.throw()
        assert str(info.value) == "nan generated by primitive: log."
        assert f"(check failed at {__file__}:{line})" in info.value.__notes__


def test_throw_of_a_batched_error_raises_the_last_failure():
    err, _ = jax.vmap(checkify.checkify(positive_log))(jnp.array([1.0, -2.0, -3.0]))
    assert err.get() == (
        "at mapped index 1: -2.0 needs to be positive (`check` failed)\n"
        "at mapped index 2: -3.0 needs to be positive (`check` failed)"
    )
    assert type(err.get_exception()).__name__ == "BatchedError"
    with pytest.raises(checkify.JaxRuntimeError) as info:
        err.throw()
    assert str(info.value) == POSITIVE  # JAX reduces a batched error to its last failure


def test_nested_vmaps_name_both_indices():
    f = jax.vmap(jax.vmap(checkify.checkify(positive_log)))
    err, _ = f(jnp.array([[1.0, -2.0], [-3.0, 4.0]]))
    assert err.get() == (
        "at mapped index 0, 1: -2.0 needs to be positive (`check` failed)\n"
        "at mapped index 1, 0: -3.0 needs to be positive (`check` failed)"
    )


def test_throw_and_checkify_inside_checkify():
    def f(x):
        checkify.checkify(positive_log)(x)[0].throw()
        return x

    assert checkify.checkify(f)(jnp.float32(-3))[0].get() == POSITIVE
    inner_error = checkify.checkify(checkify.checkify(positive_log))(jnp.float32(-3))[1][0]
    assert inner_error.get() == POSITIVE


def test_checks_under_other_transformations():
    assert checkify.checkify(jax.vmap(jax.grad(positive_log)))(jnp.array([1.0, -2.0]))[0].get() == (
        "-2.0 needs to be positive (`check` failed)"
    )
    jvp = checkify.checkify(lambda x: jax.jvp(positive_log, (x,), (1.0,)))
    assert jvp(jnp.float32(-2.0))[0].get() == "-2.0 needs to be positive (`check` failed)"
    remat = checkify.checkify(jax.grad(jax.checkpoint(positive_log)))
    assert remat(jnp.float32(-2.0))[0].get() == "-2.0 needs to be positive (`check` failed)"
    g = jax.grad(lambda x: checkify.checkify(positive_log)(x)[1])
    np.testing.assert_allclose(float(g(jnp.float32(2.0))), 0.5)
    np.testing.assert_allclose(float(g(jnp.float32(-2.0))), -0.5)
    relu = checkify.checkify(
        lambda x: jax.grad(jax.nn.relu)(jnp.log(x)), errors=checkify.all_checks
    )
    assert relu(jnp.float32(-2.0))[0].get() == "nan generated by primitive: log."  # custom_jvp


def test_pytree_outputs_come_back_beside_the_error():
    err, out = checkify.checkify(lambda d: {"a": positive_log(d["x"]), "b": d["x"]})(
        {"x": jnp.float32(-1.0)}
    )
    assert err.get() == "-1.0 needs to be positive (`check` failed)"
    assert sorted(out) == ["a", "b"] and float(out["b"]) == -1.0
