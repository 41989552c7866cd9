"""`jax.extend.linear_util` under the alias (equinox imports it; it is JAX's tracing glue).

stablax traces Python functions directly and has no `lu.WrappedFun`; using it raises.
"""


def wrap_init(*args, **kwargs):
    raise NotImplementedError(
        "jax.extend.linear_util.wrap_init (stablax alias; equinox internals): stablax traces "
        "Python functions directly and has no WrappedFun"
    )
