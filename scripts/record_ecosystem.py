"""Records what JAX 0.10.2 computes for the ecosystem workloads (tests/ecosystem/workloads.py).

Run with JAX and the pinned library versions (pyproject's `ecosystem` extra) importable, e.g.:

    /work/venv-jax/bin/pip install --no-deps --target /tmp/eco optax==0.2.8 chex==0.1.92 \
        flax==0.12.8 equinox==0.13.8 dm-haiku==0.0.17 absl-py toolz typing_extensions msgpack \
        pyyaml rich markdown-it-py mdurl pygments treescope jaxtyping wadler-lindig jmp tabulate
    PYTHONPATH=/tmp/eco /work/venv-jax/bin/python scripts/record_ecosystem.py

Writes tests/data/ecosystem/<library>.npz (every array each workload returned, keyed
`<workload>/<name>`) and tests/data/ecosystem/meta.json (the versions used, and the workloads
JAX itself cannot run with the reason, e.g. optax.dpsgd, which needs arguments beyond a
learning rate).
"""

from __future__ import annotations

import importlib.metadata
import json
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "ecosystem"
sys.path.insert(0, str(ROOT / "tests" / "ecosystem"))

import workloads  # noqa: E402

PACKAGES = ("jax", "optax", "chex", "flax", "equinox", "dm-haiku")


def main() -> None:
    import jax

    assert "stablax" not in jax.__file__, "record with the real JAX"
    OUT.mkdir(parents=True, exist_ok=True)
    meta = {
        "versions": {p: importlib.metadata.version(p) for p in PACKAGES},
        "jax_cannot_run": {},
    }
    for library in workloads.LIBRARIES:
        results = workloads.run(library)
        kept = {}
        for key, value in results.items():
            workload, name = key.split("/", 1)
            if name == "__error__":
                reason = str(value).strip().splitlines()[-1]
                meta["jax_cannot_run"][f"{library}/{workload}"] = reason
            else:
                kept[key] = value
        np.savez_compressed(OUT / f"{library}.npz", **kept)
        print(library, len({k.split("/")[0] for k in kept}), "workloads")
    (OUT / "meta.json").write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
