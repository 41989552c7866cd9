"""stablax.lax: the primitive layer, one function per StableHLO/CHLO operation (plus conveniences)."""

from stablax._src.lax._dot import Precision, dot, dot_general
from stablax._src.lax._elementwise import *  # noqa: F403
from stablax._src.lax._elementwise import abs, complex, max, min, pow, round  # noqa: A004
from stablax._src.lax._reductions import (
    reduce_and,
    reduce_max,
    reduce_min,
    reduce_or,
    reduce_prod,
    reduce_sum,
    reduce_xor,
)
from stablax._src.lax._shapes import (  # noqa: A004
    bitcast_convert_type,
    broadcast,
    broadcast_in_dim,
    broadcasted_iota,
    concatenate,
    convert_element_type,
    full,
    full_like,
    iota,
    reshape,
    rev,
    slice,
    transpose,
)
from stablax._src.lax._reductions import argmax, argmin, reduce
