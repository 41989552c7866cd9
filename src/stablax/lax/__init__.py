"""stablax.lax: primitives that map one-to-one (or nearly) onto StableHLO operations."""

# Exceptions leaving a public function lose stablax's internal frames (traceback_util.py).
from stablax._src import traceback_util as _traceback_util
from stablax._src.lax import *  # noqa: F403
from stablax._src.lax import abs, complex, max, min, pow, round, slice
from stablax._src.lax_primitives import *  # noqa: F403  (the *_p primitive objects)
from stablax._src.transforms.solves import custom_linear_solve, custom_root
from stablax.lax import linalg

_traceback_util.wrap_public_functions(globals())
