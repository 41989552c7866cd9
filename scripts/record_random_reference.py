"""Records JAX's random outputs as test data for stablax.random (run with a JAX install):

    /work/jaxvenv/bin/python scripts/record_random_reference.py

Writes tests/data/random/cases.json (what was called) and tests/data/random/values.npz (what JAX
returned, keyed by case id, and by case id + "_jit" for the call inside an enclosing jit). Keys
are recorded as their uint32 data.
"""

from __future__ import annotations

import json
import pathlib

import jax
import numpy as np
from jax import random

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "random"
SEEDS = (0, 42, 1701)
SHAPES = ((5,), (2, 3))

# (function, positional parameters after the key, keyword arguments); `shape` is added per case
# when the entry's last element is True.
SAMPLERS: list[tuple[str, tuple, dict, bool]] = [
    ("uniform", (), {}, True),
    ("uniform", (), {"minval": -2.0, "maxval": 3.0}, True),
    ("uniform", (), {"dtype": "float16"}, True),
    ("uniform", (), {"dtype": "bfloat16"}, True),
    ("normal", (), {}, True),
    ("normal", (), {"dtype": "float16"}, True),
    ("normal", (), {"dtype": "complex64"}, True),
    ("bits", (), {}, True),
    ("bits", (), {"dtype": "uint8"}, True),
    ("bits", (), {"dtype": "uint16"}, True),
    ("randint", (), {"minval": 0, "maxval": 10}, True),
    ("randint", (), {"minval": -100, "maxval": 1000, "dtype": "int8"}, True),
    ("randint", (), {"minval": 0, "maxval": 256, "dtype": "uint8"}, True),
    ("randint", (), {"minval": -(2**31), "maxval": 2**31 - 1}, True),
    ("truncated_normal", (-1.0, 2.0), {}, True),
    ("bernoulli", (0.3,), {}, True),
    ("bernoulli", (0.3,), {"mode": "high"}, True),
    ("exponential", (), {}, True),
    ("laplace", (), {}, True),
    ("logistic", (), {}, True),
    ("cauchy", (), {}, True),
    ("gumbel", (), {}, True),
    ("gumbel", (), {"mode": "high"}, True),
    ("gumbel", (), {"mode": "highest"}, True),
    ("pareto", (3.0,), {}, True),
    ("lognormal", (0.5,), {}, True),
    ("weibull_min", (2.0, 1.5), {}, True),
    ("rayleigh", (2.0,), {}, True),
    ("wald", (1.5,), {}, True),
    ("geometric", (0.3,), {}, True),
    ("triangular", (0.0, 0.3, 1.0), {}, True),
    ("maxwell", (), {}, True),
    ("double_sided_maxwell", (1.0, 2.0), {}, True),
    ("rademacher", (), {}, True),
    ("gamma", (0.5,), {}, True),
    ("gamma", (3.0,), {}, True),
    ("loggamma", (0.2,), {}, True),
    ("beta", (2.0, 3.0), {}, True),
    ("chisquare", (3.0,), {}, True),
    ("f", (3.0, 5.0), {}, True),
    ("t", (4.0,), {}, True),
    ("poisson", (3.0,), {}, True),
    ("poisson", (25.0,), {}, True),
    ("binomial", (10.0, 0.3), {}, True),
    ("binomial", (100.0, 0.6), {}, True),
    ("generalized_normal", (1.5,), {}, True),
    ("ball", (3,), {}, True),
    ("orthogonal", (3,), {}, True),
]

# Samplers whose parameters are arrays, or which have no `shape` parameter of the usual kind.
SPECIAL: list[tuple[str, tuple, dict]] = [
    ("uniform", (), {"shape": (2, 3), "minval": np.array([0.0, 1.0, 2.0], np.float32)}),
    ("normal", (), {"shape": ()}),
    ("normal", (), {"shape": (7,)}),
    ("gamma", (np.array([0.3, 1.0, 4.0], np.float32),), {}),
    ("poisson", (np.array([0.5, 4.0, 12.0, 50.0], np.float32),), {}),
    ("dirichlet", (np.array([0.5, 1.0, 2.0], np.float32),), {"shape": (4,)}),
    (
        "multivariate_normal",
        (np.zeros(2, np.float32), np.array([[2.0, 0.5], [0.5, 1.0]], np.float32)),
        {"shape": (4,)},
    ),
    ("categorical", (np.log(np.array([0.1, 0.2, 0.3, 0.4], np.float32)),), {"shape": (6,)}),
    ("categorical", (np.zeros((2, 5), np.float32),), {"axis": 0, "shape": (3, 5)}),
    ("categorical", (np.zeros((2, 5), np.float32),), {"shape": (2, 2), "replace": False}),
    ("choice", (10,), {"shape": (4,)}),
    ("choice", (10,), {"shape": (4,), "replace": False}),
    ("choice", (np.arange(12.0, dtype=np.float32).reshape(3, 4),), {"shape": (2,), "axis": 1}),
    ("choice", (5,), {"shape": (6,), "p": np.array([0.1, 0.2, 0.3, 0.2, 0.2], np.float32)}),
    (
        "choice",
        (5,),
        {"shape": (3,), "replace": False, "p": np.array([0.1, 0.2, 0.3, 0.2, 0.2], np.float32)},
    ),
    ("permutation", (8,), {}),
    ("permutation", (np.arange(12, dtype=np.int32).reshape(4, 3),), {}),
    (
        "permutation",
        (np.arange(12, dtype=np.int32).reshape(4, 3),),
        {"axis": 1, "independent": True},
    ),
    ("multinomial", (10.0, np.array([0.2, 0.3, 0.5], np.float32)), {}),
]

X64_SAMPLERS: list[tuple[str, tuple, dict]] = [
    ("uniform", (), {"shape": (5,), "dtype": "float64"}),
    ("normal", (), {"shape": (5,), "dtype": "float64"}),
    ("bits", (), {"shape": (5,), "dtype": "uint64"}),
    ("randint", (), {"shape": (5,), "minval": 0, "maxval": 2**40, "dtype": "int64"}),
    ("exponential", (), {"shape": (5,), "dtype": "float64"}),
]


def encode(x):
    if isinstance(x, np.ndarray):
        return {"array": x.tolist(), "dtype": x.dtype.name}
    if isinstance(x, tuple):
        return {"tuple": [encode(v) for v in x]}
    if isinstance(x, dict):
        return {k: encode(v) for k, v in x.items()}
    return x


def decode(x):
    if isinstance(x, dict) and "array" in x:
        return np.array(x["array"], dtype=x["dtype"])
    if isinstance(x, dict) and "tuple" in x:
        return tuple(decode(v) for v in x["tuple"])
    if isinstance(x, dict):
        return {k: decode(v) for k, v in x.items()}
    return x


def sampler_cases():
    cases = []
    for partitionable in (True, False):
        for fn, args, kwargs, with_shape in SAMPLERS:
            for seed in SEEDS:
                for shape in SHAPES if with_shape else [None]:
                    kw = dict(kwargs, **({"shape": shape} if with_shape else {}))
                    cases.append(
                        dict(
                            fn=fn,
                            args=args,
                            kwargs=kw,
                            seed=seed,
                            key="raw",
                            partitionable=partitionable,
                            x64=False,
                        )
                    )
        for fn, args, kwargs in SPECIAL:
            for seed in SEEDS[:2]:
                cases.append(
                    dict(
                        fn=fn,
                        args=args,
                        kwargs=kwargs,
                        seed=seed,
                        key="typed",
                        partitionable=partitionable,
                        x64=False,
                    )
                )
        for fn, args, kwargs in X64_SAMPLERS:
            cases.append(
                dict(
                    fn=fn,
                    args=args,
                    kwargs=kwargs,
                    seed=7,
                    key="raw",
                    partitionable=partitionable,
                    x64=True,
                )
            )
    return cases


def key_cases():
    cases = []
    for partitionable in (True, False):
        for x64 in (False, True):
            for seed in (0, 42, -1, 2**31 + 5, 2**40 + 7):
                cases.append(
                    dict(
                        fn="PRNGKey",
                        args=(seed,),
                        kwargs={},
                        seed=None,
                        key=None,
                        partitionable=partitionable,
                        x64=x64,
                    )
                )
        for seed in SEEDS:
            for num in (2, 3, (2, 3)):
                cases.append(
                    dict(
                        fn="split",
                        args=(num,),
                        kwargs={},
                        seed=seed,
                        key="raw",
                        partitionable=partitionable,
                        x64=False,
                    )
                )
            for data in (0, 43, 2**32 - 1):
                cases.append(
                    dict(
                        fn="fold_in",
                        args=(data,),
                        kwargs={},
                        seed=seed,
                        key="typed",
                        partitionable=partitionable,
                        x64=False,
                    )
                )
    return cases


def run_case(case, use_jit=False):
    jax.config.update("jax_threefry_partitionable", case["partitionable"])
    jax.config.update("jax_enable_x64", case["x64"])
    try:
        args = [decode(encode(a)) for a in case["args"]]
        kwargs = decode(encode(case["kwargs"]))
        if case["fn"] == "PRNGKey":
            return np.asarray(random.PRNGKey(*args))
        make_key = random.PRNGKey if case["key"] == "raw" else random.key

        def sample(key):
            return getattr(random, case["fn"])(key, *args, **kwargs)

        out = (jax.jit(sample) if use_jit else sample)(make_key(case["seed"]))
        if jax.dtypes.issubdtype(out.dtype, jax.dtypes.prng_key):
            out = random.key_data(out)
        out = np.asarray(out)
        # npz cannot hold bfloat16: store its bits (the tests compare bits anyway).
        return out.view(np.uint16) if out.dtype.name == "bfloat16" else out
    finally:
        jax.config.update("jax_enable_x64", False)
        jax.config.update("jax_threefry_partitionable", True)


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    cases, values = [], {}
    for i, case in enumerate(key_cases() + sampler_cases()):
        case_id = f"{i:04d}_{case['fn']}"
        values[case_id] = run_case(case)
        if case["fn"] != "PRNGKey":
            # Under an enclosing jit XLA fuses differently and float results can move by an ulp,
            # in JAX as in stablax: record those too.
            values[case_id + "_jit"] = run_case(case, use_jit=True)
        cases.append(dict(encode(case), id=case_id))
    lines = ",\n".join(json.dumps(case, separators=(",", ":")) for case in cases)
    (OUT / "cases.json").write_text(f"[\n{lines}\n]\n")
    np.savez_compressed(OUT / "values.npz", **values)
    print(f"{len(cases)} cases written to {OUT}")


if __name__ == "__main__":
    main()
