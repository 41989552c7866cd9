"""Top-level helpers beyond the transformations: name scopes, compile-time evaluation, `typeof`,
live arrays, host and process queries, `copy_to_host_async`, `ds`, environment information."""

from __future__ import annotations

import contextlib
import functools
import gc
import platform
import sys
from collections.abc import Callable, Iterator
from typing import Any

import jaxlib
import numpy as np

from stablax._src import dispatch, dtypes, runtime, tree_util
from stablax._src import ir as mlir
from stablax._src.array import Array
from stablax._src.avals import ExtendedShapedArray, aval_of
from stablax._src.numpy._indexing import DynamicSlice
from stablax._src.refs import Ref


@contextlib.contextmanager
def named_scope(name: str) -> Iterator[None]:
    """Names the ops traced inside the block: their locations carry `name` (nested scopes join
    with "/"), which shows in `make_jaxpr` output and XLA's profiles, as JAX's name stack.

    Example: `with stablax.named_scope("attention"): ...`.
    """
    if not isinstance(name, str):
        raise TypeError(f"named_scope name must be a string, got {name!r}")
    with mlir.name_scope(name):
        yield


def named_call(fun: Callable, *, name: str | None = None) -> Callable:
    """`fun` whose traced ops are named `name` (default: fun's `__name__`), as `named_scope`."""
    scope = name if name is not None else getattr(fun, "__name__", "named_call")

    @functools.wraps(fun)
    def call(*args: Any, **kwargs: Any) -> Any:
        with mlir.name_scope(scope):
            return fun(*args, **kwargs)

    return call


@contextlib.contextmanager
def ensure_compile_time_eval() -> Iterator[None]:
    """Inside the block, operations on concrete values run right away even under `jit`: their
    results are concrete arrays (program constants) rather than traced values.

    Example:
      @jit
      def f(x):
          with ensure_compile_time_eval():
              table = jnp.arange(4.0) ** 2   # a concrete Array
          return x * table[2]
    """
    saved = dispatch.compile_time_eval.active
    dispatch.compile_time_eval.active = True
    try:
        yield
    finally:
        dispatch.compile_time_eval.active = saved


def typeof(x: Any) -> Any:
    """The abstract value of `x`: its shape, dtype and weak type (`ShapedArray`), a typed key
    array's (`ExtendedShapedArray`), or a Ref's `AbstractRef`.

    Example: `str(typeof(jnp.ones((3, 4))))` is `float32[3,4]`; Python scalars are weakly typed,
    `str(typeof(1.0))` is `~float32[]`; `str(typeof(random.key(0)))` is `key<fry>[]`.
    """
    if isinstance(x, Ref):
        return x.aval
    if isinstance(getattr(x, "dtype", None), dtypes.ExtendedDType):  # typed key arrays
        return ExtendedShapedArray(x.shape, x.dtype)
    return aval_of(x)


def live_arrays(platform: str | None = None) -> list[Array]:
    """Every Array whose device buffer is still alive (on `platform`'s devices, or the default
    backend's). A debugging aid: one walk over the garbage collector's objects."""
    buffers = {id(b) for b in runtime.client(platform).live_arrays()}
    # One pass over the collector's objects (gc.get_referrers per buffer walked them all once
    # per buffer: a minute in a process holding thousands of arrays).
    return [a for a in gc.get_objects() if type(a) is Array and id(a._buf) in buffers]


def copy_to_host_async(x: Any) -> Any:
    """Starts copying every Array of the pytree `x` to the host, without waiting; returns `x`.

    A later `np.asarray(a)` (or `device_get`) then finds the data there.
    """
    for leaf in tree_util.tree_leaves(x):
        if isinstance(leaf, Array):
            leaf.copy_to_host_async()
    return x


def host_count(backend: str | None = None) -> int:
    """The number of processes (hosts): `process_count`."""
    return 1


def host_id(backend: str | None = None) -> int:
    """This process's index: `process_index`."""
    return runtime.process_index()


def host_ids(backend: str | None = None) -> list[int]:
    """The indices of all processes: `process_indices`."""
    return list(range(host_count(backend)))


process_indices = host_ids


# JAX's name for a dynamic slice; pytree: the start is a child, size and stride static.
Slice = DynamicSlice
tree_util.register_pytree_node(
    Slice,
    lambda s: ((s.start,), (s.size, s.stride)),
    lambda aux, children: Slice(children[0], *aux),
)


def ds(start: Any, size: int | None = None, stride: int | None = None) -> slice | Slice:
    """A slice given by a start and a size: `ds(i, n)` is `i:i+n`, and `i` may be a traced
    integer (the size must be static). `ds(None)` is `:` and `ds(n)` is `:n`.

    Example: `x[ds(i, 2)]` under `jit` with a traced `i`.
    """
    if start is None:
        return slice(None)
    stride = 1 if stride is None else stride
    if not isinstance(stride, int):
        raise ValueError("Non-static stride in `dslice`")
    if size is None:
        start, size = 0, start
    return Slice(start, size, stride)


def print_environment_info(return_string: bool = False) -> str | None:
    """Prints (or returns) the versions of stablax, jaxlib, NumPy and Python, and the devices."""
    lines = [
        f"stablax:    {sys.modules['stablax'].__version__}",
        f"jaxlib:     {jaxlib.__version__}",
        f"numpy:      {np.__version__}",
        f"python:     {sys.version.splitlines()[0]}",
        f"device info: {runtime.default_backend()}-{len(runtime.devices())}, "
        f"{len(runtime.local_devices())} local devices",
        f"process_count: {host_count()}",
        f"platform: {platform.platform()}",
    ]
    text = "\n".join(lines) + "\n"
    if return_string:
        return text
    print(text)
    return None
