"""`Array`: an immutable, device-resident array whose computations are dispatched asynchronously.

Only host-facing methods block (`__array__`, `__repr__`, `float()`, `.item()`, ...). Operators
and NumPy-style methods are attached by `stablax.numpy`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax._src import basearray, dtypes, runtime, transfer_guard
from stablax._src.avals import ShapedArray

IMMUTABLE_MESSAGE = (
    "'{type}' object does not support item assignment: stablax arrays are immutable. "
    "Use x = x.at[idx].set(y) (or .add, .multiply, ...) for a functional update."
)


class ArrayImpl:
    """A stablax array: one device buffer plus its abstract value (shape, dtype, weak type).

    The concrete class of `stablax.Array` (`basearray.Array`), as JAX's `ArrayImpl`.
    """

    __slots__ = ("_buf", "aval", "_npy", "__weakref__")
    __array_priority__ = 100

    def __init__(self, buf: runtime.Buffer, aval: ShapedArray) -> None:
        self._buf = buf
        self.aval = aval
        self._npy = None

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: len(self.aval.shape))
    size = property(lambda self: self.aval.size)
    weak_type = property(lambda self: self.aval.weak_type)

    @property
    def nbytes(self) -> int:
        return self.aval.size * self.aval.dtype.itemsize

    @property
    def itemsize(self) -> int:
        return self.aval.dtype.itemsize

    # --- host access (these block) -------------------------------------------------------------

    @property
    def _value(self) -> np.ndarray:
        if self._npy is None:
            self._check_alive()
            if transfer_guard.active["device_to_host"] and self.device.platform != "cpu":
                transfer_guard.check("device_to_host", f"aval={self.aval}")
            self._npy = runtime.to_host(self._buf)
        return self._npy

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        value = self._value
        if dtype is not None and np.dtype(dtype) != value.dtype:
            return value.astype(dtype)
        if copy:
            return value.copy()
        return value

    def block_until_ready(self) -> Array:
        self._check_alive()
        self._buf.block_until_ready()
        return self

    def copy_to_host_async(self) -> None:
        if self._npy is None:
            self._check_alive()
            runtime.copy_to_host_async(self._buf)

    def is_ready(self) -> bool:
        return self._buf.is_ready()

    def item(self, *args: Any) -> Any:
        return self._value.item(*args)

    def tolist(self) -> Any:
        return self._value.tolist()

    def __bool__(self) -> bool:
        return bool(self._value)

    def __int__(self) -> int:
        return int(self._value)

    def __float__(self) -> float:
        return float(self._value)

    def __complex__(self) -> complex:
        return complex(self._value)

    def __index__(self) -> int:
        if self.aval.dtype.kind not in "iu" or self.aval.shape:
            raise TypeError(
                "only integer scalar arrays can be converted to a scalar index, got "
                f"{self.aval.str_short()}"
            )
        return int(self._value)

    def __len__(self) -> int:
        if not self.aval.shape:
            raise TypeError("len() of unsized object")
        return self.aval.shape[0]

    def __iter__(self):
        if not self.aval.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.aval.shape[0]))

    def __format__(self, spec: str) -> str:
        if not self.aval.shape:
            return format(self._value.item(), spec)
        return format(self._value, spec)

    def __repr__(self) -> str:
        if self.is_deleted():
            return f"Array(<deleted>, dtype={self.dtype.name})"
        prefix = "Array("
        dtype_str = (
            f"dtype={self.dtype.name}" + (", weak_type=True" if self.weak_type else "") + ")"
        )
        line_width = np.get_printoptions()["linewidth"]
        if self.size:
            body = np.array2string(
                self._value, separator=", ", prefix=prefix, suffix=",", max_line_width=line_width
            )
        else:
            body = f"[], shape={self.shape}"
        # As JAX does: the dtype follows on the last line, or the indent is widened when the
        # last line (measured without the prefix) would overflow.
        last_line = len(body) - body.rfind("\n") + 1
        sep = " " if last_line + len(dtype_str) + 1 <= line_width else " " * len(prefix)
        return f"{prefix}{body},{sep}{dtype_str}"

    def __str__(self) -> str:
        return str(self._value)

    # --- placement and lifetime ----------------------------------------------------------------

    def devices(self) -> set[runtime.Device]:
        return {runtime.buffer_device(self._buf)}

    @property
    def device(self) -> runtime.Device:
        return runtime.buffer_device(self._buf)

    @property
    def sharding(self) -> runtime.SingleDeviceSharding:
        return runtime.sharding_for(self.device)

    is_fully_addressable = True  # one buffer on one local device
    is_fully_replicated = True

    def is_deleted(self) -> bool:
        return runtime.is_deleted(self._buf)

    def delete(self) -> None:
        runtime.delete(self._buf)
        self._npy = None

    def _check_alive(self) -> None:
        if runtime.is_deleted(self._buf):
            raise RuntimeError(
                f"Array {self.aval.str_short()} has been deleted (donated to a jit call or "
                "deleted explicitly)."
            )

    # --- exchange ------------------------------------------------------------------------------

    def __dlpack__(
        self,
        *,
        stream: Any = None,
        max_version: Any = None,
        dl_device: Any = None,
        copy: Any = None,
    ) -> Any:
        self._check_alive()
        return runtime.to_dlpack(self._buf, stream)

    def __dlpack_device__(self) -> tuple[int, int]:
        platform = self.device.platform
        return {
            "cpu": (1, 0),
            "cuda": (2, self.device.local_hardware_id),
            "rocm": (10, self.device.local_hardware_id),
        }[platform]

    def __reduce__(self):
        return (_reconstruct, (np.asarray(self._value), self.aval.weak_type))

    def __setitem__(self, index: Any, value: Any) -> None:
        raise TypeError(IMMUTABLE_MESSAGE.format(type="Array"))

    def __hash__(self) -> int:
        raise TypeError("unhashable type: 'Array'")


# Internal code names the concrete class `Array` (hot paths test `type(x) is Array`).
Array = ArrayImpl
basearray.Array.register(ArrayImpl)


def raise_if_deleted(values: Any) -> None:
    """Raises the error for using a deleted Array if one is among `values` (after a failed run)."""
    for value in values:
        if isinstance(value, Array):
            value._check_alive()


def _reconstruct(value: np.ndarray, weak_type: bool) -> Array:
    return from_host(value, weak_type=weak_type)


def from_host(
    value: Any,
    dtype: Any = None,
    weak_type: bool = False,
    device: Any = None,
    explicit: bool = False,
) -> Array:
    """Copies a host value (NumPy array, scalar, nested lists) to a device as an Array.

    `explicit` marks a `device_put` for the transfer guards (see transfer_guard.py).
    """
    array = np.asarray(value, dtype=dtype)
    dtypes.check_user_dtype(array.dtype, "stablax.numpy.asarray")
    target = dtypes.canonicalize_dtype(array.dtype)
    if target != array.dtype:
        array = array.astype(target)
    aval = ShapedArray(array.shape, array.dtype, weak_type)
    if transfer_guard.active["host_to_device"]:
        transfer_guard.check("host_to_device", f"aval={aval}", explicit)
    device = runtime.default_device() if device is None else runtime.as_device(device)
    return Array(runtime.device_put(np.asarray(array, order="C"), aval, device), aval)


def from_dlpack(external: Any, device: Any = None, copy: bool | None = None) -> Array:
    """Wraps a `__dlpack__` producer (NumPy, another framework) or a DLPack capsule as an
    Array, zero-copy if able.

    The dtype is the producer's, not canonicalized (see `stablax.dlpack.from_dlpack`).
    """
    if hasattr(external, "__dlpack__"):
        capsule = external.__dlpack__()
    elif type(external).__name__ == "PyCapsule":
        capsule = external
    else:
        raise TypeError("The array passed to from_dlpack must have a __dlpack__ method.")
    device = runtime.default_device() if device is None else device
    buf = runtime.from_dlpack(capsule, device, copy)
    shape, dtype = getattr(external, "shape", None), getattr(external, "dtype", None)
    if shape is None or dtype is None:  # not an array-API object: read the shape off a copy
        host_view = runtime.to_host(buf)
        shape, dtype = host_view.shape, host_view.dtype
    return Array(buf, ShapedArray(shape, np.dtype(dtype)))
