"""examples/quickstart.ipynb executed top to bottom by a real Jupyter kernel (the install cell,
tagged `install`, skipped): every cell succeeds, the training loss falls and its plot is there.
"""

from __future__ import annotations

import pathlib
import re

import nbformat
from IPython.core.inputtransformer2 import TransformerManager
from nbclient import NotebookClient

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def _text(cell) -> str:
    return "".join(out.get("text", "") for out in cell.outputs if out.output_type == "stream")


def test_quickstart_notebook_runs_in_a_kernel():
    nb = nbformat.read(EXAMPLES / "quickstart.ipynb", as_version=4)
    install = nb.cells[1]
    assert "%pip install" in install.source and "install" in install.metadata["tags"]
    # the install cell is valid IPython (its %pip sits inside an `if`)
    compile(TransformerManager().transform_cell(install.source), "install-cell", "exec")
    nb.cells = [c for c in nb.cells if "install" not in c.metadata.get("tags", [])]
    client = NotebookClient(
        nb,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(EXAMPLES)}},
    )
    client.execute()  # raises CellExecutionError if any cell fails
    code_cells = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.execution_count is not None for c in code_cells)
    errors = [o for c in code_cells for o in c.outputs if o.output_type == "error"]
    assert not errors
    images = [o for c in code_cells for o in c.outputs if "image/png" in o.get("data", {})]
    assert len(images) == 1
    text = "\n".join(_text(c) for c in code_cells)
    assert "grad(tanh)(1.0) = 0.4199743" in text
    assert "loops each" in text  # the %timeit lines of the jit cell
    first, last = map(
        float, re.search(r"loss: ([\d.]+) at the start, ([\d.]+) after", text).groups()
    )
    assert last < 0.1 * first
    assert "cpu" in _text(code_cells[-1]).lower() or "cuda" in _text(code_cells[-1]).lower()
