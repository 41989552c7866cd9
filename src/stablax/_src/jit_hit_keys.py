"""The keys and buffers of jit's pytree cache hits: the one loop over the leaves, and the table for
calls whose arguments are Arrays, scalars and plain dicts of them (a loss or step of a parameter
dict), keyed without jaxlib's flatten, which sorts every dict's keys on every call."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from stablax._src import pytree_fast
from stablax._src.array import Array
from stablax._src.jit_arguments import SCALAR_TYPES

_ARRAY = object()  # stands in a key for an argument that is not a dict (its leaf follows)


def leaves_signature(
    key: list, leaves: list, other_key: Callable[[Any], Any] = type
) -> tuple[list, list[int]]:
    """Appends each leaf's aval (an Array) or `other_key` of it (its type for a hit's key, its
    aval for the general path's) to `key`; returns the buffers (other leaves as they are, to be
    converted once a lookup says what they are) and the other leaves' positions.

    One loop does both: a `map`/`attrgetter` pass per attribute after a type check costs about
    1.6 times as much on CPython 3.11, whose bytecode reads a slot without a lookup
    (`python -m benchmarks.jit_hit_pieces` times both).
    """
    buffers, others = [], []
    for a in leaves:
        if type(a) is Array:
            key.append(a.aval)
            buffers.append(a._buf)
        else:
            key.append(other_key(a))
            others.append(len(buffers))
            buffers.append(a)
    return buffers, others


def lookup(
    table: dict, args: tuple, scalar_buffer: Callable[[Any], Any]
) -> tuple[Any, list, list] | None:
    """(entry, the leaves' buffers in flattening order, the leaves) for a call `remember` filed.

    The key holds each dict argument's keys in insertion order (a dict with the same keys in
    another order misses) and every leaf's aval, or a scalar's type; a leaf of any other type
    (a nested container, None, a NumPy array) misses. The buffers are put in flattening order
    (sorted keys) by the permutation filed with the entry.
    """
    key, leaves = [], []
    for a in args:
        if type(a) is dict:
            key.append(tuple(a))
            leaves.extend(a.values())
        else:
            key.append(_ARRAY)
            leaves.append(a)
    buffers, scalars = leaves_signature(key, leaves)
    filed = table.get(tuple(key))
    if filed is None:
        return None
    for i in scalars:  # Python scalars (the key holds their types)
        buffers[i] = scalar_buffer(buffers[i])
    entry, order = filed
    if order is not None:
        buffers = [*map(buffers.__getitem__, order)]
    return entry, buffers, leaves


def remember(table: dict, args: tuple, entry: Any) -> None:
    """Files `entry` for `lookup` when `args` are Arrays, Python scalars and plain dicts of them.
    Called once jaxlib's flatten of this call is known to give stablax's leaves; an entry that
    donates (which deletes its arguments by flat position) stays with the pytree table."""
    if entry.donated:
        return
    # Unique markers in the leaves' places show where jaxlib's flatten puts each of them.
    key, leaves, markers, marked = [], [], [], []
    for a in args:
        if type(a) is dict:
            key.append(tuple(a))
            leaves.extend(a.values())
            markers.append({k: object() for k in a})
            marked.extend(markers[-1].values())
        else:
            key.append(_ARRAY)
            leaves.append(a)
            markers.append(object())
            marked.append(markers[-1])
    if not all(type(x) is Array or type(x) in SCALAR_TYPES for x in leaves):
        return
    position = {id(m): i for i, m in enumerate(marked)}
    flat, _ = pytree_fast.flatten(tuple(markers))
    order = [position[id(m)] for m in flat]
    leaves_signature(key, leaves)
    table[tuple(key)] = (entry, None if order == list(range(len(order))) else order)
