"""stablax.numpy: NumPy's API on accelerator arrays, with JAX's dtype rules."""

import importlib as _importlib

import numpy as _np

from stablax._src import dtypes as _dtypes
from stablax._src.basearray import Array as ndarray  # noqa: N813
from stablax._src.dlpack import from_dlpack
from stablax._src.numpy import _array_methods
from stablax._src.numpy._array_api import (
    __array_api_version__,
    __array_namespace_info__,
    acos,
    acosh,
    asin,
    asinh,
    astype,
    atan,
    atan2,
    atanh,
    bitwise_left_shift,
    bitwise_right_shift,
    isdtype,
)
from stablax._src.numpy._asarray import array, asarray
from stablax._src.numpy._creation import (
    arange,
    copy,
    empty,
    empty_like,
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
from stablax._src.numpy._introspection import (
    broadcast_shapes,
    can_cast,
    iscomplexobj,
    isrealobj,
    isscalar,
    issubdtype,
    iterable,
    ndim,
    shape,
    size,
)
from stablax._src.numpy._linalg_basic import (
    cross,
    dot,
    inner,
    kron,
    matmul,
    matvec,
    outer,
    tensordot,
    vdot,
    vecdot,
    vecmat,
)
from stablax._src.numpy._reductions import all, amax, amin, any, max, mean, min, prod, std, sum, var
from stablax._src.numpy._scalar_types import (
    bfloat16,
    bool,
    bool_,
    cdouble,
    complex64,
    complex128,
    complex_,
    csingle,
    double,
    float4_e2m1fn,
    float6_e2m3fn,
    float6_e3m2fn,
    float8_e3m4,
    float8_e4m3,
    float8_e4m3b11fnuz,
    float8_e4m3fn,
    float8_e4m3fnuz,
    float8_e5m2,
    float8_e5m2fnuz,
    float8_e8m0fnu,
    float16,
    float32,
    float64,
    float_,
    int2,
    int4,
    int8,
    int16,
    int32,
    int64,
    int_,
    single,
    uint,
    uint2,
    uint4,
    uint8,
    uint16,
    uint32,
    uint64,
)
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
from stablax._src.numpy._shape_diag import diag, diagflat, diagonal, trace, tri, tril, triu
from stablax._src.numpy._shape_join import (
    append,
    block,
    column_stack,
    concat,
    delete,
    dstack,
    hstack,
    insert,
    vstack,
)
from stablax._src.numpy._shape_pad import pad
from stablax._src.numpy._shape_rearrange import (
    flip,
    fliplr,
    flipud,
    repeat,
    resize,
    roll,
    rollaxis,
    rot90,
    tile,
    trim_zeros,
)
from stablax._src.numpy._shape_split import (
    array_split,
    atleast_1d,
    atleast_2d,
    atleast_3d,
    dsplit,
    hsplit,
    split,
    unstack,
    vsplit,
)
from stablax._src.numpy._ufuncs import *  # noqa: F403
from stablax._src.numpy._ufuncs import abs, round
from stablax._src.numpy._ufuncs_division import (
    divide,
    divmod,
    floor_divide,
    fmod,
    mod,
    pow,
    power,
    reciprocal,
    remainder,
    square,
    true_divide,
)

promote_types = _dtypes.promote_types
result_type = _dtypes.result_type
finfo = _dtypes.finfo
iinfo = _dtypes.iinfo
dtype = _np.dtype

inexact, floating, integer, number = _np.inexact, _np.floating, _np.integer, _np.number
signedinteger, unsignedinteger, complexfloating = (
    _np.signedinteger,
    _np.unsignedinteger,
    _np.complexfloating,
)
generic = _np.generic
# NumPy's other abstract scalar types and its complex-to-real cast warning, as JAX exports them.
character, flexible, object_ = _np.character, _np.flexible, _np.object_
ComplexWarning = _np.exceptions.ComplexWarning

pi, e, inf, nan, euler_gamma = _np.pi, _np.e, _np.inf, _np.nan, _np.euler_gamma
newaxis = None

# isort: split
# FFT, sorting, searching, set operations, histograms (area 4)
from stablax._src.numpy._sorting import (
    argpartition,
    argsort,
    argwhere,
    flatnonzero,
    lexsort,
    nonzero,
    partition,
    searchsorted,
    sort,
    sort_complex,
)

# isort: split

# Control flow (area 1)
# Math and statistics (area 7)
from stablax._src.numpy._math_cumulative import (
    cumprod,
    cumsum,
    cumulative_prod,
    cumulative_sum,
    diff,
    ediff1d,
    gradient,
    nancumprod,
    nancumsum,
    trapezoid,
    unwrap,
)
from stablax._src.numpy._piecewise import piecewise
from stablax._src.numpy._reductions import argmax, argmin, count_nonzero, ptp

# isort: split
# Exceptions leaving a public function lose stablax's internal frames (traceback_util.py); JAX
# refuses Python lists (and tuples) where most functions take arrays (_arraylike.py).
from stablax._src import traceback_util as _traceback_util
from stablax._src.numpy._arraylike import CHECKED as _CHECKED
from stablax._src.numpy._arraylike import checked as _checked
from stablax._src.numpy._ufunc_class import PUBLIC_UFUNCS as _PUBLIC_UFUNCS
from stablax._src.numpy._ufunc_class import frompyfunc, ufunc
from stablax._src.numpy._ufunc_class import public_ufunc as _public_ufunc

# Families a first program rarely touches load on first use of one of their names (import time,
# issue 16 point 8): module under stablax._src.numpy -> the names it gives stablax.numpy.
_LAZY_FAMILIES = {
    "_creation_host": "frombuffer fromfile fromiter fromstring",
    "_creation_ranges": "fromfunction geomspace indices logspace meshgrid",
    "_einsum": "einsum einsum_path",
    "_vectorize": "vectorize",
    "_histogram": "bincount digitize histogram histogram2d histogram_bin_edges histogramdd",
    "_setops": "intersect1d isin setdiff1d setxor1d union1d",
    "_unique": "unique unique_all unique_counts unique_inverse unique_values",
    "_index_arrays": (
        "diag_indices diag_indices_from ix_ mask_indices ravel_multi_index tril_indices "
        "tril_indices_from triu_indices triu_indices_from unravel_index"
    ),
    "_index_tricks": "c_ index_exp mgrid ogrid r_ s_",
    "_indexing_funcs": (
        "choose compress extract fill_diagonal place put put_along_axis take take_along_axis"
    ),
    "_math_bits": "packbits unpackbits",
    "_math_compare": "allclose array_equal array_equiv isclose",
    "_math_floats": "frexp ldexp modf rint spacing",
    "_math_signal": "convolve correlate interp select",
    "_math_ufuncs": (
        "angle bitwise_count copysign deg2rad degrees fabs float_power fmax fmin gcd heaviside "
        "hypot i0 iscomplex isneginf isposinf isreal lcm logaddexp logaddexp2 nan_to_num rad2deg "
        "radians signbit sinc"
    ),
    "_nanfuncs": "nanargmax nanargmin nanmax nanmean nanmin nanprod nanstd nansum nanvar",
    "_polynomial": (
        "poly polyadd polyder polydiv polyfit polyint polymul polysub polyval roots vander"
    ),
    "_statistics": (
        "average corrcoef cov median nanmedian nanpercentile nanquantile percentile quantile"
    ),
    "_windows": "bartlett blackman hamming hanning kaiser",
    "_apply": "apply_along_axis apply_over_axes",
    "_host_io": (
        "array_repr array_str get_printoptions load printoptions save savez set_printoptions"
    ),
}
_LAZY_NAMES = {name: family for family, names in _LAZY_FAMILIES.items() for name in names.split()}
_SUBMODULES = frozenset({"fft", "linalg"})  # `jnp.linalg` and `jnp.fft` also load on first use


def _public(namespace: dict) -> dict:
    # JAX's list check where it applies, then the traceback filter, on every public function;
    # JAX's 14 ufuncs (jnp.add, ...) then become `ufunc`s calling those functions.
    for name in _CHECKED:
        if name in namespace:
            namespace[name] = _checked(name, namespace[name])
    _traceback_util.wrap_public_functions(namespace)
    for name in _PUBLIC_UFUNCS.keys() & namespace.keys():
        namespace[name] = _public_ufunc(name, namespace[name])
    return namespace


_public(globals())


def __getattr__(name: str):
    if name in _SUBMODULES:
        module = _importlib.import_module(f"stablax.numpy.{name}")
        globals()[name] = module
        return module
    family = _LAZY_NAMES.get(name)
    if family is None:
        raise AttributeError(f"module 'stablax.numpy' has no attribute {name!r}")
    module = _importlib.import_module(f"stablax._src.numpy.{family}")
    names = _LAZY_FAMILIES[family].split()
    globals().update(_public({n: getattr(module, n) for n in names}))
    return globals()[name]


def __dir__() -> list[str]:
    return sorted(set(globals()) | _SUBMODULES | set(_LAZY_NAMES))
