"""stablax.test_util: numerical derivative checks (`check_grads`) usable in users' tests."""

from stablax._src.test_util import check_grads, check_jvp, check_vjp

__all__ = ["check_grads", "check_jvp", "check_vjp"]
