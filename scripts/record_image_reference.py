"""Records JAX's `jax.image` outputs as test data for stablax.image (run with a JAX install):

    /work/venv-jax/bin/python scripts/record_image_reference.py

Writes tests/data/image/cases.json (the calls) and tests/data/image/values.npz (JAX's results,
keyed by case id; "<id>_input" is the image passed; "<id>_grad" holds the gradient of sum(out * weights) w.r.t. the image, and for
scale_and_translate "<id>_dscale" and "<id>_dtranslation" w.r.t. scale and translation).
"""

from __future__ import annotations

import json
import pathlib

import jax
import jax.numpy as jnp
import numpy as np

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "image"
METHODS = ("nearest", "linear", "cubic", "cubic-pytorch", "lanczos3", "lanczos5", "area")
RESIZES = [  # (input shape, output shape)
    ((5, 7), (9, 4)),
    ((2, 6, 6, 3), (2, 3, 10, 3)),
    ((4,), (11,)),
]
TRANSFORMS = [  # (input shape, output shape, spatial dims, scale, translation)
    ((6, 5), (8, 7), (0, 1), (1.4, 0.8), (0.3, -0.5)),
    ((3, 8, 2), (3, 5, 2), (1,), (0.6,), (0.25,)),
]


def image(shape: tuple[int, ...], dtype: str) -> np.ndarray:
    rng = np.random.default_rng(sum(shape) * 31 + len(shape))
    return rng.standard_normal(shape).astype(dtype)


def weights(shape: tuple[int, ...]) -> np.ndarray:
    return np.cos(np.arange(int(np.prod(shape)), dtype=np.float32)).reshape(shape)


def main() -> None:
    cases, values = [], {}
    for i, (src, dst) in enumerate(RESIZES):
        for method in METHODS:
            for antialias in (True, False):
                for dtype in ("float32", "int32") if method == "nearest" else ("float32",):
                    case = dict(
                        id=f"resize_{i}_{method}_{antialias}_{dtype}", fn="resize", src=src,
                        dst=dst, method=method, antialias=antialias, dtype=dtype,
                    )  # fmt: skip
                    x = image(src, "float32")
                    x = (x * 10).astype(dtype)
                    values[case["id"] + "_input"] = x
                    values[case["id"]] = np.asarray(jax.image.resize(x, dst, method, antialias))
                    if dtype == "float32" and method != "nearest":
                        w = weights(dst)
                        g = jax.grad(
                            lambda x: (jax.image.resize(x, dst, method, antialias) * w).sum()
                        )
                        values[case["id"] + "_grad"] = np.asarray(g(x))
                    cases.append(case)
    for i, (src, dst, dims, scale, shift) in enumerate(TRANSFORMS):
        for method in METHODS[1:]:
            for antialias in (True, False):
                case = dict(
                    id=f"sat_{i}_{method}_{antialias}", fn="scale_and_translate", src=src,
                    dst=dst, dims=dims, scale=scale, translation=shift, method=method,
                    antialias=antialias, dtype="float32",
                )  # fmt: skip
                x = image(src, "float32")
                values[case["id"] + "_input"] = x
                w = weights(dst)

                def loss(x, s, t):
                    out = jax.image.scale_and_translate(x, dst, dims, s, t, method, antialias)
                    return (out * w).sum()

                s, t = jnp.array(scale, jnp.float32), jnp.array(shift, jnp.float32)
                out = jax.image.scale_and_translate(x, dst, dims, s, t, method, antialias)
                values[case["id"]] = np.asarray(out)
                gx, gs, gt = jax.grad(loss, argnums=(0, 1, 2))(x, s, t)
                values[case["id"] + "_grad"] = np.asarray(gx)
                values[case["id"] + "_dscale"] = np.asarray(gs)
                values[case["id"] + "_dtranslation"] = np.asarray(gt)
                cases.append(case)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "cases.json").write_text(json.dumps(cases, indent=1) + "\n")
    np.savez_compressed(OUT / "values.npz", **values)
    print(f"recorded {len(cases)} cases, {len(values)} arrays with JAX {jax.__version__}")


if __name__ == "__main__":
    main()
