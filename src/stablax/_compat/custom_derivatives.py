"""`jax.custom_derivatives` under the alias: stablax's, plus the call primitives equinox keys
its jaxpr rewrites by (binding them raises: stablax has no jaxprs to rewrite)."""

import stablax.custom_derivatives as _public
from stablax._compat.primitives import Primitive
from stablax.custom_derivatives import *  # noqa: F403

custom_jvp_call_p = Primitive("custom_jvp_call")  # equinox internal: primitive_finalisations key
custom_vjp_call_p = Primitive("custom_vjp_call")  # equinox internal: dict key
custom_vjp_call_jaxpr_p = Primitive("custom_vjp_call_jaxpr")  # equinox internal: dict key


def __getattr__(name):  # stablax.custom_derivatives' remaining names
    return getattr(_public, name)
