"""stablax.experimental.optimizers: the early path of `stablax.example_libraries.optimizers`
(same module contents), as `jax.experimental.optimizers` was.
"""

from stablax.example_libraries import optimizers as _optimizers

globals().update({name: getattr(_optimizers, name) for name in _optimizers.__all__})
__all__ = list(_optimizers.__all__)
