"""Rules for stablax.lax's own functions: the checks, dtypes and broadcasting it applies where
JAX's lax does not (or differently).
"""

from __future__ import annotations

import re

from tests.reliability.known_differences._shared import Rule, _error, _given, _value_difference

_SAME_DTYPES = re.compile(r"requires arguments to have the same dtypes, got|^reduce operand dtypes")


def _lax_python_scalars(call, ours, theirs, difference) -> bool:
    """In stablax.lax's binary ops (and as lax.reduce's init value) a Python scalar takes the
    dtype of an array operand of its kind (lax._elementwise_common._prepare), and one out of
    that dtype's range raises OverflowError as in jnp; JAX 0.10.2 gives it the default dtype
    and raises TypeError whenever that differs from the other operand's (OverflowError where it
    does not fit the default dtype: 2**63 against a uint64 array). A grad of lax.betainc in a
    or b with such a scalar meets betainc's ValueError (no derivative in a or b, as JAX's)."""
    has_scalar = any(
        ("py" in a and isinstance(a["py"], (int, float)))
        or "complex" in a
        or ("array" in a and a.get("as") == "list" and a["array"] == [])  # a 0-d .tolist()
        for a in call["args"]
    )
    # jnp.apply_over_axes(lax.add, a, axes) adds the Python int axis to `a`.
    lax_callable = call["fn"] == "jnp.apply_over_axes" and call["args"][0] == {"fn": "add"}
    if not ((call["fn"].startswith("lax.") and has_scalar or lax_callable) and _error(theirs)):
        return False
    jax_overflow = theirs["type"] == "OverflowError" and "too large to convert" in theirs["message"]
    if not (_SAME_DTYPES.search(theirs["message"]) or jax_overflow):
        return False
    # Under grad, stablax's betainc of the adopted scalar refuses a derivative in a or b.
    betainc_grad = call["fn"] == "lax.betainc" and call["mode"] == "grad"
    return (
        ours["kind"] == "value"
        or (
            ours["type"] == "OverflowError"
            and bool(re.search(r"out of bounds for|too large to convert to", ours["message"]))
        )
        or (
            betainc_grad
            and ours["type"] == "ValueError"
            and ours["message"] == "Betainc gradient with respect to a and b not supported."
        )
    )


def _integer_select_predicate(call, ours, theirs, difference) -> bool:
    """lax.select documents a boolean predicate and stablax enforces it (TypeError); JAX 0.10.2
    passes an integer one on to select_n, where it is a case index (out-of-range values pick
    an undefined case)."""
    return (
        call["fn"] == "lax.select"
        and ours["kind"] == "error"
        and "predicate must be boolean" in ours["message"]
    )


def _single_shape_unchecked(call, ours, theirs, difference) -> bool:
    """lax.broadcast_shapes with one argument: JAX returns it unchecked (even an int);
    stablax checks that it is a shape (TypeError)."""
    return (
        call["fn"] == "lax.broadcast_shapes"
        and len(call["args"]) == 1
        and _error(ours)
        and "must be a sequence of integers" in ours["message"]
        and theirs["kind"] == "value"
    )


def _empty_default_dtype(call, ours, theirs, difference) -> bool:
    """lax.empty with x64 off: JAX returns a 64-bit array (its dtype argument is not
    canonicalized, so None gives float64, uint64 stays uint64 and complex128 complex128);
    stablax gives the canonical 32-bit dtype, as every other constructor does in that mode."""
    return (
        call["fn"] == "lax.empty"
        and not call["x64"]
        and difference[0] == "diverge-dtype"
        and bool(re.search(r"vs JAX (?:\w+64|complex128)$", difference[1]))
    )


def _complex_clamp(call, ours, theirs, difference) -> bool:
    """lax.clamp of complex numbers: stablax rejects them (TypeError), as jnp.clip does in JAX
    (complex numbers have no order); JAX's lax.clamp returns what XLA gives, which follows
    neither NumPy's lexicographic order (clamping 2+3j to [2-1j, 2+2j] gives 2-1j, NumPy 2+2j)
    nor any other."""
    return (
        call["fn"] == "lax.clamp"
        and _error(ours)
        and bool(re.match(r"lax\.clamp does not accept dtype complex", ours["message"]))
    )


def _negative_map_batch(call, ours, theirs, difference) -> bool:
    """lax.map with a negative batch_size: stablax raises ValueError naming it; JAX reshapes the
    input to (-1, batch_size, ...) and reshape's TypeError (or a wrong value) comes out."""
    return (
        call["fn"] == "lax.map"
        and _error(ours)
        and ours["message"].startswith("lax.map: batch_size must be non-negative, got -")
    )


def _reduce_non_scalar_init(call, ours, theirs, difference) -> bool:
    """lax.reduce with a non-scalar init value: stablax raises its ValueError in every mode, as
    JAX does eagerly ("reduce found non-scalar initial value"); under grad JAX's JVP rule skips
    that check and returns a value, and under vmap its batching rule has no case for a batched
    init value (a bare NotImplementedError)."""
    return (
        call["fn"] == "lax.reduce"
        and call["mode"] in ("grad", "vmap")
        and _error(ours)
        and ours["message"].startswith("lax.reduce: init_values must be scalars, got shape")
    )


def _unsorted_take_axes(call, ours, theirs, difference) -> bool:
    """lax.index_take with axes not in increasing order: stablax takes along them in the order
    given (its documented `src[idxs[0], idxs[1], ...]` along `axes`); JAX passes them unsorted
    to gather as collapsed_slice_dims, which must be sorted (TypeError)."""
    return (
        call["fn"] == "lax.index_take"
        and ours["kind"] == "value"
        and _error(theirs)
        and "collapsed_slice_dims in gather op must be sorted" in theirs["message"]
    )


def _select_broadcasts_cases(call, ours, theirs, difference) -> bool:
    """lax.select_n broadcasts rank-0 and size-1 cases as stablax's other lax elementwise ops do
    (a Python scalar case adopting an array case's dtype, OverflowError when it does not fit;
    stablax's own compositions rely on it); JAX's select_n requires equal case shapes."""
    return (
        call["fn"] in ("lax.select_n", "lax.select")
        and (ours["kind"] == "value" or ours["type"] == "OverflowError")
        and _error(theirs)
        and theirs["message"].startswith("select cases must have the same shapes")
    )


def _out_sharding_unsupported(call, ours, theirs, difference) -> bool:
    """stablax arrays live on one device: any out_sharding (or axis_index_groups of a
    collective) raises NotImplementedError; JAX first rejects a value that is no
    NamedSharding or PartitionSpec (TypeError), or groups that do not cover the axis
    (ValueError)."""
    return (
        _error(ours)
        and ours["type"] == "NotImplementedError"
        and bool(
            re.search(
                r"out_sharding is not supported|axis_index_groups not supported", ours["message"]
            )
        )
        and _error(theirs)
        and bool(
            re.search(r"`out_sharding` argument of|axis_index_groups must cover", theirs["message"])
        )
    )


def _integer_axis_name(call, ours, theirs, difference) -> bool:
    """A collective outside vmap with an axis name that is no str (an int, a bool, None, any
    object): stablax raises NameError (no enclosing vmap binds it), as JAX does for a str name;
    JAX first checks the other arguments (axis out of bounds, an operand that is no array), or
    maps over an empty pytree (x None) without looking at the name."""
    no_leaves = bool(call["args"]) and call["args"][0].get("py", 0) is None
    args = call["args"]
    name = call["kwargs"].get("axis_name", args[1] if len(args) > 1 else {})
    return (
        call["fn"].startswith("lax.")
        and _error(ours)
        and ours["type"] == "NameError"
        and ours["message"].startswith("unbound axis name: ")
        and not isinstance(name.get("py"), str)
        and (_error(theirs) or (no_leaves and theirs["kind"] == "value"))
    )


def _conv_dilation_length(call, ours, theirs, difference) -> bool:
    """A convolution's rhs_dilation (or lhs_dilation) with the wrong number of entries: stablax
    rejects it with the strides (ValueError naming them); JAX leaves it to XLA's verifier and
    first raises about another argument (the preferred_element_type, say)."""
    return (
        call["fn"] in ("lax.conv_general_dilated", "lax.conv_with_general_padding", "lax.conv")
        and _error(ours)
        and ours["type"] == "ValueError"
        and bool(
            re.search(r"dilation \S.* must have one entry per spatial dimension", ours["message"])
        )
        and _error(theirs)
    )


def _bool_add_mul(call, ours, theirs, difference) -> bool:
    """lax.add and lax.mul of bools: stablax computes them (XLA's add and multiply of pred are
    OR and AND; the op-record table tests both), and so do scatter_add/scatter_mul (which
    then check their other arguments); JAX's dtype rules accept numbers only."""
    return (
        call["fn"] in ("lax.add", "lax.mul", "lax.scatter_add", "lax.scatter_mul")
        and _error(theirs)
        and bool(re.match(r"(?:add|mul) does not accept dtype bool", theirs["message"]))
    )


def _stateful_rng_values(call, ours, theirs, difference) -> bool:
    """lax.rng_uniform draws from the backend's stateful generator: its values change from call
    to call in either library, so only dtypes and shapes compare."""
    return call["fn"] == "lax.rng_uniform" and _value_difference(difference)


def _lenient_jax_slice(call, ours, theirs, difference) -> bool:
    """lax.slice with indices past the operand's dimensions or with too few of them: stablax
    raises TypeError (XLA's slice needs 0 <= start <= limit <= size, one per dimension);
    JAX 0.10.2's eager path clamps or truncates them and returns a (possibly empty) slice."""
    return (
        call["fn"] == "lax.slice"
        and _error(ours)
        and ours["type"] == "TypeError"
        and bool(
            re.search(r"invalid slice|must each have one entry per dimension", ours["message"])
        )
        and theirs["kind"] == "value"
    )


def _dce_sink_flag(call, ours, theirs, difference) -> bool:
    """lax.dce_sink with a truthy prevent_mlir_dce: stablax refuses it (NotImplementedError; it
    has no side-effecting call to keep the computation alive, and a flag given as an array of
    several elements, or none, has no truth value); JAX accepts any value, and eagerly does
    nothing."""
    return (
        call["fn"] == "lax.dce_sink"
        and _error(ours)
        and bool(
            re.search(
                r"prevent_mlir_dce=True is not supported"
                r"|truth value of an array with more than one element is ambiguous"
                r"|truth value of an empty array is ambiguous",
                ours["message"],
            )
        )
        and theirs["kind"] == "value"
    )


def _index_take_clamps(call, ours, theirs, difference) -> bool:
    """lax.index_take of out-of-range indices: stablax clamps them (XLA's gather), JAX wraps
    them modulo the axis size. Wrapping needs an integer remainder, whose zero-divisor guard
    is emitted again each time a rewrite re-emits the function (the re-emission must be exact);
    left for a remainder that knows a constant divisor."""
    return call["fn"] == "lax.index_take" and _value_difference(difference)


def _broadcast_dimensions_order(call, ours, theirs, difference) -> bool:
    """lax.broadcast_in_dim with broadcast_dimensions that are not strictly increasing, or
    empty for an operand of the target's rank: stablax raises TypeError; JAX 0.10.2 emits a
    transposing broadcast (its transpose rule ignores the permutation, so gradients are wrong)
    and returns the operand untouched, dimensions unread, when the shapes are equal."""
    return (
        call["fn"] == "lax.broadcast_in_dim"
        and _error(ours)
        and bool(re.search(r"must be strictly increasing|must have one entry per", ours["message"]))
        and theirs["kind"] == "value"
    )


def _array_as_shape(call, ours, theirs, difference) -> bool:
    """lax.broadcast_shapes of shapes given as arrays: JAX returns the first argument as it is
    when all are one shape or there is one (an Array, or under vmap a tracer); stablax reads
    each as a shape, a tuple of ints, and refuses an array that is not 1-D."""
    return (
        call["fn"] == "lax.broadcast_shapes"
        and any("array" in a for a in call["args"])
        and (difference[0] == "diverge-structure" or _error(ours))
    )


def _padtype_to_pads_checks(call, ours, theirs, difference) -> bool:
    """lax.padtype_to_pads with in_shape, window_shape and window_strides of different lengths,
    or a stride that is not positive: stablax raises ValueError; JAX 0.10.2 broadcasts the
    lengths through NumPy and divides by the stride, returning pads for whatever that gives (or
    NumPy's OverflowError when a size does not fit its int32 arithmetic)."""
    jax_overflow = _error(theirs) and theirs["type"] == "OverflowError"
    return (
        call["fn"] == "lax.padtype_to_pads"
        and _error(ours)
        and ours["type"] == "ValueError"
        and bool(re.search(r"must have the same length|must be positive", ours["message"]))
        and (theirs["kind"] == "value" or jax_overflow)
    )


def _split_list_operand(call, ours, theirs, difference) -> bool:
    """lax.split of a list operand: stablax converts it with asarray's rules, as every other
    stablax lax function does (see list-input); JAX 0.10.2's split calls its asarray first,
    which refuses a list (TypeError "expected ArrayLike")."""
    return (
        call["fn"] == "lax.split"
        and any(a.get("as") == "list" for a in call["args"])
        and ours["kind"] == "value"
        and _error(theirs)
        and theirs["type"] == "TypeError"
        and theirs["message"].startswith("asarray: expected ArrayLike, got ")
    )


def _index_in_dim_negative_static_index(call, ours, theirs, difference) -> bool:
    """dynamic_(update_)index_in_dim with a negative Python int index and a falsy
    allow_negative_indices (False, None): JAX's jit wrapper traces the index, so it misses its
    own static check and XLA silently clamps -1 to 0 (the first element, not the last);
    stablax raises the ValueError that JAX's dynamic_slice_in_dim raises for the same call."""
    return (
        call["fn"] in ("lax.dynamic_index_in_dim", "lax.dynamic_update_index_in_dim")
        and not call["kwargs"].get("allow_negative_indices", {}).get("py", True)
        and _error(ours)
        and ours["type"] == "ValueError"
        and "allow_negative_indices is False" in ours["message"]
        and theirs["kind"] == "value"
    )


def _bool_add_mul_reduce(call, ours, theirs, difference) -> bool:
    """lax.reduce of bools with lax.add or lax.mul: as stablax's lax.add and lax.mul compute on
    bools (the bool-add-mul rule), so does a reduction with them (OR and AND), and a non-scalar
    init value is then what is wrong (stablax's ValueError); JAX refuses bool in reduce_sum or
    reduce_prod (an identity init) or in the computation it traces (any other init)."""
    computation = call["args"][2] if len(call["args"]) > 2 else None
    return (
        call["fn"] == "lax.reduce"
        and computation in ({"fn": "add"}, {"fn": "mul"})
        and _error(theirs)
        and bool(
            re.match(
                r"(?:reduce_sum|reduce_prod|add|mul) does not accept dtype bool", theirs["message"]
            )
        )
        and (
            ours["kind"] == "value"
            or ours["message"].startswith("lax.reduce: init_values must be scalars, got shape")
        )
    )


def _scan_forwarded_carry_object(call, ours, theirs, difference) -> bool:
    """lax.scan run eagerly, whose body returns a Python scalar carry unchanged: JAX 0.10.2
    moves a forwarded carry out of the loop and hands back the init object itself (True, 1.0);
    stablax returns it as a rank-0 Array, as JAX itself does under jit, with the same value."""
    if call["fn"] != "lax.scan" or call["mode"] != "eager" or difference[0] != "diverge-structure":
        return False
    init = _given(call, 1, "init")
    if not (isinstance(init, dict) and "py" in init) or isinstance(init["py"], (str, complex)):
        return False
    if not (ours["value"].get("seq") and theirs["value"].get("seq")):
        return False
    mine, jax_carry = ours["value"]["seq"][0], theirs["value"]["seq"][0]
    values = mine.get("values") or {}
    flat = values.get("ints", values.get("flat"))
    return (
        jax_carry == {"scalar": init["py"]}
        and mine.get("shape") == []
        and flat is not None
        and flat[0] == init["py"]
        and ours["value"]["seq"][1:] == theirs["value"]["seq"][1:]
    )


def _scan_length_beyond_int32(call, ours, theirs, difference) -> bool:
    """A scan (or a fori_loop with static bounds) of more than 2**31 - 1 steps: stablax counts
    steps in int32 and refuses it (OverflowError naming lax.scan). JAX 0.10.2 under x64 counts
    in int64; such a loop cannot run to the end in a test, and the one the fuzz met,
    fori_loop(-2**63, -2, ...), came back at once with the init value: XLA ran no step of the
    2**63 - 2 its loop compares against."""
    return (
        call["fn"] in ("lax.fori_loop", "lax.scan")
        and call["x64"]
        and _error(ours)
        and ours["type"] == "OverflowError"
        and "steps do not fit its int32 step counter" in ours["message"]
        and theirs["kind"] == "value"
    )


def _platform_dependent_operands_first(call, ours, theirs, difference) -> bool:
    """lax.platform_dependent with no branch for the platform and operands that are no arrays
    (a str, an object): both refuse. stablax checks the operands first (TypeError), as JAX does
    under jit; elsewhere JAX reports the missing branch when it lowers (NotImplementedError)."""
    return (
        call["fn"] == "lax.platform_dependent"
        and _error(ours)
        and "is not a valid stablax array type" in ours["message"]
        and _error(theirs)
        and "platform_index" in theirs["message"]
    )


def _batched_bool_start_index(call, ours, theirs, difference) -> bool:
    """dynamic_slice and friends with a boolean start index under vmap: stablax refuses it as
    JAX does without vmap (TypeError: start indices must be integers); JAX's batching turns the
    slice into a gather first and refuses it there (ValueError)."""
    return (
        call["fn"].startswith(("lax.dynamic_slice", "lax.dynamic_index", "lax.dynamic_update"))
        and bool(call["batch"])
        and _error(ours)
        and "start indices must be integer scalars" in ours["message"]
        and _error(theirs)
        and theirs["message"].startswith("indices must have an integer type")
    )


def _index_in_dim_negative_of_empty(call, ours, theirs, difference) -> bool:
    """lax.dynamic_index_in_dim along an empty axis with a negative static index and
    allow_negative_indices=False: both refuse; stablax names the negative index, as JAX's own
    dynamic_slice and dynamic_slice_in_dim do for the same call, where JAX's index path first
    finds the size-1 slice larger than the empty axis (TypeError)."""
    return (
        call["fn"] == "lax.dynamic_index_in_dim"
        and _error(ours)
        and "and allow_negative_indices is False" in ours["message"]
        and _error(theirs)
        and "slice_sizes must be less than or equal to operand shape" in theirs["message"]
    )


def _top_k_sub_byte(call, ours, theirs, difference) -> bool:
    """lax.top_k of 2- and 4-bit types (int4, uint4, int2, uint2, float4_e2m1fn): JAX hands
    them to XLA, whose CPU top_k decomposer fails (a JaxRuntimeError from the HLO verifier);
    stablax ranks them in a byte-wide type that holds every value, and narrows back."""
    return (
        call["fn"] == "lax.top_k"
        and ours["kind"] == "value"
        and _error(theirs)
        and "custom element sizes on non-sub-byte types" in theirs["message"]
    )


def _fori_loop_bound_overflow(call, ours, theirs, difference) -> bool:
    """lax.fori_loop with a Python int bound outside the index dtype (2**63 under x64): stablax
    refuses the bound first (OverflowError); JAX traces the body before it converts the bounds,
    so a body's own error comes first there, and under x64 the bound wraps silently."""
    return (
        call["fn"] == "lax.fori_loop"
        and _error(ours)
        and ours["type"] == "OverflowError"
        and "lax.fori_loop: Python int" in ours["message"]
        and (_error(theirs) or call["x64"])
    )


def _integer_pow_float_exponent(call, ours, theirs, difference) -> bool:
    """lax.integer_pow with a float exponent equal to -1, 0, 1, 2 or 3: stablax raises
    TypeError (y is a static integer, as JAX documents); JAX 0.10.2 never checks y's type and
    its lowering special-cases those values, so they compute (3.5, or 4.0 through its
    repeated squaring's y & 1, raise TypeError in JAX too)."""
    y = _given(call, 1, "y")
    return (
        call["fn"] == "lax.integer_pow"
        and isinstance(y, dict)
        and isinstance(y.get("py"), float)
        and y["py"] in (-1.0, 0.0, 1.0, 2.0, 3.0)
        and _error(ours)
        and ours["type"] == "TypeError"
        and "lax.integer_pow: y must be an integer" in ours["message"]
        and theirs["kind"] == "value"
    )


def _betainc_float8_precision(call, ours, theirs, difference) -> bool:
    """lax.betainc of a float8 dtype: stablax computes it in float32, as JAX does float16 and
    bfloat16; JAX 0.10.2 upcasts only those two and runs its continued fraction in float8,
    which gives NaN where the answer is finite (I_0(a, b) = 0, I_1(1, 1) = 1)."""
    return (
        call["fn"] == "lax.betainc"
        and _value_difference(difference)
        and bool(
            re.search(
                r"^(?:\[\d+\])?: float8_\w+ element \d+: -?[\d.]+(?:e[-+]?\d+)? vs JAX nan$",
                difference[1],
            )
        )
    )


def _full_like_dtype_value(call, ours, theirs, difference) -> bool:
    """lax.full_like with a Python number as dtype (dtype=3): stablax refuses it as a dtype, as
    NumPy, jnp and JAX's own lax.full do; JAX 0.10.2's full_like alone reads the number's type
    (an int as int32, a float as float32) through its value-accepting dtype lookup."""
    dtype = call["kwargs"].get("dtype")
    return (
        call["fn"] == "lax.full_like"
        and isinstance(dtype, dict)
        and type(dtype.get("py")) in (int, float, complex, bool)
        and _error(ours)
        and ours["type"] == "TypeError"
        and "as a dtype" in ours["message"]
        and theirs["kind"] == "value"
    )


def _reduce_window_monoid_non_scalar_init(call, ours, theirs, difference) -> bool:
    """lax.reduce_window with a monoid (lax.add, ...) and a non-scalar init value: stablax
    takes the monoid's path and checks the window first (TypeError); JAX 0.10.2 takes its
    generic path for any init that is not the monoid's scalar identity and fails on the traced
    computation's output structure first (ValueError)."""
    return (
        call["fn"] == "lax.reduce_window"
        and _error(ours)
        and ours["type"] == "TypeError"
        and "must have one entry per dimension" in ours["message"]
        and _error(theirs)
        and "reduce_window output must have the same tree structure" in theirs["message"]
    )


def _reduce_jax_index_error(call, ours, theirs, difference) -> bool:
    """lax.reduce with dimensions out of the operand's range: JAX 0.10.2 indexes the shape
    with them inside its rules (NumPy's IndexError "index 6 is out of bounds for axis 0"),
    where stablax reports the first of its checks that fails (the computation, the init
    values or the dimensions), in JAX's order."""
    return (
        call["fn"] == "lax.reduce"
        and _error(ours)
        and ours["type"] in ("TypeError", "ValueError")
        and _error(theirs)
        and theirs["type"] == "IndexError"
        and bool(re.search(r"index -?\d+ is out of bounds for axis \d+", theirs["message"]))
    )


RULES: list[Rule] = [
    ("reduce-jax-index-error", _reduce_jax_index_error, _reduce_jax_index_error.__doc__),
    (
        "reduce-window-monoid-non-scalar-init",
        _reduce_window_monoid_non_scalar_init,
        _reduce_window_monoid_non_scalar_init.__doc__,
    ),
    ("full-like-dtype-value", _full_like_dtype_value, _full_like_dtype_value.__doc__),
    ("betainc-float8-precision", _betainc_float8_precision, _betainc_float8_precision.__doc__),
    ("empty-default-dtype", _empty_default_dtype, _empty_default_dtype.__doc__),
    ("single-shape-unchecked", _single_shape_unchecked, _single_shape_unchecked.__doc__),
    ("lax-python-scalars", _lax_python_scalars, _lax_python_scalars.__doc__),
    ("integer-select-predicate", _integer_select_predicate, _integer_select_predicate.__doc__),
    ("complex-clamp", _complex_clamp, _complex_clamp.__doc__),
    ("negative-map-batch", _negative_map_batch, _negative_map_batch.__doc__),
    ("reduce-non-scalar-init", _reduce_non_scalar_init, _reduce_non_scalar_init.__doc__),
    ("unsorted-take-axes", _unsorted_take_axes, _unsorted_take_axes.__doc__),
    ("select-broadcasts-cases", _select_broadcasts_cases, _select_broadcasts_cases.__doc__),
    ("out-sharding-unsupported", _out_sharding_unsupported, _out_sharding_unsupported.__doc__),
    ("integer-axis-name", _integer_axis_name, _integer_axis_name.__doc__),
    ("conv-dilation-length", _conv_dilation_length, _conv_dilation_length.__doc__),
    ("bool-add-mul", _bool_add_mul, _bool_add_mul.__doc__),
    ("stateful-rng-values", _stateful_rng_values, _stateful_rng_values.__doc__),
    ("lenient-jax-slice", _lenient_jax_slice, _lenient_jax_slice.__doc__),
    ("dce-sink-flag", _dce_sink_flag, _dce_sink_flag.__doc__),
    ("index-take-clamps", _index_take_clamps, _index_take_clamps.__doc__),
    (
        "broadcast-dimensions-order",
        _broadcast_dimensions_order,
        _broadcast_dimensions_order.__doc__,
    ),
    ("array-as-shape", _array_as_shape, _array_as_shape.__doc__),
    ("padtype-to-pads-checks", _padtype_to_pads_checks, _padtype_to_pads_checks.__doc__),
    ("split-list-operand", _split_list_operand, _split_list_operand.__doc__),
    (
        "index-in-dim-negative-static-index",
        _index_in_dim_negative_static_index,
        _index_in_dim_negative_static_index.__doc__,
    ),
    ("bool-add-mul-reduce", _bool_add_mul_reduce, _bool_add_mul_reduce.__doc__),
    (
        "scan-forwarded-carry-object",
        _scan_forwarded_carry_object,
        _scan_forwarded_carry_object.__doc__,
    ),
    ("scan-length-beyond-int32", _scan_length_beyond_int32, _scan_length_beyond_int32.__doc__),
    ("top-k-sub-byte", _top_k_sub_byte, _top_k_sub_byte.__doc__),
    (
        "platform-dependent-operands-first",
        _platform_dependent_operands_first,
        _platform_dependent_operands_first.__doc__,
    ),
    ("batched-bool-start-index", _batched_bool_start_index, _batched_bool_start_index.__doc__),
    (
        "index-in-dim-negative-of-empty",
        _index_in_dim_negative_of_empty,
        _index_in_dim_negative_of_empty.__doc__,
    ),
    (
        "fori-loop-bound-overflow",
        _fori_loop_bound_overflow,
        _fori_loop_bound_overflow.__doc__,
    ),
    (
        "integer-pow-float-exponent",
        _integer_pow_float_exponent,
        _integer_pow_float_exponent.__doc__,
    ),
]
