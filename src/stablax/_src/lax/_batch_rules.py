"""The batching rules of the elementwise family (to become rows of its registration)."""

from __future__ import annotations

from stablax._src import op_rules
from stablax._src.interpreters.batching import elementwise_batch_rule
from stablax._src.lax import _elementwise as _ew
from stablax._src.lax import _elementwise_unary as _ew_unary


def register_elementwise(*names: str) -> None:
    for name in names:
        op_rules.batch_rules[name] = elementwise_batch_rule(name)


register_elementwise(
    *(row[0] for row in _ew_unary.UNARY_OPS.values()),
    *(row[0] for row in _ew.BINARY_OPS.values()),
    "stablehlo.compare",
    "stablehlo.select",
    "stablehlo.clamp",
    "stablehlo.complex",
    "stablehlo.round_nearest_afz",
    "stablehlo.round_nearest_even",
)
