"""stablax.scipy: SciPy's APIs on stablax arrays, as `jax.scipy`."""

from stablax.scipy import special as special
from stablax.scipy import stats as stats
