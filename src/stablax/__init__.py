"""stablax: JAX's API (jit, grad, vmap, numpy, ...) built on StableHLO rewrites and PJRT.

import stablax as jax
import stablax.numpy as jnp
"""

import os as _os
import typing as _typing

_os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")  # jaxlib logs client creation at INFO

from stablax import (  # what a first program needs; the other libraries load on first use
    custom_derivatives,
    dtypes,
    errors,
    lax,
    numpy,
    tree,
    tree_util,
)

if _typing.TYPE_CHECKING:  # loaded on first use: see __getattr__ below
    from stablax import (
        ad_checkpoint,
        core,
        custom_batching,
        debug,
        dlpack,
        image,
        nn,
        ops,
        profiler,
        random,
        scipy,
        stages,
        typing,
    )
from stablax._compat.finder import install_as_jax

# Exceptions leaving a public function lose stablax's internal frames (traceback_util.py).
from stablax._src import traceback_util as _traceback_util
from stablax._src.api import (
    block_until_ready,
    clear_caches,
    default_backend,
    device_count,
    device_get,
    device_put,
    devices,
    disable_jit,
    eval_shape,
    local_device_count,
    local_devices,
    make_jaxpr,
    process_count,
    process_index,
)
from stablax._src.api_extras import (
    copy_to_host_async,
    ds,
    ensure_compile_time_eval,
    host_count,
    host_id,
    host_ids,
    live_arrays,
    named_call,
    named_scope,
    print_environment_info,
    process_indices,
    typeof,
)
from stablax._src.basearray import Array
from stablax._src.callbacks import effects_barrier, pure_callback
from stablax._src.closure_convert import closure_convert
from stablax._src.config import config
from stablax._src.config_states import *  # noqa: F403  (enable_x64 and the other flag contexts)
from stablax._src.dtypes import float0
from stablax._src.fwd_and_bwd import fwd_and_bwd
from stablax._src.interpreters.checkpoint import checkpoint, remat
from stablax._src.interpreters.custom_jvp import custom_jvp
from stablax._src.interpreters.custom_vjp import custom_vjp
from stablax._src.interpreters.remat_policies import checkpoint_policies
from stablax._src.jit import ShapeDtypeStruct, jit
from stablax._src.numpy import _array_methods  # noqa: F401  (attaches Array operators)
from stablax._src.refs import Ref, empty_ref, free_ref, freeze, memory, new_ref
from stablax._src.runtime import Device
from stablax._src.transforms.ad_forward import jvp, linearize
from stablax._src.transforms.ad_jacobians import hessian, jacfwd, jacobian, jacrev
from stablax._src.transforms.ad_reverse import grad, linear_transpose, value_and_grad, vjp
from stablax._src.transforms.custom_gradient import custom_gradient
from stablax._src.transforms.vjp_refs import ad
from stablax._src.transforms.vmap_api import vmap
from stablax._src.tree_util import (
    tree_flatten,
    tree_leaves,
    tree_map,
    tree_structure,
    tree_unflatten,
)

__version__ = "0.1.0"

__all__ = [
    "Array",
    "debug",
    "effects_barrier",
    "pure_callback",
    "ShapeDtypeStruct",
    "checkpoint",
    "checkpoint_policies",
    "closure_convert",
    "ad",
    "ad_checkpoint",
    "core",
    "fwd_and_bwd",
    "custom_batching",
    "custom_derivatives",
    "custom_gradient",
    "custom_jvp",
    "custom_vjp",
    "remat",
    "grad",
    "hessian",
    "jacfwd",
    "jacobian",
    "jacrev",
    "jvp",
    "linear_transpose",
    "linearize",
    "value_and_grad",
    "vjp",
    "vmap",
    "block_until_ready",
    "clear_caches",
    "config",
    "default_backend",
    "device_count",
    "device_get",
    "device_put",
    "devices",
    "disable_jit",
    "dtypes",
    "errors",
    "eval_shape",
    "jit",
    "lax",
    "local_device_count",
    "local_devices",
    "make_jaxpr",
    "nn",
    "numpy",
    "process_count",
    "process_index",
    "profiler",
    "random",
    "scipy",
    "tree_flatten",
    "tree_leaves",
    "tree_map",
    "tree_structure",
    "tree_unflatten",
    "tree_util",
    "dlpack",
    "image",
    "ops",
    "stages",
    "tree",
    "typing",
    "copy_to_host_async",
    "ds",
    "ensure_compile_time_eval",
    "host_count",
    "host_id",
    "host_ids",
    "live_arrays",
    "named_call",
    "named_scope",
    "print_environment_info",
    "process_indices",
    "typeof",
    "float0",
    "Ref",
    "empty_ref",
    "free_ref",
    "freeze",
    "memory",
    "new_ref",
    "Device",
    "install_as_jax",
]

from stablax._src import config_states as _config_states

# Submodules imported on first attribute access (`stablax.nn`, `stablax.scipy`, ...), so that
# `import stablax` costs only what a first program needs; `import stablax.nn` works as ever.
_LAZY_SUBMODULES = frozenset(
    {
        "ad_checkpoint",
        "array_api",
        "core",
        "custom_batching",
        "debug",
        "dlpack",
        "example_libraries",
        "experimental",
        "flatten_util",
        "image",
        "nn",
        "ops",
        "profiler",
        "random",
        "scipy",
        "stages",
        "test_util",
        "typing",
    }
)


def __getattr__(name: str):
    if name in _LAZY_SUBMODULES:
        import importlib

        module = importlib.import_module(f"stablax.{name}")
        globals()[name] = module
        return module
    raise AttributeError(f"module 'stablax' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | _LAZY_SUBMODULES)


__all__ += _config_states.__all__

for _name in ("grad", "value_and_grad", "jacfwd", "jacrev", "jacobian", "hessian", "vmap"):
    globals()[_name] = _traceback_util.transform_boundary(globals()[_name])
for _name in ("jvp", "vjp", "linearize", "linear_transpose", "eval_shape", "make_jaxpr"):
    globals()[_name] = _traceback_util.api_boundary(globals()[_name])
for _name in ("device_put", "device_get", "block_until_ready"):
    globals()[_name] = _traceback_util.api_boundary(globals()[_name])
