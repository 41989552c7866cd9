"""`jax._src.dtypes` under the alias: stablax.dtypes plus the internal helpers libraries use."""

from stablax._src.dtypes import canonicalize_dtype, is_weakly_typed  # noqa: F401  (flax)
from stablax.dtypes import *  # noqa: F403
from stablax.dtypes import TypePromotionError  # noqa: F401  (equinox)
