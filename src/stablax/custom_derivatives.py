"""stablax.custom_derivatives: user-defined derivative rules (JAX's `jax.custom_derivatives`)."""

from stablax._src.closure_convert import (
    closure_convert as closure_convert,
)
from stablax._src.interpreters.custom_calls import SymbolicZero as SymbolicZero
from stablax._src.interpreters.custom_calls import zero_from_primal as zero_from_primal
from stablax._src.interpreters.custom_jvp import custom_jvp as custom_jvp
from stablax._src.interpreters.custom_vjp import CustomVJPPrimal as CustomVJPPrimal
from stablax._src.interpreters.custom_vjp import custom_vjp as custom_vjp
from stablax._src.interpreters.custom_vjp import (
    custom_vjp_primal_tree_values as custom_vjp_primal_tree_values,
)
from stablax._src.transforms.custom_gradient import (
    custom_gradient as custom_gradient,
)
from stablax._src.transforms.custom_gradient import (
    linear_call as linear_call,
)
