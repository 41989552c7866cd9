"""Records JAX's outputs for the cases of tests/scipy/reference_cases.py (run with a JAX install):

    /work/venv-jax/bin/python scripts/record_scipy_reference.py

Writes tests/data/scipy/reference.npz: for case `name`, its inputs `name/in<i>` and the leaves of
what JAX returned, `name/out<j>` (bools and integers exactly, floats as JAX computed them).
"""

from __future__ import annotations

import pathlib
import sys
import types
import zlib

import jax
import jax.experimental.ode
import jax.lax.linalg
import jax.numpy
import jax.scipy.cluster.vq
import jax.scipy.fft
import jax.scipy.integrate
import jax.scipy.interpolate
import jax.scipy.linalg
import jax.scipy.ndimage
import jax.scipy.optimize
import jax.scipy.signal
import jax.scipy.sparse.linalg
import jax.scipy.spatial.transform
import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.scipy.reference_cases import CASES  # noqa: E402

OUT = ROOT / "tests" / "data" / "scipy" / "reference.npz"
JAX = types.SimpleNamespace(
    lax=jax.lax, numpy=jax.numpy, scipy=jax.scipy, ode=jax.experimental.ode, random=jax.random
)


def main() -> None:
    data: dict[str, np.ndarray] = {}
    for case in CASES:
        rng = np.random.default_rng(zlib.crc32(case.name.encode()))
        inputs = case.inputs(rng)
        jax.config.update("jax_enable_x64", case.x64)
        try:
            outputs = jax.tree_util.tree_leaves(case.fn(JAX, *inputs))
        finally:
            jax.config.update("jax_enable_x64", False)
        for i, x in enumerate(inputs):
            data[f"{case.name}/in{i}"] = np.asarray(x)
        for j, y in enumerate(outputs):
            data[f"{case.name}/out{j}"] = np.asarray(y)
        print(case.name, [np.asarray(y).dtype.name for y in outputs])
    OUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(OUT, **data)
    print(f"wrote {len(CASES)} cases to {OUT}")


if __name__ == "__main__":
    main()
