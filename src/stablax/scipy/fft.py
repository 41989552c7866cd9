"""stablax.scipy.fft: JAX's jax.scipy.fft (type-2 discrete cosine transforms)."""

from stablax._src.scipy.fft import dct, dctn, idct, idctn

__all__ = ["dct", "dctn", "idct", "idctn"]
