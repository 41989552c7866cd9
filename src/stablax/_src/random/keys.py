"""PRNG keys: raw `uint32[2]` keys (`PRNGKey`), typed key arrays (`key`), and the key operations.

A typed key array is a pytree node over its `uint32[..., 2]` data, so `jit`, `vmap` and `grad`
see ordinary integer arrays (non-differentiable) and rebuild the keys on the other side.
"""

from __future__ import annotations

import operator
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from stablax._src import basearray, core, dtypes, lax
from stablax._src.array import Array, from_host
from stablax._src.config import config
from stablax._src.jit import jit
from stablax._src.lax._argcheck import axes_arg
from stablax._src.random import threefry
from stablax._src.tree_util import register_pytree_node

IMPL_NAME = "threefry2x32"


class KeyDtype(dtypes.ExtendedDType):
    """The dtype of typed key arrays, `key<fry>`; `itemsize` is that of the two uint32 words."""

    name = "key<fry>"
    type = dtypes.prng_key
    itemsize = 8
    impl = IMPL_NAME

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__

    def __eq__(self, other: Any) -> bool:
        return type(other) is KeyDtype or other == self.name

    def __hash__(self) -> int:
        return hash(self.name)


KEY_DTYPE = KeyDtype()


class PRNGKeyArray:
    """An array of threefry keys: shape excludes the trailing 2 of the underlying uint32 data."""

    __slots__ = ("_base",)
    __array_priority__ = 100
    dtype = KEY_DTYPE

    def __init__(self, base: Any) -> None:
        self._base = base  # uint32[..., 2] (an Array or a Tracer); unchecked, see wrap_key_data

    shape = property(lambda self: tuple(self._base.shape[:-1]))
    ndim = property(lambda self: len(self._base.shape) - 1)
    size = property(lambda self: int(np.prod(self._base.shape[:-1], dtype=np.int64)))
    itemsize = KEY_DTYPE.itemsize

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of unsized object")
        return self._base.shape[0]

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d key array")
        return (PRNGKeyArray(self._base[i]) for i in range(self._base.shape[0]))

    def __getitem__(self, index: Any) -> PRNGKeyArray:
        index = index if isinstance(index, tuple) else (index,)
        return PRNGKeyArray(self._base[(*index, slice(None))])

    def reshape(self, *shape: Any, order: str = "C") -> PRNGKeyArray:
        shape = shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape
        shape = tuple(operator.index(d) for d in shape)
        if -1 in shape:
            known = int(np.prod([d for d in shape if d != -1], dtype=np.int64))
            shape = tuple(self.size // max(known, 1) if d == -1 else d for d in shape)
        return PRNGKeyArray(self._base.reshape((*shape, 2), order=order))

    def ravel(self) -> PRNGKeyArray:
        return self.reshape(-1)

    flatten = ravel

    def squeeze(self, axis: Any = None) -> PRNGKeyArray:
        if axis is None:
            axis = tuple(i for i, d in enumerate(self.shape) if d == 1)
        return PRNGKeyArray(
            lax.squeeze(self._base, axes_arg(axis, self.ndim, "PRNGKeyArray.squeeze"))
        )

    def transpose(self, *axes: Any) -> PRNGKeyArray:
        axes = axes[0] if len(axes) == 1 and not isinstance(axes[0], int) else axes
        order = (
            tuple(range(self.ndim))[::-1]
            if not axes
            else axes_arg(axes, self.ndim, "PRNGKeyArray.transpose")
        )
        return PRNGKeyArray(lax.transpose(self._base, (*order, self.ndim)))

    T = property(lambda self: self.transpose())

    def __eq__(self, other: Any) -> Any:
        if not isinstance(other, PRNGKeyArray):
            return NotImplemented
        return lax.reduce_and(lax.eq(self._base, other._base), (self.ndim,))

    def __ne__(self, other: Any) -> Any:
        if not isinstance(other, PRNGKeyArray):
            return NotImplemented
        return lax.reduce_or(lax.ne(self._base, other._base), (self.ndim,))

    __hash__ = None  # type: ignore[assignment]

    def __bool__(self) -> bool:
        raise TypeError("key array cannot be converted to boolean.")

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        raise TypeError(
            "stablax array with PRNGKey dtype cannot be converted to a NumPy array. Use "
            "stablax.random.key_data(arr) to extract the underlying integer array."
        )

    def block_until_ready(self) -> PRNGKeyArray:
        self._base.block_until_ready()
        return self

    def copy(self) -> PRNGKeyArray:
        return PRNGKeyArray(self._base)

    def __repr__(self) -> str:
        if isinstance(self._base, core.Tracer):
            return f"Traced<{self.dtype.name}{list(self.shape)}>"
        return f"Array({self.shape}, dtype={self.dtype.name}) overlaying:\n{self._base}"


register_pytree_node(PRNGKeyArray, lambda k: ((k._base,), None), lambda _, c: PRNGKeyArray(*c))
basearray.Array.register(PRNGKeyArray)  # typed key arrays are `stablax.Array`s, as in JAX


# --- taking keys apart and putting them together ---------------------------------------------


def _is_array(x: Any) -> bool:
    return isinstance(x, (Array, core.Tracer, np.ndarray, np.generic)) or (
        hasattr(x, "__jax_array__")
    )


def check_key(name: str, key: Any, *, allow_batched: bool = False) -> tuple[Any, bool]:
    """The raw `uint32[..., 2]` data of a typed or raw key, and whether it was typed.

    Raises the errors JAX raises for malformed raw keys and for key arrays where one key is due.
    """
    if isinstance(key, PRNGKeyArray):
        data, typed = key._base, True
    elif _is_array(key) or isinstance(key, (list, tuple, int)):
        data, typed = _check_key_data(name, key), False
        if config.jax_legacy_prng_key != "allow":
            _legacy_key_used()
    else:
        raise TypeError(f"random.{name}: unexpected PRNG key type {type(key).__name__}")
    if not allow_batched and len(data.shape) > 1:
        raise ValueError(
            f"random.{name} accepts a single key, but was given a key array of shape "
            f"{tuple(data.shape[:-1])} != (). Use stablax.vmap for batching."
        )
    return data, typed


def _legacy_key_used() -> None:
    # jax_legacy_prng_key: "warn" or "error" when a raw uint32 key reaches a random function.
    message = (
        "Legacy uint32 key array passed as key to jax.random function. Please create keys using "
        "jax.random.key(). If use of a raw key array was intended, set "
        'jax_legacy_prng_key="allow".'
    )
    if config.jax_legacy_prng_key == "error":
        raise ValueError(message)
    warnings.warn(message, stacklevel=4)


def _check_key_data(name: str, data: Any) -> Any:
    if not isinstance(data, (Array, core.Tracer)):
        data = from_host(np.asarray(data))
    if len(data.shape) < 1 or data.shape[-1] != 2:
        raise TypeError(
            f"random.{name}: invalid PRNG key data: expected key_data.shape to end with (2,); "
            f"got shape={tuple(data.shape)}. Make keys with random.PRNGKey(seed) or "
            "random.key(seed)."
        )
    if data.dtype != np.uint32:
        raise TypeError(
            f"random.{name}: invalid PRNG key data: expected key_data.dtype = uint32; got "
            f"dtype={np.dtype(data.dtype).name}. Make keys with random.PRNGKey(seed) or "
            "random.key(seed)."
        )
    return data


def as_typed(data: Any, typed: bool) -> Any:
    """Returns new key data in the caller's form: typed if the input key was typed, raw if not."""
    return PRNGKeyArray(data) if typed else data


def _seed_data(name: str, seed: Any) -> Any:
    if isinstance(seed, PRNGKeyArray):
        raise TypeError(f"random.{name} accepts a scalar seed, but was given a PRNG key.")
    if np.ndim(seed):
        raise TypeError(
            f"random.{name} accepts a scalar seed, but was given an array of shape "
            f"{np.shape(seed)} != (). Use stablax.vmap for batching"
        )
    if type(seed) is int:
        seed = np.int64(seed)  # wraps to int32 with x64 off, as JAX does
    offset = config.jax_random_seed_offset
    if offset:
        seed = seed + offset
    return _seed(seed)


_seed = jit(threefry.seed)


def _resolve_impl(impl: Any) -> None:
    if impl is None or impl == IMPL_NAME or isinstance(impl, KeyDtype):
        return
    raise ValueError(
        f'unrecognized PRNG implementation "{impl}". Did you mean one of: '
        f'"{IMPL_NAME}"? (stablax implements threefry2x32 only)'
    )


def key(seed: Any, *, impl: Any = None, dtype: Any = None) -> PRNGKeyArray:
    """A typed PRNG key (dtype `key<fry>`, shape ()) from an integer seed.

    Args:
      seed: a 32- or 64-bit integer scalar.
      impl, dtype: the implementation, "threefry2x32" (the only one stablax has) or None.

    Returns:
      A scalar key array for the `random` functions, `split` and `fold_in`.
    """
    if impl is not None and dtype is not None:
        raise ValueError("Cannot specify both `impl` and `dtype` arguments to random.key")
    _resolve_impl(impl if dtype is None else dtype)
    return PRNGKeyArray(_seed_data("key", seed))


def PRNGKey(seed: Any, *, impl: Any = None) -> Any:
    """A raw (legacy) PRNG key, a `uint32[2]` array, from an integer seed.

    Args:
      seed: a 32- or 64-bit integer scalar; the key is its high and low 32-bit words.
      impl: "threefry2x32" or None.

    Returns:
      A uint32 array of shape (2,).
    """
    _resolve_impl(impl)
    return _seed_data("PRNGKey", seed)


def _split_shape(num: Any) -> tuple[int, ...]:
    if isinstance(num, Sequence):
        return tuple(operator.index(n) for n in num)
    return (operator.index(num),)


split_data = jit(threefry.split, static_argnums=1)
_fold_in_data = jit(threefry.fold_in)


def split(key: Any, num: int | Sequence[int] = 2) -> Any:
    """Splits a key into `num` new keys (or an array of keys of shape `num`).

    Returns:
      Keys of shape (*num,): typed if `key` was typed, else `uint32[*num, 2]`.
    """
    data, typed = check_key("split", key)
    return as_typed(split_data(data, _split_shape(num)), typed)


def fold_in(key: Any, data: Any) -> Any:
    """A new key from `key` and a 32-bit integer, e.g. a step counter.

    Args:
      key: a single key.
      data: an integer scalar, taken modulo 2**32 (Python ints must lie in [0, 2**32)).
    """
    raw, typed = check_key("fold_in", key)
    if np.ndim(data):
        raise TypeError(
            "random.fold_in accepts a scalar, but was given an array of shape "
            f"{np.shape(data)} != (). Use stablax.vmap for batching."
        )
    if type(data) is int and not 0 <= data < 2**32:
        raise OverflowError(f"Python integer {data} out of bounds for uint32")
    if not isinstance(data, (Array, core.Tracer)):
        data = from_host(np.asarray(data).astype(np.uint32))
    return as_typed(_fold_in_data(raw, lax.convert_element_type(data, np.uint32)), typed)


def clone(key: Any) -> Any:
    """The same key (JAX's key-reuse checker treats it as a fresh one; stablax has no checker)."""
    return key


def key_data(keys: Any) -> Any:
    """The `uint32[..., 2]` data underneath a (typed or raw) key array."""
    data, _ = check_key("key_data", keys, allow_batched=True)
    return data


def wrap_key_data(key_bits_array: Any, *, impl: Any = None, dtype: Any = None) -> PRNGKeyArray:
    """A typed key array over `uint32[..., 2]` data (the inverse of `key_data`)."""
    if impl is not None and dtype is not None:
        raise ValueError("Cannot specify both `impl` and `dtype` arguments to random.wrap_key_data")
    _resolve_impl(impl if dtype is None else dtype)
    if isinstance(key_bits_array, PRNGKeyArray):
        raise TypeError("random.wrap_key_data: expected uint32 key data, got a typed key array")
    return PRNGKeyArray(_check_key_data("wrap_key_data", key_bits_array))


def key_impl(keys: Any) -> str:
    """The name of the keys' implementation: always "threefry2x32" in stablax."""
    check_key("key_impl", keys, allow_batched=True)
    return IMPL_NAME


def key_dtype(impl_spec: Any = None) -> KeyDtype:
    """The dtype of typed keys of the implementation `impl_spec` (`key<fry>`)."""
    _resolve_impl(impl_spec)
    return KEY_DTYPE
