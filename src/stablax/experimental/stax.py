"""stablax.experimental.stax: the early path of `stablax.example_libraries.stax` (same module
contents), as `jax.experimental.stax` was.
"""

from stablax.example_libraries import stax as _stax

globals().update({name: getattr(_stax, name) for name in _stax.__all__})
__all__ = list(_stax.__all__)
