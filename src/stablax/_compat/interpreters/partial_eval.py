"""`jax.interpreters.partial_eval` under the alias (flax.jax_utils, equinox import it)."""


def _no_jaxprs(name):
    def fn(*args, **kwargs):
        raise NotImplementedError(
            f"jax.interpreters.partial_eval.{name} (stablax alias): stablax traces to StableHLO "
            "and has no jaxprs"
        )

    fn.__name__ = name
    return fn


trace_to_jaxpr_dynamic = _no_jaxprs("trace_to_jaxpr_dynamic")
PartialVal = _no_jaxprs("PartialVal")
