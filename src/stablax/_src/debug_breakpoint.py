"""`stablax.debug.breakpoint`: a pdb session over the caller's values at every execution."""

from __future__ import annotations

import pdb
import sys
from typing import Any

from stablax._src import core
from stablax._src import ir as mlir
from stablax._src.array import Array
from stablax._src.lax._host_callback import HostCallback, host_callback


def breakpoint(  # noqa: A001 (JAX's name)
    *,
    backend: str | None = None,
    filter_frames: bool = True,
    num_frames: int | None = None,
    ordered: bool = False,
    token: Any = None,
) -> None:
    """Stops at this point of every execution in a debugger (pdb) over the caller's local
    values; under jit its arrays are the values the program computed. `p x` prints one, `c`
    goes on.

    Raises RuntimeError where stdin is not a terminal (no debugger can be driven there).
    """
    if backend not in (None, "cli"):
        raise ValueError(f"debug.breakpoint: unknown debugger backend {backend!r}; only 'cli'")
    if token is not None:
        raise NotImplementedError("debug.breakpoint: stablax has no effect tokens to thread")
    if not filter_frames or (num_frames is not None and num_frames != 1):
        raise NotImplementedError(
            "debug.breakpoint: stablax shows the calling frame only (filter_frames=True, "
            "num_frames=None or 1)"
        )
    frame = mlir.user_frame_object()
    names = [n for n, v in frame.f_locals.items() if isinstance(v, (Array, core.Tracer))]
    arrays = [frame.f_locals[n] for n in names]
    others = {n: v for n, v in frame.f_locals.items() if n not in names}
    where = f"{frame.f_code.co_filename}:{frame.f_lineno}"

    def stop(*values: Any) -> None:
        if not sys.stdin.isatty():
            raise RuntimeError(
                f"debug.breakpoint at {where}: stdin is not a terminal, so no debugger can run "
                "here; use debug.print or debug.callback instead"
            )
        scope = {**others, **dict(zip(names, values, strict=True))}
        sys.stdout.write(f"Entering stablax.debug.breakpoint at {where}\n")
        debugger = pdb.Pdb(stdin=sys.stdin, stdout=sys.stdout)
        # A frame whose locals are the caller's values: pdb stops at its one statement.
        exec("_debugger.set_trace()\npass", {"_debugger": debugger}, scope)

    spec = HostCallback(stop, [], "debug", len(arrays), ordered=bool(ordered), name="breakpoint")
    host_callback(spec, arrays)
