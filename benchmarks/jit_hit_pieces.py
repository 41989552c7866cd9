"""A jit cache hit piece by piece, stablax beside JAX: `python -m benchmarks.jit_hit_pieces`.

For the pytree cases of `suite_dispatch.PARAMS_CASES`, each piece of stablax's hit path is timed
alone (the dict table's key and buffers, gathering the executable's inputs, execute, wrap; and the
pytree table's: jaxlib's flatten, then the key and buffers) and, for JAX,
what can be called alone (the same C++ flatten, the same execute on the inputs its executable
keeps); the rest of JAX's call is its C++ dispatch: signature, lookup, buffers and the call
itself. Pieces are timed in interleaved rounds with the whole call; each figure is the least CPU
time over the rounds (other processes share the cores: the least is the least disturbed). The
pytree key and buffers are also timed as `map`/`attrgetter` passes and as comprehensions after one
type check, the ways the hit path could build them instead of its one loop.
"""

from __future__ import annotations

import argparse
import operator
from collections.abc import Callable
from typing import Any

from benchmarks.harness import interleaved, per_call
from benchmarks.models import Lib
from benchmarks.suite_dispatch import PARAMS_CASES, params_and_x


def _stablax_pieces(lib: Lib, fn: Callable, leaves: int) -> dict[str, Callable[[], Any]]:
    from stablax._src import jit, jit_hit_keys, pytree_fast
    from stablax._src.array import Array

    params, x = params_and_x(lib, leaves)
    jitted = lib.top.jit(fn)
    lib.block(jitted(params, x))
    args = (params, x)
    flat, tree = pytree_fast.flatten(args)
    table, dicts = jitted._jitted._tree_hits, jitted._jitted._dict_hits
    (entry,) = table.values()

    def pytree_key_and_buffers() -> Any:  # the pytree table's key, after the flatten
        key = [tree]
        buffers, _ = jit_hit_keys.leaves_signature(key, flat)
        return table.get(tuple(key)), buffers

    # The same key and buffers from passes that loop in C (`map` with `attrgetter`) or in
    # comprehensions, after one type check: what the pytree path would cost built that way.
    only_arrays = {Array}
    get_aval, get_buf = operator.attrgetter("aval"), operator.attrgetter("_buf")

    def map_passes() -> Any:
        if {*map(type, flat)} == only_arrays:
            return table.get((tree, *map(get_aval, flat))), [*map(get_buf, flat)]
        return None

    def comprehensions() -> Any:
        if {*map(type, flat)} == only_arrays:
            return table.get((tree, *[a.aval for a in flat])), [a._buf for a in flat]
        return None

    leaf_buffers = [a._buf for a in flat]
    gather = entry.gather or list
    inputs = gather(leaf_buffers)
    outs = entry.execute_sharded(inputs).consume_with_handlers(entry.handlers)
    out_avals = entry.out_avals

    def wrap() -> Any:
        if entry.single_plain:
            return Array(outs[0], out_avals[0])
        return entry.out_fast.unflatten(map(Array, outs, out_avals))

    return {
        "call": lambda: jitted(params, x),
        "dict key": lambda: jit_hit_keys.lookup(dicts, args, jit._scalar_buffer),
        "flatten": lambda: pytree_fast.flatten(args),
        "pytree key": pytree_key_and_buffers,
        "map passes": map_passes,
        "comprehensions": comprehensions,
        "gather inputs": lambda: gather(leaf_buffers),
        "execute": lambda: entry.execute_sharded(inputs).consume_with_handlers(entry.handlers),
        "wrap": wrap,
    }


def _jax_pieces(lib: Lib, fn: Callable, leaves: int) -> dict[str, Callable[[], Any]]:
    from jax._src import tree_util
    from jax._src.lib import xla_client

    params, x = params_and_x(lib, leaves)
    jitted = lib.top.jit(fn)
    lib.block(jitted(params, x))
    args = (params, x)
    executable = jitted.lower(*args).compile()._executable
    flat = lib.top.tree_util.tree_leaves(args)
    inputs = [flat[i] for i in sorted(executable._kept_var_idx)]
    outs = lib.top.tree_util.tree_leaves(jitted(*args))
    handlers = [
        xla_client.array_result_handler(o.aval, o.sharding, True, _skip_checks=True) for o in outs
    ]
    run = executable.xla_executable.execute_sharded
    return {
        "call": lambda: jitted(params, x),
        "flatten": lambda: tree_util.default_registry.flatten(args),
        "execute": lambda: run(inputs).consume_with_handlers(handlers),
    }


def measure(case: str, rounds: int, calls: int) -> dict[str, dict[str, float]]:
    """Per library, each piece's least time in microseconds over `rounds` interleaved rounds."""
    fn, leaves = PARAMS_CASES[case]
    libs = {"stablax": Lib.load("stablax"), "jax": Lib.load("jax")}
    pieces = {
        "stablax": _stablax_pieces(libs["stablax"], fn, leaves),
        "jax": _jax_pieces(libs["jax"], fn, leaves),
    }
    timers = {
        f"{name}/{piece}": (lambda f=f, lib=libs[name]: per_call(f, calls, lib.block).cpu * 1e6)
        for name, fns in pieces.items()
        for piece, f in fns.items()
    }
    least: dict[str, dict[str, float]] = {"stablax": {}, "jax": {}}
    for timer, values in interleaved(timers, rounds).items():
        name, piece = timer.split("/")
        least[name][piece] = min(values)
    return least


def table(case: str, times: dict[str, dict[str, float]]) -> str:
    """One case's pieces as a Markdown table (microseconds)."""
    s, j = times["stablax"], times["jax"]
    parts = ("dict key", "gather inputs", "execute", "wrap")
    rows = [
        ("whole call", s["call"], j["call"]),
        ("flatten (jaxlib's C++ registry; stablax: pytree path only)", s["flatten"], j["flatten"]),
        ("execute (jaxlib arrays out)", s["execute"], j["execute"]),
        ("JAX: the rest of its C++ dispatch", None, j["call"] - j["flatten"] - j["execute"]),
        ("stablax, dict path: key, buffers, flattening order", s["dict key"], None),
        ("- the executable's inputs (unused dropped)", s["gather inputs"], None),
        ("- wrap: stablax Arrays, unflatten", s["wrap"], None),
        ("- the rest: the call, its branches, frees", s["call"] - sum(s[p] for p in parts), None),
        ("pytree path: key and buffers after the flatten, one loop", s["pytree key"], None),
        ("- the same, `map`/`attrgetter` passes after one type check", s["map passes"], None),
        ("- the same, comprehensions after one type check", s["comprehensions"], None),
    ]
    lines = [
        f"{case}: stablax / JAX {s['call'] / j['call']:.2f}",
        "",
        "| piece | stablax | JAX |",
        "|---|---|---|",
    ]
    for label, ours, theirs in rows:
        cells = ["" if v is None else f"{v:.1f} us" for v in (ours, theirs)]
        lines.append(f"| {label} | {cells[0]} | {cells[1]} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.jit_hit_pieces")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--only", default=None, help="cases whose name contains this")
    args = parser.parse_args(argv)
    for case, (_, leaves) in PARAMS_CASES.items():
        if args.only is None or args.only in case:
            calls = max(200, 100_000 // leaves)
            print(table(case, measure(case, args.rounds, calls)), end="\n\n")


if __name__ == "__main__":
    main()
