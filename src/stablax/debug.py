"""stablax.debug: JAX's jax.debug: values of a computation seen from inside it, at every
execution (print, callback, breakpoint, log) and array layouts (sharding)."""

from stablax._src import traceback_util as _traceback_util
from stablax._src.callbacks import DebugEffect as DebugEffect
from stablax._src.callbacks import OrderedDebugEffect as OrderedDebugEffect
from stablax._src.callbacks import debug_callback as callback
from stablax._src.callbacks import debug_log as log
from stablax._src.callbacks import debug_print as print  # noqa: A004
from stablax._src.callbacks import inspect_array_sharding as inspect_array_sharding
from stablax._src.callbacks import visualize_array_sharding as visualize_array_sharding
from stablax._src.callbacks import visualize_sharding as visualize_sharding
from stablax._src.debug_breakpoint import breakpoint as breakpoint  # noqa: A004

__all__ = [
    "DebugEffect",
    "OrderedDebugEffect",
    "breakpoint",
    "callback",
    "inspect_array_sharding",
    "log",
    "print",
    "visualize_array_sharding",
    "visualize_sharding",
]

_traceback_util.wrap_public_functions(globals())
