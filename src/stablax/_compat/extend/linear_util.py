"""`jax.extend.linear_util` under the alias: JAX's tracing glue (haiku's to_dot, equinox).

stablax traces Python functions directly and has no `lu.WrappedFun`, so the decorators here can
be applied at import time, and calling what they made raises NotImplementedError.
"""

from __future__ import annotations

from typing import Any

_NO_LU = "stablax traces Python functions directly and has no linear_util.WrappedFun"


def wrap_init(fun: Any, *args: Any, **kwargs: Any) -> Any:
    raise NotImplementedError(
        f"jax.extend.linear_util.wrap_init (stablax alias; haiku.experimental.to_dot): {_NO_LU}"
    )


def _decorator(kind: str) -> Any:
    def decorate(gen: Any) -> Any:
        def use(*args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError(
                f"jax.extend.linear_util.{kind}({getattr(gen, '__name__', gen)}) (stablax "
                f"alias; haiku.experimental.to_dot): {_NO_LU}"
            )

        use.__name__ = getattr(gen, "__name__", kind)
        return use

    return decorate


transformation = _decorator("transformation")  # haiku _src/dot.py, at import
transformation_with_aux = _decorator("transformation_with_aux")
transformation2 = _decorator("transformation2")
transformation_with_aux2 = _decorator("transformation_with_aux2")
