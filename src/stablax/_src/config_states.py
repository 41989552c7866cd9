"""The flag context managers of the top-level API (`stablax.enable_x64(True)`, ...), as JAX's.

Each is a `State`: `with stablax.numpy_rank_promotion("raise"):` sets the flag for the block,
`stablax.enable_x64.value` reads it.
"""

from __future__ import annotations

import functools

from stablax._src.config import State, make_user_context, transfer_guard

allow_f16_reductions = State("jax_allow_f16_reductions")
array_garbage_collection_guard = State("jax_array_garbage_collection_guard")
auto_pcast = State("jax_auto_pcast")
check_tracer_leaks = State("jax_check_tracer_leaks")
checking_leaks = functools.partial(check_tracer_leaks, True)
debug_infs = State("jax_debug_infs")
debug_key_reuse = State("jax_debug_key_reuse")
debug_nans = State("jax_debug_nans")
default_device = State("jax_default_device")
default_matmul_precision = State("jax_default_matmul_precision")
default_prng_impl = State("jax_default_prng_impl")
enable_checks = State("jax_enable_checks")
enable_custom_prng = State("jax_enable_custom_prng")
enable_x64 = State("jax_enable_x64")
explain_cache_misses = State("jax_explain_cache_misses")
jax2tf_associative_scan_reductions = State("jax2tf_associative_scan_reductions")
legacy_prng_key = State("jax_legacy_prng_key")
log_compiles = State("jax_log_compiles")
no_execution = State("jax_no_execution")
no_tracing = State("jax_no_tracing")
numpy_dtype_promotion = State("jax_numpy_dtype_promotion")
numpy_rank_promotion = State("jax_numpy_rank_promotion")
remove_size_one_mesh_axis_from_type = State("jax_remove_size_one_mesh_axis_from_type")
softmax_custom_jvp = State("jax_softmax_custom_jvp")
thread_guard = State("jax_thread_guard")
threefry_partitionable = State("jax_threefry_partitionable")
transfer_guard_device_to_device = State("jax_transfer_guard_device_to_device")
transfer_guard_device_to_host = State("jax_transfer_guard_device_to_host")
transfer_guard_host_to_device = State("jax_transfer_guard_host_to_device")

__all__ = [
    "allow_f16_reductions",
    "array_garbage_collection_guard",
    "auto_pcast",
    "check_tracer_leaks",
    "checking_leaks",
    "debug_infs",
    "debug_key_reuse",
    "debug_nans",
    "default_device",
    "default_matmul_precision",
    "default_prng_impl",
    "enable_checks",
    "enable_custom_prng",
    "enable_x64",
    "explain_cache_misses",
    "jax2tf_associative_scan_reductions",
    "legacy_prng_key",
    "log_compiles",
    "make_user_context",
    "no_execution",
    "no_tracing",
    "numpy_dtype_promotion",
    "numpy_rank_promotion",
    "remove_size_one_mesh_axis_from_type",
    "softmax_custom_jvp",
    "thread_guard",
    "threefry_partitionable",
    "transfer_guard",
    "transfer_guard_device_to_device",
    "transfer_guard_device_to_host",
    "transfer_guard_host_to_device",
]
