"""A jit cache hit piece by piece, stablax beside JAX: `python -m benchmarks.jit_hit_pieces`.

For the pytree cases of `suite_dispatch.PARAMS_CASES`, each piece of stablax's hit path is timed
alone (flatten, key, buffers, gathering the executable's inputs, execute, wrap) and, for JAX,
what can be called alone (the same C++ flatten, the same execute on the inputs its executable
keeps); the rest of JAX's call is its C++ dispatch: signature, lookup, buffers and the call
itself. Pieces are timed in interleaved rounds (CPU time, median) with the whole call.
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Callable
from typing import Any

from benchmarks.harness import interleaved, per_call
from benchmarks.models import Lib
from benchmarks.suite_dispatch import PARAMS_CASES, params_and_x


def _stablax_pieces(lib: Lib, fn: Callable, leaves: int) -> dict[str, Callable[[], Any]]:
    from stablax._src import pytree_fast
    from stablax._src.array import Array

    params, x = params_and_x(lib, leaves)
    jitted = lib.top.jit(fn)
    lib.block(jitted(params, x))
    args = (params, x)
    flat, tree = pytree_fast.flatten(args)
    table = jitted._jitted._tree_hits
    (entry,) = table.values()

    def key() -> Any:  # the hit path's loop (jit._make_fast_call) without the buffers
        parts = [tree]
        for a in flat:
            if type(a) is Array:
                parts.append(a.aval)
        return table.get(tuple(parts))

    def key_and_buffers() -> Any:  # the hit path's loop
        parts, buffers = [tree], []
        for a in flat:
            if type(a) is Array:
                parts.append(a.aval)
                buffers.append(a._buf)
        return table.get(tuple(parts))

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
        "flatten": lambda: pytree_fast.flatten(args),
        "key": key,
        "key and buffers": key_and_buffers,
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
    """Per library, each piece's median time in microseconds over `rounds` interleaved rounds."""
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
    medians: dict[str, dict[str, float]] = {"stablax": {}, "jax": {}}
    for timer, values in interleaved(timers, rounds).items():
        name, piece = timer.split("/")
        medians[name][piece] = statistics.median(values)
    return medians


def table(case: str, times: dict[str, dict[str, float]]) -> str:
    """One case's pieces as a Markdown table (microseconds)."""
    s, j = times["stablax"], times["jax"]
    ours_else = s["call"] - s["flatten"] - s["execute"]
    parts = ("key", "buffers", "gather inputs", "wrap")
    s["buffers"] = s["key and buffers"] - s["key"]
    rows = [
        ("whole call", s["call"], j["call"]),
        ("flatten (jaxlib's C++ registry)", s["flatten"], j["flatten"]),
        ("execute (jaxlib arrays out)", s["execute"], j["execute"]),
        (
            "everything else (JAX: its C++ dispatch)",
            ours_else,
            j["call"] - j["flatten"] - j["execute"],
        ),
        ("- key: signature and lookup", s["key"], None),
        ("- buffers", s["buffers"], None),
        ("- the executable's inputs (unused dropped)", s["gather inputs"], None),
        ("- wrap: stablax Arrays, unflatten", s["wrap"], None),
        ("- the rest: the call, its branches, frees", ours_else - sum(s[p] for p in parts), None),
    ]
    lines = [
        f"{case}: stablax / JAX {s['call'] / j['call']:.2f}",
        "",
        "| piece | stablax | JAX |",
        "|---|---|---|",
    ]
    for label, ours, theirs in rows:
        lines.append(
            f"| {label} | {ours:.1f} us | {'' if theirs is None else f'{theirs:.1f} us'} |"
        )
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
