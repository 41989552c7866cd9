"""`stablax.image`: image resizing and resampling, as `jax.image`."""

from stablax._src.image import ResizeMethod, resize, scale_and_translate

__all__ = ["ResizeMethod", "resize", "scale_and_translate"]
