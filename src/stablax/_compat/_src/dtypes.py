"""`jax._src.dtypes` under the alias: stablax.dtypes plus the internal names libraries use."""

import numpy as np

from stablax._src.dtypes import (  # noqa: F401
    ExtendedDType,  # flax linen fp8_ops: subclassed at import
    canonicalize_dtype,  # flax
    is_weakly_typed,  # flax
)
from stablax.dtypes import *  # noqa: F403
from stablax.dtypes import TypePromotionError  # noqa: F401  (equinox)

DType = np.dtype  # flax linen fp8_ops: annotation
