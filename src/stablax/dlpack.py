"""`stablax.dlpack`: exchanging arrays with other libraries through DLPack, as `jax.dlpack`.

Exporting needs no function: pass a stablax Array to the other library's `from_dlpack`
(`np.from_dlpack(x)`, `torch.from_dlpack(x)`), which calls `x.__dlpack__()`.
"""

from stablax._src.dlpack import from_dlpack, is_supported_dtype

__all__ = ["from_dlpack", "is_supported_dtype"]
