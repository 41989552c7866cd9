"""`jax._src.tree_util` under the alias: stablax's pytree registry.

flax nnx consults `_registry` (`type(x) in _registry`) while training to tell pytree nodes from
leaves; it is stablax's registry itself, so user registrations are seen.
"""

from stablax._src.pytree_registry import _registry  # noqa: F401  (flax nnx graphlib)
from stablax.tree_util import *  # noqa: F403
