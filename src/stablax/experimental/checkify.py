"""stablax.experimental.checkify: JAX's jax.experimental.checkify, functional error checks (a
rewrite of the traced StableHLO that threads an error value through it)."""

from stablax._src.transforms.checkify_api import (
    check,
    check_error,
    checkify,
    debug_check,
)
from stablax._src.transforms.checkify_error import Error, init_error
from stablax._src.transforms.checkify_kinds import (
    ErrorCategory,
    JaxRuntimeError,
    all_checks,
    automatic_checks,
    div_checks,
    float_checks,
    index_checks,
    nan_checks,
    user_checks,
)

__all__ = [
    "Error",
    "ErrorCategory",
    "JaxRuntimeError",
    "all_checks",
    "automatic_checks",
    "check",
    "check_error",
    "checkify",
    "debug_check",
    "div_checks",
    "float_checks",
    "index_checks",
    "init_error",
    "nan_checks",
    "user_checks",
]
