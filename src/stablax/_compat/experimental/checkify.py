"""`jax.experimental.checkify` under the alias (chex: asserts, chexify).

`check` works eagerly (a false predicate raises JaxRuntimeError with the formatted message) and
the error categories exist; the `checkify` transformation itself, which functionalizes checks
inside `jit`, raises NotImplementedError until its own issue lands.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax._src import core as _core

_LATER = "later issue: checkify (functional error checks)"


class JaxRuntimeError(ValueError):
    """A check that failed."""


class ErrorCategory:
    """The kind of a check: user, NaN, index, division (one subclass each)."""


class UserCheckError(ErrorCategory):
    pass


class NaNError(ErrorCategory):
    pass


class OOBError(ErrorCategory):
    pass


class DivisionByZeroError(ErrorCategory):
    pass


user_checks = frozenset({UserCheckError})
nan_checks = frozenset({NaNError})
index_checks = frozenset({OOBError})
div_checks = frozenset({DivisionByZeroError})
float_checks = nan_checks | div_checks
automatic_checks = float_checks | index_checks
all_checks = automatic_checks | user_checks


class Error:
    """The error value a checkified function returns: here always the empty error."""

    def get(self) -> str | None:
        return None

    def get_exception(self) -> Exception | None:
        return None

    def throw(self) -> None:
        return None


init_error = Error()


def _is_traced(x: Any) -> bool:
    return isinstance(x, _core.Tracer)


def check(pred: Any, msg: str, *fmt_args: Any, **fmt_kwargs: Any) -> None:
    """Raises JaxRuntimeError(msg) when `pred` is false (eagerly: outside any trace).

    Under `jit`, `grad` or `vmap` JAX requires the function to be wrapped in `checkify`;
    stablax does not have that transformation yet, so a traced `pred` raises NotImplementedError.
    """
    if _is_traced(pred) or any(_is_traced(a) for a in (*fmt_args, *fmt_kwargs.values())):
        raise NotImplementedError(
            f"jax.experimental.checkify.check on a traced value (stablax alias): {_LATER}"
        )
    if not bool(np.all(np.asarray(pred))):
        args = [np.asarray(a) for a in fmt_args]
        kwargs = {k: np.asarray(v) for k, v in fmt_kwargs.items()}
        raise JaxRuntimeError(msg.format(*args, **kwargs))


def debug_check(pred: Any, msg: str, *fmt_args: Any, **fmt_kwargs: Any) -> None:
    """`check` that is dropped (not raised) where it cannot be functionalized."""
    if _is_traced(pred):
        return
    check(pred, msg, *fmt_args, **fmt_kwargs)


def check_error(error: Error) -> None:
    """Raises the error carried by `error` (the empty error here, so nothing)."""
    if not isinstance(error, Error):
        raise TypeError(f"checkify.check_error: expected an Error, got {type(error).__name__}")
    error.throw()


def checkify(fun: Any, errors: Any = user_checks) -> Any:
    """The checkify transformation: not implemented yet (chex.chexify needs it)."""
    raise NotImplementedError(
        f"jax.experimental.checkify.checkify (stablax alias; chex.chexify needs it): {_LATER}"
    )
