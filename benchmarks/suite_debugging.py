"""What looking inside compiled code costs: a jitted step with one `debug.print` against the same
step without, and `jax_debug_nans` on a step that stays finite and on one that makes a NaN (the
failing call raises FloatingPointError after finding the op), beside the normal run."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable, Iterator
from typing import Any

from benchmarks.harness import Row, Settings, interleaved, per_call, row_from_samples
from benchmarks.models import Lib


def _step(lib: Lib, printed: bool) -> Callable[[Any], Any]:
    """A small dense layer and its loss, optionally printing the loss on every call."""
    jnp = lib.jnp

    def step(x):
        h = jnp.tanh(x @ x.T)
        loss = jnp.sum(jnp.log(1.0 + h * h))
        if printed:
            lib.top.debug.print("loss {}", loss)
        return loss

    return lib.top.jit(step)


@contextlib.contextmanager
def _flags(lib: Lib, debug_nans: bool) -> Iterator[None]:
    previous = lib.top.config.jax_debug_nans
    lib.top.config.update("jax_debug_nans", debug_nans)
    try:
        yield
    finally:
        lib.top.config.update("jax_debug_nans", previous)


def _printing_calls(lib: Lib, printed: bool, x: Any, calls: int) -> Callable[[], Any]:
    """`calls` calls with stdout captured, ending when every print has run (effects_barrier)."""
    fn = _step(lib, printed)

    def run() -> Any:
        with contextlib.redirect_stdout(io.StringIO()) as out:
            sample = per_call(lambda: fn(x), calls, lib.block)
            lib.top.effects_barrier()
        assert out.getvalue().count("loss") == (calls if printed else 0), "a print went missing"
        return sample * 1e6

    lib.block(run())
    return run


def _failing(lib: Lib, x: Any, first: bool) -> Callable[[], Any]:
    """With jax_debug_nans on, calls of a jitted step that takes the log of a negative number,
    each raising FloatingPointError: a fresh function's first call (`first`: the checked
    program and whatever finding the op needs are compiled), or 20 calls of one function."""

    def make() -> Callable[[], Any]:
        return lib.top.jit(lambda v: lib.jnp.sum(lib.jnp.log(v - 2.0)))

    def fail(fn: Callable[[], Any]) -> None:
        try:
            lib.block(fn(x))
        except FloatingPointError:
            return
        raise AssertionError(f"{lib.name}: jax_debug_nans did not fire")

    def run() -> Any:
        with _flags(lib, True):
            fn = make()
            if first:
                return per_call(lambda: fail(fn), 1, lambda _: None) * 1e3
            fail(fn)  # its first failure compiles, outside the timing
            return per_call(lambda: fail(fn), 20, lambda _: None) * 1e3

    return run


def run(settings: Settings) -> list[Row]:
    libs = {lib.name: lib for lib in settings.libs}
    size = 8 if settings.quick else 128
    calls = 20 if settings.quick else 500
    rows: list[Row] = []

    for case, printed in (("jit step", False), ("jit step + one debug.print", True)):
        if not settings.wants(case):
            continue
        fns = {}
        for name, lib in libs.items():
            x = lib.jnp.ones((size, size), lib.jnp.float32) / size
            fns[name] = _printing_calls(lib, printed, x, calls)
        rows.append(row_from_samples("debugging", case, "us", interleaved(fns, settings.rounds)))

    case = "jit step, jax_debug_nans on, no NaN"
    if settings.wants(case):
        fns = {}
        for name, lib in libs.items():
            fn, x = _step(lib, False), lib.jnp.ones((size, size), lib.jnp.float32) / size

            def checked(fn=fn, x=x, lib=lib) -> float:
                with _flags(lib, True):
                    return per_call(lambda: fn(x), calls, lib.block) * 1e6

            lib.block(checked())
            fns[name] = checked
        rows.append(row_from_samples("debugging", case, "us", interleaved(fns, settings.rounds)))

    for case, first in (
        ("jax_debug_nans on: a jitted call that makes a NaN (raises)", False),
        ("jax_debug_nans on: that call's first failure (compiles)", True),
    ):
        if settings.wants(case):
            fns = {name: _failing(lib, lib.jnp.ones(size), first) for name, lib in libs.items()}
            samples = interleaved(fns, settings.rounds)
            rows.append(row_from_samples("debugging", case, "ms", samples))
    return rows
