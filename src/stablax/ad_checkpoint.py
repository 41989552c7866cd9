"""`stablax.ad_checkpoint`: naming values for checkpoint policies, and seeing what is saved.

As `jax.ad_checkpoint`: `checkpoint_name(x, "h")` tags a value that the name-based policies of
`checkpoint_policies` (`save_only_these_names`, `save_any_names_but_these`,
`save_and_offload_only_these_names`) match; `print_saved_residuals(f, *args)` lists the values
reverse mode keeps; `Saveable`, `Recompute` and `Offloadable` are the answers a policy may give.
`stablax.checkpoint` (alias `stablax.remat`) applies the policies.
"""

from stablax._src.interpreters.remat_policies import (
    Offloadable,
    Recompute,
    Saveable,
    checkpoint_policies,
)
from stablax._src.lax._checkpoint_name import checkpoint_name
from stablax._src.saved_residuals import print_saved_residuals

__all__ = [
    "Offloadable",
    "Recompute",
    "Saveable",
    "checkpoint_name",
    "checkpoint_policies",
    "print_saved_residuals",
]
