"""stablax.numpy: NumPy's API on accelerator arrays, with JAX's dtype rules."""

import numpy as _np

from stablax._src import dtypes as _dtypes
from stablax._src.array import Array as ndarray  # noqa: N813
from stablax._src.array import from_dlpack
from stablax._src.numpy import _array_methods
from stablax._src.numpy._creation import (
    arange,
    array,
    asarray,
    copy,
    empty,
    eye,
    full,
    full_like,
    identity,
    linspace,
    ones,
    ones_like,
    zeros,
    zeros_like,
)
from stablax._src.numpy._linalg_basic import dot, inner, matmul, outer, vdot
from stablax._src.numpy._reductions import all, amax, amin, any, max, mean, min, prod, std, sum, var
from stablax._src.numpy._shape import (
    broadcast_arrays,
    broadcast_to,
    concatenate,
    expand_dims,
    matrix_transpose,
    moveaxis,
    permute_dims,
    ravel,
    reshape,
    squeeze,
    stack,
    swapaxes,
    transpose,
)
from stablax._src.numpy._ufuncs import *  # noqa: F403
from stablax._src.numpy._ufuncs import abs, divmod, pow, round

promote_types = _dtypes.promote_types
result_type = _dtypes.result_type
issubdtype = _dtypes.issubdtype
finfo = _dtypes.finfo
iinfo = _dtypes.iinfo
dtype = _np.dtype

bool_ = _np.bool_
int8, int16, int32, int64 = _np.int8, _np.int16, _np.int32, _np.int64
uint8, uint16, uint32, uint64 = _np.uint8, _np.uint16, _np.uint32, _np.uint64
float16, float32, float64 = _np.float16, _np.float32, _np.float64
complex64, complex128 = _np.complex64, _np.complex128
bfloat16 = _dtypes.bfloat16
inexact, floating, integer, number = _np.inexact, _np.floating, _np.integer, _np.number
signedinteger, unsignedinteger, complexfloating = (
    _np.signedinteger,
    _np.unsignedinteger,
    _np.complexfloating,
)
generic = _np.generic

pi, e, inf, nan, euler_gamma = _np.pi, _np.e, _np.inf, _np.nan, _np.euler_gamma
newaxis = None
from stablax._src.numpy._vectorize import vectorize
