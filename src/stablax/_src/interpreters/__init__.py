"""The walkers that read a StableHLO function and emit a new one (evaluation, jvp, linearize,
transpose, batching, calls, custom rules), driven by the op tables; they use only `bind`."""
