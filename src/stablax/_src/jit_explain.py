"""Why a jitted function traces again: `jax_explain_cache_misses` and the reason `jax_log_compiles`
prints next to every compile.

A `jit` cache key is (input treedef, leaf avals, static argument values, config epoch). On a miss
the new key is compared with every key the function was traced for before; the closest one (it
agrees on the most of flags, static values and tree, in that order; then the fewest differences)
is described naming each argument as the function's signature does (`params['w']`,
`args[2]`), so the message says exactly what changed and where the function is defined. Only a
miss made while one of the two flags is on calls into this module; a cache hit never does.
"""

from __future__ import annotations

import inspect
from typing import Any

from stablax._src import tree_util
from stablax._src.pytree_registry import keystr


def where_defined(fun: Any) -> str:
    """`name defined at file:line` for a function (or the function under partials/wrappers)."""
    target = fun
    while callable(getattr(target, "func", None)):  # functools.partial
        target = target.func
    try:
        target = inspect.unwrap(target)
    except ValueError:  # a wrapper cycle
        pass
    name = getattr(fun, "__name__", None) or getattr(target, "__name__", type(fun).__name__)
    code = getattr(target, "__code__", None)
    if code is None:
        return name
    return f"{name} defined at {code.co_filename}:{code.co_firstlineno}"


def _parameter_namer(jitted: Any):
    """Maps an original positional index to the name a user wrote (`x`, or `args[3]`)."""
    sig = jitted._signature
    positional: list[str] = []
    var_name = None
    if sig is not None:
        kinds = inspect.Parameter
        for p in sig.parameters.values():
            if p.kind in (kinds.POSITIONAL_ONLY, kinds.POSITIONAL_OR_KEYWORD):
                positional.append(p.name)
            elif p.kind == kinds.VAR_POSITIONAL:
                var_name = p.name

    def name(i: int) -> str:
        if i < len(positional):
            return positional[i]
        if var_name is not None:
            return f"{var_name}[{i - len(positional)}]"
        return f"args[{i}]"

    return name


def _dynamic_positions(jitted: Any, n_args: int) -> list[int]:
    return [i for i in range(n_args) if i not in jitted.static_argnums]


def leaf_names(jitted: Any, args: tuple, kwargs: dict) -> list[str]:
    """One name per flat leaf of a call, in the order `jit` flattens them."""
    dyn_args, dyn_kwargs, _ = jitted._split_static(args, kwargs)
    pairs, _ = tree_util.tree_flatten_with_path((dyn_args, dyn_kwargs))
    positions = _dynamic_positions(jitted, len(args))
    param = _parameter_namer(jitted)
    names = []
    for path, _leaf in pairs:
        top, arg = path[0], path[1]
        head = param(positions[arg.idx]) if top.idx == 0 else str(arg.key)
        names.append(head + keystr(tuple(path[2:])))
    return names


def _aval_str(aval: Any, other: Any) -> str:
    text = aval.str_short()
    if aval.weak_type != other.weak_type:
        text += f"{{weak_type={aval.weak_type}}}"
    return text


def _diff_types(names: list[str], new: tuple, old: tuple) -> list[str]:
    return [
        f"at {name}, now {_aval_str(a, b)} and before {_aval_str(b, a)}"
        for name, a, b in zip(names, new, old, strict=True)
        if a != b
    ]


def _node_label(treedef: Any) -> str:
    data = treedef.node_data()
    if data is None:
        return "a leaf"
    kind, aux = data
    text = str(treedef).removeprefix("PyTreeDef(").removesuffix(")")
    return f"{kind.__name__} {text}" if aux is None else text


def _diff_tree(new: Any, old: Any, where: str, out: list[str]) -> None:
    """Descends while the two treedefs agree on node type and arity; reports where they part."""
    if new == old:
        return
    new_data, old_data = new.node_data(), old.node_data()
    new_children = new.children() if new_data is not None else []
    old_children = old.children() if old_data is not None else []
    if new_data != old_data or len(new_children) != len(old_children):
        out.append(f"at {where}, now {_node_label(new)} and before {_node_label(old)}")
        return
    kind, aux = new_data
    for i, (a, b) in enumerate(zip(new_children, old_children, strict=True)):
        key = f"[{aux[i]!r}]" if kind is dict else f"[{i}]"
        _diff_tree(a, b, where + key, out)


def _diff_trees(jitted: Any, args: tuple, new: Any, old: Any) -> list[str]:
    new_args, new_kwargs = new.children()
    old_args, old_kwargs = old.children()
    out: list[str] = []
    param = _parameter_namer(jitted)
    a_children, b_children = new_args.children(), old_args.children()
    longest = max(len(args), len(b_children)) + len(jitted.static_argnums)
    positions = _dynamic_positions(jitted, longest)
    if len(a_children) != len(b_children):
        n, m = len(a_children), len(b_children)
        which = ", ".join(param(positions[i]) for i in range(min(n, m), max(n, m)))
        out.append(f"now {n} positional arguments and before {m} ({which})")
    else:
        for i, (a, b) in enumerate(zip(a_children, b_children, strict=True)):
            _diff_tree(a, b, param(positions[i]), out)
    if new_kwargs != old_kwargs:
        new_names = set(new_kwargs.node_data()[1] or ())
        old_names = set(old_kwargs.node_data()[1] or ())
        if new_names != old_names:
            out.append(f"keyword arguments now {sorted(new_names)} and before {sorted(old_names)}")
        else:
            _diff_tree(new_kwargs, old_kwargs, "", out)
    return out


def _diff_statics(jitted: Any, new: tuple, old: tuple) -> list[str]:
    param = _parameter_namer(jitted)
    new_map, old_map = dict(new), dict(old)
    out = []
    for where in sorted(set(new_map) | set(old_map), key=str):
        a, b = new_map.get(where, "<default>"), old_map.get(where, "<default>")
        if type(a) is not type(b) or a != b:
            label = param(where) if isinstance(where, int) else where
            out.append(f"static argument {label}: now {a!r} and before {b!r}")
    return out


def explain(jitted: Any, key: tuple, args: tuple, kwargs: dict) -> str:
    """Why `key` missed the cache of `jitted`: the differences from its closest previous key."""
    known = list(jitted._cache.keys())
    if not known:
        return "never seen function: its first trace"
    tree, avals, static, epoch = key
    candidates = []
    for old_tree, old_avals, old_static, old_epoch in known:
        if old_epoch != epoch:
            candidates.append(
                (0, 1, ["a flag that changes traced programs (config.update) changed since"])
            )
        elif old_static != static:
            diffs = _diff_statics(jitted, static, old_static)
            candidates.append((1, len(diffs), diffs or ["different static arguments"]))
        elif old_tree != tree:
            diffs = _diff_trees(jitted, args, tree, old_tree)
            candidates.append((2, len(diffs), diffs or [f"different input pytree: {tree}"]))
        else:
            names = leaf_names(jitted, args, kwargs)
            diffs = _diff_types(names, avals, old_avals)
            candidates.append((3, len(diffs), diffs))
    # The closest key agrees on the most of (flags, statics, tree): the highest severity.
    severity, _, diffs = min(candidates, key=lambda c: (-c[0], c[1]))
    heading = {
        0: "tracing context differs",
        1: "different static arguments",
        2: "different input pytree",
        3: "different input types",
    }[severity]
    return f"{heading} from the closest previous trace:\n  * " + "\n  * ".join(diffs)


def cache_miss_message(jitted: Any, reason: str) -> str:
    return f"TRACING CACHE MISS for jit({where_defined(jitted.fun)}): {reason}"
