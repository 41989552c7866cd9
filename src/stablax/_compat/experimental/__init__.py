"""`jax.experimental` under the alias: stablax.experimental's modules plus the compat ones.

`jax.experimental.ode` (and the other modules stablax has) still come from stablax.experimental;
`checkify`, `layout`, `hijax`, `io_callback` and `MutableArray` are what chex, flax and equinox
take from here.
"""

from stablax._src.callbacks import io_callback as io_callback  # equinox
from stablax._src.refs import Ref as MutableArray  # noqa: F401  (flax: older name of jax.Ref)
from stablax.experimental import *  # noqa: F403
