"""Imports go one way: down the layers below, at the top of each module.

A module may import modules of its own layer and of the layers under it. An import inside a
function is allowed only where FUNCTION_LEVEL lists it, with its reason: a family loaded on first
use (import time), or a true cycle (two features each built on the other). CONTRIBUTING.md
describes the layers; this test is what holds them.
"""

from __future__ import annotations

import ast
import fnmatch
import pathlib

import pytest

SRC = pathlib.Path(__file__).resolve().parent.parent / "src"

# Bottom first: (layer, module patterns relative to `stablax.`), the first match wins.
LAYERS = [
    (
        "base",
        [
            "_src.config_flags",
            "_src.config",
            "_src.config_states",
            "_src.caches",
            "_src.compilation_store",
            "_src.runtime_effects",
            "_src.runtime",
            "_src.runtime_profiler",
            "_src.runtime_plugins",
            "_src.errors",
            "_src.traceback_util",
            "_src.transfer_guard",
            "_src.profiler",
            "_src.pytree_registry",
            "_src.pytree_treedef",
            "_src.tree_util",
            "_src.pytree_fast",
            "_src.basearray",
            "_src.primitive",
        ],
    ),
    (
        "dtypes",
        ["_src.dtype_tables", "_src.dtype_promotion", "_src.dtypes", "_src.shape_dtype_struct"],
    ),
    ("ir", ["_src.ir", "_src.ir_passes"]),
    (
        "values",
        ["_src.avals", "_src.array", "_src.core", "_src.bodies", "_src.traced", "_src.arraylike"],
    ),
    (
        "dispatch",
        [
            "_src.op_rules",
            "_src.nan_checks",
            "_src.nan_locator",
            "_src.dispatch",
            "_src.concrete",
            "_src.staging",
            "_src.jit_arguments",
            "_src.jit_inline",
            "_src.jit_hit_keys",
            "_src.jit_explain",
            "_src.jit_stages",
            "_src.jaxpr_view",
            "_src.jit",
        ],
    ),
    ("interpreters", ["_src.interpreters", "_src.interpreters.*"]),
    ("lax", ["_src.lax", "_src.lax.*"]),
    (
        "transforms",
        [
            "_src.transforms",
            "_src.transforms.*",
            "_src.api",
            "_src.callbacks",
            "_src.debug_breakpoint",
            "_src.closure_convert",
            "_src.fwd_and_bwd",
            "_src.saved_residuals",
            "_src.test_util",
        ],
    ),
    # A library's public namespace (`stablax.numpy`) is part of it: libraries above use it.
    ("numpy", ["_src.numpy", "_src.numpy.*", "_src.dlpack", "numpy", "numpy.*"]),
    ("random", ["_src.random", "_src.random.*", "random"]),
    (
        "libraries",
        [
            "_src.nn",
            "_src.nn.*",
            "_src.scipy",
            "_src.scipy.*",
            "_src.example_libraries",
            "_src.example_libraries.*",
            "_src.image",
            "_src.ops",
            "_src.flatten_util",
            "_src.refs",
            "_src.ode",
            "_src.api_extras",
            "_src.lax_primitives",
            "lax",
            "lax.*",
        ],
    ),
    ("public", ["*"]),
]

# (importing module, imported module) -> why the import is inside a function.
FUNCTION_LEVEL: dict[tuple[str, str], str] = {
    ("stablax._src.lax._cumulative", "stablax._src.lax._windowed"): (
        "import time: reduce_window is a family loaded on first use, the cumulative ops are "
        "not; the first one emitted loads the rules of its reduce_window"
    ),
    ("stablax._compat.finder", "stablax._compat.top"): (
        "a cycle: the `jax` alias is built from the whole stablax namespace, and `stablax` "
        "offers install_as_jax from this module"
    ),
    ("stablax._src.interpreters.custom_calls", "stablax._src.transforms.vmap_api"): (
        "a cycle: a batched custom_jvp/custom_vjp call runs the user's rules under vmap, and vmap "
        "is built on these batching rules"
    ),
    ("stablax._src.numpy._array_api", "stablax.numpy"): (
        "a cycle: an array's __array_namespace__ is the public stablax.numpy, which is built "
        "from this layer"
    ),
    ("stablax._src.numpy._array_methods", "stablax._src.numpy._indexing_funcs"): (
        "import time: the family of jnp.take loads on first use of x.take"
    ),
    ("stablax._src.numpy._asarray", "stablax._src.numpy._shape"): (
        "a cycle: jnp.array of nested lists holding traced values stacks them, and jnp.stack "
        "converts its operands with asarray"
    ),
    ("stablax._src.numpy._ufunc_class", "stablax._src.numpy._vectorize"): (
        "import time: jnp.vectorize's family loads on first use, not with jnp.ufunc"
    ),
    ("stablax._src.numpy._ufunc_class", "stablax._src.numpy._math_ufuncs"): (
        "import time: the family of logaddexp loads on first use, not with jnp.ufunc"
    ),
    ("stablax._src.random.matrix", "stablax.numpy.linalg"): (
        "import time: jnp.linalg loads on first use, and stablax.random does not load it"
    ),
    ("stablax._src.nan_locator", "stablax._src.jaxpr_view"): (
        "a true cycle: a failed NaN check names the op as the jaxpr view does, and the view "
        "evaluates through staging, which runs NaN checks"
    ),
}

MAX_FUNCTION_LEVEL = 40


def _module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(SRC.rglob("*.py"))}


def layer_of(module: str) -> int:
    relative = module.removeprefix("stablax").removeprefix(".")
    for index, (_, patterns) in enumerate(LAYERS):
        if any(fnmatch.fnmatchcase(relative, p) for p in patterns):
            return index
    raise AssertionError(f"{module} is in no layer")


def _targets(module: str, node: ast.AST, is_package: bool) -> list[str]:
    """The stablax modules an import statement loads (a name imported from a package that is
    one of its submodules counts as that submodule)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] == "stablax"]
    base = node.module or ""
    if node.level:
        package = module.split(".") if is_package else module.split(".")[:-1]
        base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
    if base.split(".")[0] != "stablax":
        return []
    return [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]


def _imports(module: str) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """(module-level imports, imports inside functions) of stablax modules, with line numbers."""
    path = MODULES[module]
    tree = ast.parse(path.read_text())
    top: list[tuple[str, int]] = []
    inner: list[tuple[str, int]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                for target in _targets(module, child, path.name == "__init__.py"):
                    (inner if in_function else top).append((target, child.lineno))
            nested = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            visit(child, nested)

    visit(tree, False)
    return top, inner


def test_every_module_has_a_layer():
    for module in MODULES:
        layer_of(module)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_module_level_imports_go_down(module):
    here = layer_of(module)
    top, _ = _imports(module)
    upward = [
        f"line {line}: {target} ({LAYERS[layer_of(target)][0]})"
        for target, line in top
        if layer_of(target) > here
    ]
    assert not upward, f"{module} ({LAYERS[here][0]}) imports upward: {upward}"


def test_function_level_imports_are_listed_with_their_reason():
    found = set()
    unlisted = []
    for module in MODULES:
        for target, line in _imports(module)[1]:
            found.add((module, target))
            if (module, target) not in FUNCTION_LEVEL:
                unlisted.append(f"{MODULES[module].relative_to(SRC)}:{line} imports {target}")
    assert not unlisted, "imports inside functions:\n" + "\n".join(unlisted)
    stale = sorted(set(FUNCTION_LEVEL) - found)
    assert not stale, f"listed imports that no longer exist: {stale}"
    assert len(FUNCTION_LEVEL) <= MAX_FUNCTION_LEVEL


def test_module_level_imports_have_no_cycle():
    graph = {m: {t for t, _ in _imports(m)[0] if t in MODULES and t != m} for m in MODULES}
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(module: str) -> None:
        state[module] = 1
        path.append(module)
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                cycle = path[path.index(target) :] + [target]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if target not in state:
                visit(target)
        path.pop()
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module)
