"""`jax.interpreters.ad` under the alias (equinox registers JVP and transpose rules)."""

from stablax._compat.primitives import (  # noqa: F401
    UndefinedPrimal,
    Zero,
    instantiate_zeros,
    is_undefined_primal,
    primitive_jvps,
    primitive_transposes,
)
from stablax._src.transforms.ad_forward import jvp  # noqa: F401
