"""PJRT plugins found and loaded without importing `jax`: the CUDA/ROCm plugin libraries of the
jax-cuda*/jax-rocm* wheels (NVIDIA's libraries preloaded first) and libtpu. Part of the runtime:
like runtime.py, it talks to jaxlib's client API."""

from __future__ import annotations

import ctypes
import glob
import importlib
import importlib.util
import logging
import os
from typing import Any

from jaxlib import xla_client as xc

logger = logging.getLogger("stablax")


def _package_dir(name: str) -> str | None:
    # find_spec on a package executes its parent packages' __init__ only, never its own.
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return list(spec.submodule_search_locations)[0]


def _preload_nvidia_libraries() -> None:
    # The CUDA plugin expects NVIDIA's pip-installed libraries to be loadable already.
    nvidia_dir = _package_dir("nvidia")
    if nvidia_dir is None:
        return
    order = ("cuda_runtime", "cuda_nvrtc", "cublas", "nccl", "cuda_cupti", "cusparse")
    order += ("cusolver", "cudnn", "cufft", "nvjitlink")
    for sub in order:
        for lib in sorted(glob.glob(os.path.join(nvidia_dir, sub, "lib", "*.so*"))):
            try:
                ctypes.CDLL(lib, mode=ctypes.RTLD_GLOBAL)
            except OSError:
                pass


def make_gpu_plugin_client(platform: str) -> Any | None:
    candidates = {
        "cuda": [("jax_plugins.xla_cuda13", "cuda"), ("jax_plugins.xla_cuda12", "cuda")],
        "rocm": [("jax_plugins.xla_rocm7", "rocm"), ("jax_plugins.xla_rocm6", "rocm")],
    }[platform]
    for package, plugin_name in candidates:
        if _package_dir("jax_plugins") is None:
            return None
        directory = _package_dir(package)
        if directory is None:
            continue
        libraries = glob.glob(os.path.join(directory, "xla_*_plugin.so"))
        if not libraries:
            continue
        if platform == "cuda":
            _preload_nvidia_libraries()
        if not xc.pjrt_plugin_loaded(plugin_name):
            xc.load_pjrt_plugin_dynamically(plugin_name, libraries[0])
        if not xc.pjrt_plugin_initialized(plugin_name):
            xc.initialize_pjrt_plugin(plugin_name)
        options = xc.generate_pjrt_gpu_plugin_options()
        client = xc.make_c_api_client(plugin_name, options, None)
        _register_gpu_custom_calls(package, platform)
        return client
    return None


def _register_gpu_custom_calls(plugin_package: str, platform: str) -> None:
    # Solver/FFT/PRNG kernels live in the plugin's extension module; registering them is optional.
    module_name = (
        plugin_package.replace("jax_plugins.xla_", "jax_") + "_plugin.cuda_plugin_extension"
    )
    try:
        spec = importlib.util.find_spec(module_name)
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        return
    try:
        ext = importlib.import_module(module_name)
        for name, handler in ext.ffi_handlers():
            xc.register_custom_call_target(name, handler, platform=platform.upper(), api_version=1)
    except Exception as err:  # keep the backend usable without the extra kernels
        logger.warning("stablax: could not register %s custom calls: %s", platform, err)


def make_tpu_client() -> Any | None:
    directory = _package_dir("libtpu")
    if directory is None:
        return None
    library = os.path.join(directory, "libtpu.so")
    if not os.path.exists(library):
        return None
    if not xc.pjrt_plugin_loaded("tpu"):
        xc.load_pjrt_plugin_dynamically("tpu", library)
    return xc.make_c_api_client("tpu", {}, None)
