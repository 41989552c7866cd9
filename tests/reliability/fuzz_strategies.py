"""Hypothesis strategies that draw calls of public stablax.numpy and stablax.lax functions.

A call is a JSON-able dict: {"fn": "jnp.cumsum", "mode": "eager" | "jit" | "grad" | "vmap",
"x64": bool, "args": [spec, ...], "kwargs": {name: spec}, "batch": [...]} (specs in
fuzz_values.py). Arguments are drawn from the function's signature: each parameter name belongs
to a class (array, axis, dtype, shape, count, flag, choice, callable, ...) whose strategy draws
mostly valid values and sometimes odd ones (None, strings, floats, out-of-range integers,
non-array objects), on shapes of rank 0 to 6 with empty dimensions.
"""

from __future__ import annotations

import inspect
from typing import Any

from hypothesis import strategies as st

import stablax.lax
import stablax.lax.linalg
import stablax.numpy
from tests.reliability import fuzz_values as fv

MODULES = {
    "jnp": stablax.numpy,
    "jnp.linalg": stablax.numpy.linalg,
    "jnp.fft": stablax.numpy.fft,
    "lax": stablax.lax,
    "lax.linalg": stablax.lax.linalg,
}

# Functions never called: they write files or change process-wide state.
SKIPPED = {
    "jnp.save": "writes a file",
    "jnp.savez": "writes a file",
    "jnp.load": "reads a file",
    "jnp.fromfile": "reads a file",
    "jnp.set_printoptions": "changes NumPy's global print options",
    "jnp.printoptions": "a context manager of NumPy's global print options",
}


def catalog() -> dict[str, inspect.Signature | None]:
    """Every public callable of the fuzzed modules (classes excluded), with its signature."""
    out: dict[str, inspect.Signature | None] = {}
    for prefix, module in MODULES.items():
        for name in sorted(dir(module)):
            if name.startswith("_"):
                continue
            obj = getattr(module, name)
            if not callable(obj) or isinstance(obj, type):
                continue
            if getattr(obj, "__module__", "") and "stablax" not in str(obj.__module__):
                continue  # re-exported NumPy helpers and the like
            qualified = f"{prefix}.{name}"
            if qualified in SKIPPED:
                continue
            # A jnp.ufunc's signature is (*args, out, where): draw its function's arguments.
            target = obj._func if isinstance(obj, stablax.numpy.ufunc) else obj
            try:
                out[qualified] = inspect.signature(target)
            except (TypeError, ValueError):
                out[qualified] = None
    return out


def resolve(lib: Any, qualified: str) -> Any:
    """The function `qualified` names ("jnp.linalg.norm") in `lib` (stablax or jax)."""
    prefix, _, name = qualified.rpartition(".")
    module = {
        "jnp": lib.numpy,
        "jnp.linalg": lib.numpy.linalg,
        "jnp.fft": lib.numpy.fft,
        "lax": lib.lax,
        "lax.linalg": lib.lax.linalg,
    }[prefix]
    return getattr(module, name)


# --- parameter classes -------------------------------------------------------------------------

ARRAY = "array"
ARRAYS = "arrays"  # a sequence of arrays (concatenate's `arrays`, *args of stack-likes)
AXIS = "axis"
AXES = "axes"
DTYPE = "dtype"
SHAPE = "shape"
COUNT = "count"
FLAG = "flag"
REAL = "real"
CHOICE = "choice"
CALLABLE = "callable"
NONE = "none"  # out=, device=, sharding: passed as None (or sometimes an odd value)

_CLASSES: dict[str, tuple[str, ...]] = {
    ARRAY: (
        "x a operand y x1 x2 b arr m lhs rhs v ary a1 a2 ar1 ar2 values array val p u condition "
        "weights xp fp sample element test_elements z ar mask vals updates update indices keys "
        "min max to_begin to_end prepend append prototype seq_of_zeros w fweights aweights "
        "repeats obj mean filt src idxs pred on_true on_false which init init_val init_value "
        "init_values padding_value scatter_indices elems xs fill_value initial where q bins "
        "range ind sorter choices condlist choicelist default kth pivots object A operands "
        "multi_index coeffs fill seq"
    ).split(),
    ARRAYS: "arrays tup arys args cases xi shapes".split(),
    AXIS: (
        "axis axis1 axis2 axisa axisb axisc dimension source destination start_dimension "
        "stop_dimension reduction_dimension num_keys"
    ).split(),
    AXES: "axes dimensions permutation broadcast_dimensions".split(),
    DTYPE: "dtype new_dtype preferred_element_type index_dtype from_ to arg1 arg2".split(),
    SHAPE: (
        "shape new_shape sizes s newshape dims new_sizes slice_sizes window_dimensions "
        "window_strides strides filter_shape lhs_shape rhs_shape in_shape window_shape "
        "operand_shape reps start_indices limit_indices fft_lengths base_dilation "
        "window_dilation lhs_dilation rhs_dilation"
    ).split(),
    COUNT: (
        "n N M k size num count length minlength ddof decimals deg edge_order shift offset "
        "total_repeat_length ndim start_index limit_index stride slice_size index batch_size "
        "rank lower upper max_steps unroll exponent_bits mantissa_bits permutation_size "
        "batch_group_count feature_group_count nin nout indices_or_sections correction "
        "k_subset ord start stop step"
    ).split(),
    FLAG: (
        "keepdims endpoint reverse copy sparse equal_nan assume_unique return_indices "
        "return_index return_inverse return_counts retstep invert hermitian full right stable "
        "descending is_stable include_initial promote_integers density bias rowvar "
        "symmetrize_input overwrite_input indices_are_sorted unique_indices "
        "allow_negative_indices wrap_negative_indices trim_leading_zeros strip_zeros inplace "
        "increasing returned compute_uv full_matrices left_side transpose_a conjugate_a "
        "unit_diagonal weak_type transpose_kernel sorted assume_unique_indices "
        "return_weak_type_flag pivoting compute_left_eigenvectors compute_right_eigenvectors "
        "sort_eigenvalues use_magma numpy_resid wrap tiled"
    ).split(),
    REAL: "rtol atol rcond beta nan posinf neginf period d base left discont dx tol".split(),
    CHOICE: (
        "mode method norm order side kind UPLO indexing bitorder casting padding subscripts "
        "rounding_method fft_type precision trim optimize signature algorithm"
    ).split(),
    CALLABLE: (
        "f func function func1d body_fun cond_fun computation mask_func true_fun false_fun fn "
        "pyfunc branches funclist"
    ).split(),
    NONE: (
        "out out_sharding device sharding accuracy axis_name axis_index_groups like external "
        "file buffer string sep formatter excluded opname subset_by_index update_shape "
        "scatter_dimension dimension_numbers padding_config pads identity _split_transpose "
        "_dot_general"
    ).split(),
}
PARAM_CLASS = {name: cls for cls, names in _CLASSES.items() for name in names}

_CHOICES = {
    "mode": [
        "constant",
        "edge",
        "reflect",
        "wrap",
        "symmetric",
        "linear_ramp",
        "maximum",
        "mean",
        "clip",
        "fill",
        "promise_in_bounds",
        "full",
        "same",
        "valid",
        "raise",
        "empty",
    ],
    "method": [
        "linear",
        "lower",
        "higher",
        "midpoint",
        "nearest",
        "scan",
        "sort",
        "compare_all",
        "auto",
        "lu",
        "qr",
    ],
    "norm": ["backward", "ortho", "forward", None, 2, "fro", "nuc"],
    "order": ["C", "F", "K", "A", None],
    "side": ["left", "right"],
    "kind": ["stable", "quicksort", "bool", "integral", "real floating", "numeric"],
    "UPLO": ["L", "U"],
    "indexing": ["xy", "ij"],
    "bitorder": ["big", "little"],
    "casting": ["no", "equiv", "safe", "same_kind", "unsafe"],
    "padding": ["SAME", "VALID", "SAME_LOWER"],
    "subscripts": ["ij->ji", "i,i->", "ij,jk->ik", "...i->...", "ii->i", "i->", "ijk->kji"],
    "rounding_method": [0, 1],
    "fft_type": ["FFT", "IFFT", "RFFT", "IRFFT"],
    "precision": [None, "highest", "default"],
    "trim": ["fb", "f", "b"],
    "optimize": [True, False, "greedy", "optimal"],
    "signature": ["(n)->()", "(),()->()", "(m,n),(n)->(m)"],
    "algorithm": [None],
}
_CALLABLE_POOL = sorted(fv.CALLABLES)
_ODD = [
    {"py": None},
    {"py": "a"},
    {"py": 1.5},
    {"py": -1},
    {"py": 2**63},
    {"py": True},
    {"bytes": "ab"},
    {"object": True},
    {"complex": [1.0, 2.0]},
    {"py": float("nan")},
]


_DTYPE_ORDER = ("float32", *[d for d in fv.DTYPES if d != "float32"])

# --- strategies --------------------------------------------------------------------------------

# Hypothesis starts from the first element of each choice (its "simplest" example): make that
# a typical valid input (a float32 vector of 3), the odd and empty cases later in the lists.
_DIM = st.sampled_from([3, 2, 1, 0, 2, 3, 4, 5, 1])
_RANK = st.sampled_from([1, 2, 0, 1, 2, 3, 0, 1, 2, 3, 4, 6])


@st.composite
def shapes(draw: Any, rank: int | None = None) -> list[int]:
    rank = draw(_RANK) if rank is None else rank
    dims = [draw(_DIM) for _ in range(rank)]
    if rank >= 4:  # keep rank-6 arrays small
        dims = [min(d, 2) for d in dims]
    return dims


@st.composite
def dtype_names(draw: Any) -> str:
    if draw(st.integers(0, 39)) == 39:
        return draw(st.sampled_from(fv.RARE_DTYPES))
    return draw(st.sampled_from(_DTYPE_ORDER))


@st.composite
def arrays(draw: Any, shape: list[int] | None = None, dtype: str | None = None) -> dict:
    spec = {
        "array": draw(shapes()) if shape is None else shape,
        "dtype": draw(dtype_names()) if dtype is None else dtype,
        "seed": draw(st.integers(0, 2**16)),
        "fill": draw(
            st.sampled_from(["normal"] * 5 + ["special", "special", "positive", "unit", "zeros"])
        ),
        "as": "array",
    }
    if spec["fill"] == "normal" and draw(st.integers(0, 9)) == 9:
        spec["fill"] = "wide"
    how = draw(st.integers(0, 19))
    if how == 19:
        spec["as"] = "numpy"
    elif how == 18 and len(spec["array"]) <= 2:
        spec["as"] = "list"
    elif how == 17:
        spec["as"] = "numpy_scalar"
    return spec


@st.composite
def python_scalars(draw: Any) -> dict:
    kind = draw(st.sampled_from(["int", "float", "bool", "complex", "special"]))
    if kind == "int":
        return {"py": draw(st.sampled_from([0, 1, 2, 3, -1, -5, 7, 300, -(2**31), 2**31]))}
    if kind == "float":
        return {"py": draw(st.sampled_from([0.0, 0.5, 1.0, -2.5, 3.0, 1e-3, 1e30]))}
    if kind == "bool":
        return {"py": draw(st.booleans())}
    if kind == "complex":
        return {"complex": draw(st.sampled_from([[1.0, 2.0], [0.0, -1.0], [0.5, 0.0]]))}
    return {"py": draw(st.sampled_from([float("nan"), float("inf"), -float("inf"), -0.0]))}


@st.composite
def array_args(draw: Any, like: dict | None = None) -> dict:
    """An array argument: mostly an array (often shaped/typed like `like`), sometimes a scalar
    or an odd value."""
    roll = draw(st.integers(0, 99))
    if roll >= 92:
        return draw(python_scalars())
    if roll >= 88:
        return draw(st.sampled_from(_ODD))
    if like is not None and roll < 48:
        shape = like["array"] if draw(st.booleans()) else _broadcastable(draw, like["array"])
        dtype = like["dtype"] if draw(st.integers(0, 2)) else None
        return draw(arrays(shape=shape, dtype=dtype))
    return draw(arrays())


def _broadcastable(draw: Any, shape: list[int]) -> list[int]:
    out = [d if draw(st.integers(0, 3)) else 1 for d in shape]
    drop = draw(st.integers(0, len(out)))
    return out[drop:]


@st.composite
def axis_values(draw: Any, rank: int) -> dict:
    roll = draw(st.integers(0, 99))
    if roll < 70:
        return {"py": draw(st.integers(-rank - 1, max(rank, 0)))}
    if roll < 80:
        return {"py": None}
    if roll < 92:
        n = draw(st.integers(0, min(rank, 3)))
        axes = draw(st.lists(st.integers(-rank - 1, rank), min_size=n, max_size=n))
        return {"tuple": [{"py": a} for a in axes]}
    return draw(st.sampled_from(_ODD))


@st.composite
def axes_values(draw: Any, rank: int) -> dict:
    roll = draw(st.integers(0, 99))
    if roll < 60:
        perm = draw(st.permutations(list(range(rank))))
        return {"tuple": [{"py": a} for a in perm]}
    if roll < 85:
        n = draw(st.integers(0, rank + 1))
        axes = draw(st.lists(st.integers(-rank - 1, rank), min_size=n, max_size=n))
        return {"tuple": [{"py": a} for a in axes]}
    if roll < 92:
        return {"py": None}
    return draw(st.sampled_from(_ODD))


@st.composite
def dtype_values(draw: Any) -> dict:
    roll = draw(st.integers(0, 99))
    if roll < 15:
        return {"py": None}
    if roll < 90:
        how = draw(st.sampled_from(["scalar_type", "scalar_type", "numpy", "string"]))
        return {"dtype": draw(dtype_names()), "as": how}
    return draw(st.sampled_from([{"py": "foo"}, {"py": 3}, {"object": True}, {"py": "int"}]))


@st.composite
def shape_values(draw: Any, like: dict | None) -> dict:
    roll = draw(st.integers(0, 99))
    if roll < 35 and like is not None:
        dims = list(like["array"])
        if dims and draw(st.booleans()):
            dims = list(reversed(dims))
        return {"tuple": [{"py": d} for d in dims]}
    if roll < 80:
        return {"tuple": [{"py": d} for d in draw(shapes())]}
    if roll < 85:
        return {"py": draw(st.integers(0, 4))}
    if roll < 90:
        return {"tuple": [{"py": -1}, {"py": 2}]}
    return draw(
        st.sampled_from(
            [
                {"bytes": "ab"},
                {"py": "ab"},
                {"tuple": [{"py": 1.5}]},
                {"py": None},
                {"tuple": [{"py": 2**62}, {"py": 4}]},
                {"py": 2**63},
            ]
        )
    )


@st.composite
def count_values(draw: Any) -> dict:
    roll = draw(st.integers(0, 99))
    if roll < 75:
        return {"py": draw(st.integers(-3, 6))}
    if roll < 85:
        return {"py": None}
    return draw(
        st.sampled_from(
            [
                {"py": -(2**63)},
                {"py": 2**63},
                {"py": 1.5},
                {"py": "2"},
                {"py": True},
                {"array": [], "dtype": "int32", "seed": 1, "fill": "normal", "as": "array"},
            ]
        )
    )


@st.composite
def flag_values(draw: Any) -> dict:
    roll = draw(st.integers(0, 99))
    if roll < 92:
        return {"py": draw(st.booleans())}
    return draw(st.sampled_from([{"py": None}, {"py": 2}, {"py": "yes"}]))


@st.composite
def real_values(draw: Any) -> dict:
    roll = draw(st.integers(0, 99))
    if roll < 70:
        return {"py": draw(st.sampled_from([0.0, 1e-5, 0.5, 1.0, 2.0, -1.0, 10.0]))}
    if roll < 80:
        return {"py": None}
    if roll < 90:
        return {"py": draw(st.integers(-2, 5))}
    return draw(st.sampled_from(_ODD))


@st.composite
def choice_values(draw: Any, name: str) -> dict:
    roll = draw(st.integers(0, 99))
    if roll < 85:
        value = draw(st.sampled_from(_CHOICES[name]))
        if name == "precision" and value == "highest" and draw(st.booleans()):
            return {"enum": ["Precision", "HIGHEST"]}
        return {"py": value}
    return draw(st.sampled_from([{"py": "bogus"}, {"py": None}, {"py": 3}]))


@st.composite
def callable_values(draw: Any, name: str) -> dict:
    if name in ("branches", "funclist"):
        n = draw(st.integers(0, 3))
        return {"list": [{"fn": draw(st.sampled_from(_CALLABLE_POOL))} for _ in range(n)]}
    if draw(st.integers(0, 19)) == 0:
        return draw(st.sampled_from(_ODD))
    return {"fn": draw(st.sampled_from(_CALLABLE_POOL))}


# --- calls -------------------------------------------------------------------------------------


def _primary(specs: list[dict]) -> dict | None:
    for spec in specs:
        found = fv.array_specs(spec)
        if found:
            return found[0]
    return None


@st.composite
def param_value(draw: Any, name: str, like: dict | None) -> dict:
    cls = PARAM_CLASS.get(name, ARRAY)
    rank = len(like["array"]) if like is not None else draw(st.integers(0, 3))
    if cls == ARRAY:
        return draw(array_args(like))
    if cls == ARRAYS:
        n = draw(st.integers(0, 4))
        items = [draw(array_args(like)) for _ in range(n)]
        return {"list" if draw(st.booleans()) else "tuple": items}
    if cls == AXIS:
        return draw(axis_values(rank))
    if cls == AXES:
        return draw(axes_values(rank))
    if cls == DTYPE:
        return draw(dtype_values())
    if cls == SHAPE:
        return draw(shape_values(like))
    if cls == COUNT:
        return draw(count_values())
    if cls == FLAG:
        return draw(flag_values())
    if cls == REAL:
        return draw(real_values())
    if cls == CHOICE:
        return draw(choice_values(name))
    if cls == CALLABLE:
        return draw(callable_values(name))
    # NONE: None, now and then an odd value (a bad device, a bad out=)
    return {"py": None} if draw(st.integers(0, 19)) else draw(st.sampled_from(_ODD))


@st.composite
def calls(draw: Any, functions: dict[str, inspect.Signature | None]) -> dict:
    """One call of a drawn function: arguments from its signature, a mode and the x64 flag."""
    name = draw(st.sampled_from(sorted(functions)))
    signature = functions[name]
    args: list[dict] = []
    kwargs: dict[str, dict] = {}
    like: dict | None = None
    params = list(signature.parameters.values()) if signature is not None else []
    for param in params:
        required = param.default is inspect.Parameter.empty
        if param.kind == param.VAR_KEYWORD:
            continue
        if param.kind == param.VAR_POSITIONAL:
            if PARAM_CLASS.get(param.name) == ARRAYS or param.name in ("operands", "args"):
                for _ in range(draw(st.integers(0, 3))):
                    args.append(draw(array_args(like)))
            continue
        if not required and draw(st.integers(0, 99)) >= 35:
            continue
        value = draw(param_value(param.name, like))
        if like is None:
            like = _primary([value])
        if param.kind == param.POSITIONAL_ONLY or (
            param.kind == param.POSITIONAL_OR_KEYWORD and required and not kwargs
        ):
            args.append(value)
        else:
            kwargs[param.name] = value
    mode = draw(st.sampled_from(["eager", "eager", "jit", "jit", "grad", "vmap"]))
    arrays_in = [i for i, a in enumerate(args) if "array" in a and a.get("as") == "array"]
    floats_in = [i for i in arrays_in if args[i]["dtype"] in _REAL_FLOATS]
    batch: list[dict] = []
    if mode == "grad" and not floats_in:
        mode = "jit"
    if mode == "vmap":
        if not arrays_in:
            mode = "jit"
        else:
            size = draw(st.sampled_from([1, 2, 3, 0]))
            batched = [i for i in arrays_in if draw(st.integers(0, 3))] or arrays_in[:1]
            for i in batched:
                spec = dict(args[i], array=[size, *args[i]["array"]], seed=args[i]["seed"] + 1)
                batch.append({"position": i, "spec": spec})
    return {
        "fn": name,
        "mode": mode,
        "x64": draw(st.booleans()),
        "args": args,
        "kwargs": kwargs,
        "grad_arg": floats_in[0] if mode == "grad" else None,
        "batch": batch,
    }


_REAL_FLOATS = ("float16", "bfloat16", "float32", "float64")
