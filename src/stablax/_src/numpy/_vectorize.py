"""`jnp.vectorize`: NumPy's generalized-ufunc vectorization, built on nested vmaps."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Collection
from typing import Any

import numpy as np

from stablax._src import lax
from stablax._src.lax._argcheck import check_callable, sequence
from stablax._src.numpy._asarray import asarray
from stablax._src.transforms.vmap_api import vmap

_DIMS = r"\((?:\w+(?:,\w+)*)?\)"
_SIGNATURE = re.compile(rf"^{_DIMS}(?:,{_DIMS})*->{_DIMS}(?:,{_DIMS})*$")

CoreDims = tuple[str, ...]


def _parse_signature(signature: str) -> tuple[list[CoreDims], list[CoreDims]]:
    """'(m,n),(n)->(m)' -> ([('m', 'n'), ('n',)], [('m',)])."""
    compact = re.sub(r"\s+", "", signature)
    if not _SIGNATURE.match(compact):
        raise ValueError(f"not a valid gufunc signature: {signature}")
    inputs, outputs = compact.split("->")

    def parse(side: str) -> list[CoreDims]:
        return [tuple(re.findall(r"\w+", group)) for group in re.findall(_DIMS, side)]

    return parse(inputs), parse(outputs)


def _bind_core_dims(
    shape: tuple[int, ...], core: CoreDims, sizes: dict[str, int], context: str
) -> None:
    for name, size in zip(core, shape[len(shape) - len(core) :], strict=True):
        if sizes.setdefault(name, size) != size:
            raise ValueError(
                f"inconsistent size for core dimension {name!r}: {size} vs {sizes[name]} {context}"
            )


def _check_outputs(out: Any, out_core: list[CoreDims], sizes: dict[str, int], context: str):
    if len(out_core) > 1:
        if not isinstance(out, tuple):
            raise TypeError(
                "output must be a tuple when multiple outputs are expected, got: "
                f"{out!r}\n{context}"
            )
        outs = out
    else:
        outs = out if isinstance(out, tuple) else (out,)
    if len(outs) != len(out_core):
        raise TypeError(
            f"wrong number of output arguments: expected {len(out_core)}, got {len(outs)} {context}"
        )
    for value, core in zip(outs, out_core, strict=True):
        shape = tuple(np.shape(value)) if not hasattr(value, "aval") else value.aval.shape
        if len(shape) != len(core):
            raise ValueError(
                f"output shape {shape} does not match core dimensions {core} {context}"
            )
        _bind_core_dims(shape, core, sizes, context)


def vectorize(
    pyfunc: Callable, *, excluded: Collection[int | str] = frozenset(), signature: str | None = None
) -> Callable:
    """Defines a vectorized function with broadcasting, like `numpy.vectorize`.

    Loop (broadcast) dimensions are mapped with nested `vmap`s, so `pyfunc` is traced once on
    one element (or one core-shaped slice) and runs as a single batched program.

    Args:
      pyfunc: the function of arrays to vectorize.
      excluded: positions (ints) and keyword names (strs) of arguments passed to `pyfunc`
        unchanged, not vectorized.
      signature: a generalized-ufunc signature such as `"(m,n),(n)->(m)"`, naming the core
        dimensions that `pyfunc` handles itself; without one every argument is mapped down to
        scalars.

    Returns:
      The vectorized function; its outputs have the broadcast loop dimensions first.

    Example:
      >>> matvec = jnp.vectorize(jnp.dot, signature="(m,n),(n)->(m)")
      >>> matvec(jnp.ones((5, 2, 3)), jnp.ones(3)).shape
      (5, 2)
    """
    check_callable("jnp.vectorize", pyfunc, "pyfunc")
    excluded = frozenset(sequence(excluded, "excluded", "jnp.vectorize"))
    if any(not isinstance(e, (str, int)) for e in excluded):
        raise TypeError(
            f"jnp.vectorize can only exclude integer or string arguments, but excluded={excluded!r}"
        )
    parsed = None if signature is None else _parse_signature(signature)
    context = f"on vectorized function with excluded={excluded!r} and signature={signature!r}"

    @functools.wraps(pyfunc)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        positions = [i for i in range(len(args)) if i not in excluded]
        names = [k for k in kwargs if k not in excluded]
        vargs = [asarray(args[i]) for i in positions] + [asarray(kwargs[k]) for k in names]
        in_core = parsed[0] if parsed is not None else [()] * len(vargs)
        if len(in_core) != len(vargs):
            raise TypeError(
                f"wrong number of positional arguments: expected {len(in_core)}, got "
                f"{len(vargs)} {context}"
            )
        sizes: dict[str, int] = {}
        loop_shapes = []
        for x, core in zip(vargs, in_core, strict=True):
            shape = x.aval.shape
            if len(shape) < len(core):
                raise ValueError(
                    f"input with shape {shape} does not have enough dimensions for all core "
                    f"dimensions {core} {context}"
                )
            _bind_core_dims(shape, core, sizes, context)
            loop_shapes.append(shape[: len(shape) - len(core)])
        try:
            loop_shape = tuple(np.broadcast_shapes(*loop_shapes))
        except ValueError:
            raise ValueError(
                f"Incompatible shapes for broadcasting: shapes={[tuple(s) for s in loop_shapes]}"
            ) from None

        def core_fun(*core_args):
            full, kw = list(args), dict(kwargs)
            for i, a in zip(positions, core_args, strict=False):
                full[i] = a
            for k, a in zip(names, core_args[len(positions) :], strict=True):
                kw[k] = a
            out = pyfunc(*full, **kw)
            if parsed is not None:
                _check_outputs(out, parsed[1], dict(sizes), context)
            return out

        # Size-1 dimensions that broadcast are squeezed away and mapped with in_axes=None, so
        # no argument is materialized at the broadcast shape.
        ndim = len(loop_shape)
        prepared, mapped = [], []
        for x, shape in zip(vargs, loop_shapes, strict=True):
            offset = ndim - len(shape)
            drop = tuple(i for i, n in enumerate(shape) if n == 1 and loop_shape[offset + i] != 1)
            prepared.append(lax.squeeze(x, drop) if drop else x)
            mapped.append([j >= offset and j - offset not in drop for j in range(ndim)])
        fun = core_fun
        for j in reversed(range(ndim)):
            in_axes = tuple(0 if m[j] else None for m in mapped)
            fun = vmap(fun, in_axes=in_axes, axis_size=loop_shape[j])
        return fun(*prepared)

    return wrapped
