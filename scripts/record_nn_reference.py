"""Records JAX's outputs for stablax.nn tests that must match JAX's bits (run with a JAX install):

    /work/venv-jax/bin/python scripts/record_nn_reference.py

Writes tests/data/nn/initializers.json (the initializer calls: factory, its arguments, shape,
dtype, seed, x64) and tests/data/nn/values.npz (JAX's outputs keyed by case id; bfloat16 as its
uint16 bits), plus the block-scaled quantisation of one fixed matrix for mxfp8 and nvfp4
(`quant_<mode>_values` as uint8 bits, `quant_<mode>_scales` as uint8 bits, and the input).
"""

from __future__ import annotations

import json
import pathlib

import jax
import jax.numpy as jnp
import numpy as np
from jax._src.cudnn import scaled_matmul_stablehlo as scaled

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "nn"
SEEDS = (0, 1701)

# (factory, factory keyword arguments, shape, dtype or None, x64)
INITIALIZERS: list[tuple[str, dict, list[int], str | None, bool]] = [
    ("zeros", {}, [2, 3], None, False),
    ("ones", {}, [2, 3], "float16", False),
    ("constant", {"value": 2.5}, [3], None, False),
    ("uniform", {}, [2, 3], None, False),
    ("uniform", {"scale": 0.5}, [4, 2], "bfloat16", False),
    ("normal", {}, [2, 3], None, False),
    ("normal", {"stddev": 2.0}, [5], "float16", False),
    ("truncated_normal", {}, [3, 4], None, False),
    ("truncated_normal", {"stddev": 0.5, "lower": -1.0, "upper": 3.0}, [3, 4], None, False),
    ("glorot_normal", {}, [3, 4], None, False),
    ("glorot_uniform", {}, [3, 4], None, False),
    ("glorot_uniform", {"in_axis": 0, "out_axis": 1}, [2, 3, 5], None, False),
    ("glorot_normal", {"in_axis": -2, "out_axis": -1, "batch_axis": 0}, [2, 3, 5], None, False),
    ("xavier_normal", {}, [6, 2], None, False),
    ("xavier_uniform", {}, [6, 2], None, False),
    ("lecun_normal", {}, [3, 4], None, False),
    ("lecun_uniform", {"in_axis": (0, 1), "out_axis": 2}, [2, 3, 4], None, False),
    ("he_normal", {}, [3, 3, 2, 4], None, False),
    ("he_uniform", {}, [3, 4], "bfloat16", False),
    ("kaiming_normal", {}, [4, 3], None, False),
    ("kaiming_uniform", {}, [4, 3], None, False),
    (
        "variance_scaling",
        {"scale": 2.0, "mode": "fan_in", "distribution": "normal"},
        [3, 4],
        None,
        False,
    ),
    (
        "variance_scaling",
        {"scale": 1.0, "mode": "fan_out", "distribution": "uniform"},
        [3, 4],
        None,
        False,
    ),
    (
        "variance_scaling",
        {"scale": 1.5, "mode": "fan_avg", "distribution": "truncated_normal"},
        [5, 2],
        None,
        False,
    ),
    (
        "variance_scaling",
        {"scale": 1.0, "mode": "fan_geo_avg", "distribution": "normal"},
        [5, 2],
        None,
        False,
    ),
    (
        "variance_scaling",
        {"scale": 1.0, "mode": "fan_in", "distribution": "uniform"},
        [2, 3],
        "complex64",
        False,
    ),
    (
        "variance_scaling",
        {"scale": 1.0, "mode": "fan_in", "distribution": "truncated_normal"},
        [2, 3],
        "complex64",
        False,
    ),
    ("orthogonal", {}, [4, 3], None, False),
    ("orthogonal", {"scale": 2.0}, [3, 5], None, False),
    ("orthogonal", {"column_axis": 0}, [3, 2, 4], None, False),
    ("delta_orthogonal", {}, [3, 2, 4], None, False),
    ("delta_orthogonal", {}, [3, 3, 2, 2], None, False),
    ("delta_orthogonal", {"scale": 0.5}, [3, 3, 3, 2, 3], None, False),
    ("glorot_normal", {}, [3, 4], "float64", True),
    ("he_uniform", {}, [3, 4], "float64", True),
    ("normal", {}, [4], "float64", True),
    ("orthogonal", {}, [4, 3], "float64", True),
]


def _host(x: jax.Array) -> np.ndarray:
    x = np.asarray(x)
    return x.view(np.uint16) if x.dtype == jnp.bfloat16 else x


def record_initializers(values: dict) -> list[dict]:
    cases = []
    for index, (factory, kwargs, shape, dtype, x64) in enumerate(INITIALIZERS):
        jax.config.update("jax_enable_x64", x64)
        for seed in SEEDS:
            case_id = f"init{index}_{seed}"
            if factory in ("zeros", "ones"):
                init = getattr(jax.nn.initializers, factory)
            else:
                init = getattr(jax.nn.initializers, factory)(**kwargs)
            key = jax.random.PRNGKey(seed)
            out = init(key, tuple(shape)) if dtype is None else init(key, tuple(shape), dtype)
            values[case_id] = _host(out)
            cases.append(
                dict(
                    id=case_id,
                    factory=factory,
                    kwargs=kwargs,
                    shape=shape,
                    dtype=dtype,
                    seed=seed,
                    x64=x64,
                    result_dtype=str(out.dtype),
                )
            )
    jax.config.update("jax_enable_x64", False)
    return cases


def record_quantization(values: dict) -> None:
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((2, 3, 64)) * np.exp(rng.uniform(-4, 4, (2, 3, 1)))).astype(np.float32)
    values["quant_input"] = x
    for mode in ("mxfp8", "nvfp4"):
        config = jax.nn.get_scaled_dot_general_config(mode)
        if mode == "nvfp4":
            config.global_scale = jnp.array([0.25], jnp.float32)
        quantized, scales = scaled.quantize(jnp.asarray(x), config)
        values[f"quant_{mode}_values"] = np.asarray(quantized).view(np.uint8)
        values[f"quant_{mode}_scales"] = np.asarray(scales).view(np.uint8)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    values: dict[str, np.ndarray] = {}
    cases = record_initializers(values)
    record_quantization(values)
    (OUT / "initializers.json").write_text(json.dumps(cases, indent=1) + "\n")
    np.savez_compressed(OUT / "values.npz", **values)
    print(f"recorded {len(cases)} initializer cases, {len(values)} arrays, jax {jax.__version__}")


if __name__ == "__main__":
    main()
