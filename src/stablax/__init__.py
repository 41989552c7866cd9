"""stablax: JAX's API (jit, grad, vmap, numpy, ...) built on StableHLO rewrites and PJRT.

import stablax as jax
import stablax.numpy as jnp
"""

import os as _os

_os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")  # jaxlib logs client creation at INFO

from stablax import dtypes, errors, lax, numpy, random, tree_util
from stablax._src import numpy as _numpy_methods  # noqa: F401  (attaches Array operators)

# Exceptions leaving a public function lose stablax's internal frames (traceback_util.py).
from stablax._src import traceback_util as _traceback_util
from stablax._src.api import (
    block_until_ready,
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
from stablax._src.array import Array
from stablax._src.config import config
from stablax._src.jit import ShapeDtypeStruct, jit
from stablax._src.transforms.ad_forward import jvp, linearize
from stablax._src.transforms.ad_jacobians import hessian, jacfwd, jacobian, jacrev
from stablax._src.transforms.ad_reverse import grad, linear_transpose, value_and_grad, vjp
from stablax._src.transforms.custom_derivatives import (
    checkpoint,
    checkpoint_policies,
    custom_jvp,
    custom_vjp,
    remat,
)
from stablax._src.transforms.vmap_api import vmap
from stablax._src.tree_util import (
    tree_flatten,
    tree_leaves,
    tree_map,
    tree_structure,
    tree_unflatten,
)

for _name in ("grad", "value_and_grad", "jacfwd", "jacrev", "jacobian", "hessian", "vmap"):
    globals()[_name] = _traceback_util.transform_boundary(globals()[_name])
for _name in ("jvp", "vjp", "linearize", "linear_transpose", "eval_shape", "make_jaxpr"):
    globals()[_name] = _traceback_util.api_boundary(globals()[_name])
for _name in ("device_put", "device_get", "block_until_ready"):
    globals()[_name] = _traceback_util.api_boundary(globals()[_name])

__version__ = "0.1.0"

__all__ = [
    "Array",
    "ShapeDtypeStruct",
    "checkpoint",
    "checkpoint_policies",
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
    "numpy",
    "process_count",
    "process_index",
    "random",
    "tree_flatten",
    "tree_leaves",
    "tree_map",
    "tree_structure",
    "tree_unflatten",
    "tree_util",
]
