"""Bad shapes and parameters of the data-movement and indexing ops raise clear errors.

Each error must name the lax function the user called and point at the user's line (this
file), eagerly and under jit, before MLIR sees anything.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax import lax

GD = lax.GatherDimensionNumbers
SD = lax.ScatterDimensionNumbers
ROWS_G = GD(offset_dims=(1, 2), collapsed_slice_dims=(0,), start_index_map=(0,))
ROWS_S = SD(update_window_dims=(1, 2), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))

F = np.float32
x3 = np.ones((2, 1, 3), F)  # the operand of most cases
i32 = np.int32
idx = np.zeros((1, 1), i32)

# (op named in the message, exception type, function of the arrays, the arrays); a table, kept
# one case to a line or two.
# fmt: off
CASES = [
    ("squeeze", ValueError, lambda x: lax.squeeze(x, (0,)), [x3]),
    ("squeeze", ValueError, lambda x: lax.squeeze(x, (5,)), [x3]),
    ("squeeze", ValueError, lambda x: lax.squeeze(x, (1, -2)), [x3]),
    ("expand_dims", ValueError, lambda x: lax.expand_dims(x, (5,)), [x3]),
    ("expand_dims", ValueError, lambda x: lax.expand_dims(x, (0, 0)), [x3]),
    ("collapse", ValueError, lambda x: lax.collapse(x, 2, 1), [x3]),
    ("pad", TypeError, lambda x, v: lax.pad(x, v, [(1, 1, 0)] * 3), [x3, np.int32(0)]),
    ("pad", TypeError, lambda x: lax.pad(x, 0.5, [(1, 1, 0)]), [np.ones(3, i32)]),
    ("pad", ValueError, lambda x, v: lax.pad(x, v, [(1, 1, 0)]), [np.ones(3, F), np.zeros(2, F)]),
    ("pad", ValueError, lambda x: lax.pad(x, 0.0, [(1, 1, 0)]), [x3]),
    ("pad", ValueError, lambda x: lax.pad(x, 0.0, [(1, 1, -1)]), [np.ones(3, F)]),
    ("pad", ValueError, lambda x: lax.pad(x, 0.0, [(-3, -1, 0)]), [np.ones(3, F)]),
    ("pad", TypeError, lambda x: lax.pad(x, 0.0, [(1, 1)]), [np.ones(3, F)]),
    ("reduce_precision", TypeError, lambda x: lax.reduce_precision(x, 5, 10), [np.ones(3, i32)]),
    ("reduce_precision", ValueError, lambda x: lax.reduce_precision(x, 0, 10), [x3]),
    ("reduce_precision", ValueError, lambda x: lax.reduce_precision(x, 5, -1), [x3]),
    ("slice_in_dim", TypeError, lambda x: lax.slice_in_dim(x, 0, 5), [x3]),
    ("slice_in_dim", TypeError, lambda x: lax.slice_in_dim(x, 2, 1), [x3]),
    ("slice_in_dim", ValueError, lambda x: lax.slice_in_dim(x, 0, 1, axis=3), [x3]),
    ("index_in_dim", IndexError, lambda x: lax.index_in_dim(x, 2), [x3]),
    ("index_in_dim", ValueError, lambda x: lax.index_in_dim(x, 0, axis=-4), [x3]),
    ("dynamic_slice", ValueError, lambda x: lax.dynamic_slice(x, (0, 0), (1, 1, 1)), [x3]),
    ("dynamic_slice", TypeError, lambda x: lax.dynamic_slice(x, (0, 0, 0), (3, 1, 1)), [x3]),
    ("dynamic_slice", ValueError, lambda x: lax.dynamic_slice(x, (0, 0, 0), (1, 1)), [x3]),
    ("dynamic_slice", TypeError, lambda x: lax.dynamic_slice(x, (0, 0, 0), (-1, 1, 1)), [x3]),
    ("dynamic_slice", TypeError, lambda x, i: lax.dynamic_slice(x, (i, 0, 0), (1, 1, 1)),
     [x3, np.float32(0)]),
    ("dynamic_slice", TypeError, lambda x, i: lax.dynamic_slice(x, (i, 0, 0), (1, 1, 1)),
     [x3, np.zeros(2, i32)]),
    ("dynamic_slice", TypeError, lambda x, i: lax.dynamic_slice(x, i, (1, 1, 1)),
     [x3, np.zeros((3, 1), i32)]),
    ("dynamic_slice", ValueError,
     lambda x: lax.dynamic_slice(x, (-1, 0, 0), (1, 1, 1), allow_negative_indices=False), [x3]),
    ("dynamic_update_slice", TypeError,
     lambda x, u: lax.dynamic_update_slice(x, u, (0, 0, 0)), [x3, np.ones((1, 1, 1), i32)]),
    ("dynamic_update_slice", TypeError,
     lambda x, u: lax.dynamic_update_slice(x, u, (0, 0, 0)), [x3, np.ones((1, 1), F)]),
    ("dynamic_update_slice", TypeError,
     lambda x, u: lax.dynamic_update_slice(x, u, (0, 0, 0)), [x3, np.ones((3, 1, 1), F)]),
    ("dynamic_update_slice", ValueError,
     lambda x, u: lax.dynamic_update_slice(x, u, (0, 0)), [x3, np.ones((1, 1, 1), F)]),
    ("dynamic_slice_in_dim", ValueError, lambda x: lax.dynamic_slice_in_dim(x, 0, 1, 3), [x3]),
    ("dynamic_slice_in_dim", TypeError, lambda x: lax.dynamic_slice_in_dim(x, 0, 4, 2), [x3]),
    ("dynamic_index_in_dim", ValueError, lambda x: lax.dynamic_index_in_dim(x, 0, 5), [x3]),
    ("dynamic_update_slice_in_dim", TypeError,
     lambda x, u: lax.dynamic_update_slice_in_dim(x, u, 0, 0), [x3, np.ones((3, 1, 3), F)]),
    ("dynamic_update_index_in_dim", TypeError,
     lambda x, u: lax.dynamic_update_index_in_dim(x, u, 0, 0), [x3, np.ones((1, 4), F)]),
    ("gather", TypeError, lambda x, i: lax.gather(x, i, ROWS_G, (1, 1, 3)),
     [x3, np.zeros((1, 1), F)]),
    ("gather", TypeError, lambda x, i: lax.gather(x, i, ROWS_G, (2, 1, 3)), [x3, idx]),
    ("gather", TypeError, lambda x, i: lax.gather(x, i, ROWS_G, (1, 2, 3)), [x3, idx]),
    ("gather", TypeError, lambda x, i: lax.gather(x, i, ROWS_G, (1, 1)), [x3, idx]),
    ("gather", TypeError, lambda x, i: lax.gather(x, i, ROWS_G, (1, 1, 3)),
     [x3, np.zeros((1, 2), i32)]),
    ("gather", TypeError, lambda x, i: lax.gather(x, i, GD((1,), (0,), (0,)), (1, 1, 3)),
     [x3, idx]),
    ("gather", TypeError, lambda x, i: lax.gather(x, i, GD((1, 2), (0,), (5,)), (1, 1, 3)),
     [x3, idx]),
    ("gather", TypeError, lambda x, i: lax.gather(x, i, ((1, 2), (0,), (0,)), (1, 1, 3)),
     [x3, idx]),
    ("gather", ValueError, lambda x, i: lax.gather(x, i, ROWS_G, (1, 1, 3), mode="wrap"),
     [x3, idx]),
    ("gather", TypeError,
     lambda x, i: lax.gather(x, i, GD((2,), (1,), (1,), (0,), (0,)), (1, 1, 3)),
     [x3, np.zeros((3, 1), i32)]),
    ("index_take", TypeError, lambda x, i: lax.index_take(x, (i,), (0, 1)), [x3, np.zeros(2, i32)]),
    ("index_take", TypeError, lambda x, i: lax.index_take(x, (i,), (0,)), [x3, np.zeros(2, F)]),
    ("scatter", TypeError, lambda x, i, u: lax.scatter(x, i, u, ROWS_S),
     [x3, idx, np.ones((1, 1, 3), i32)]),
    ("scatter_add", TypeError, lambda x, i, u: lax.scatter_add(x, i, u, ROWS_S),
     [x3, idx, np.ones((1, 1), F)]),
    ("scatter_mul", TypeError, lambda x, i, u: lax.scatter_mul(x, i, u, ROWS_S),
     [x3, idx, np.ones((1, 1, 4), F)]),
    ("scatter_min", TypeError, lambda x, i, u: lax.scatter_min(x, i, u, ROWS_S),
     [x3, np.zeros((2, 1), i32), np.ones((1, 1, 3), F)]),
    ("scatter_max", TypeError, lambda x, i, u: lax.scatter_max(x, i, u, ROWS_S),
     [x3, np.zeros((1, 1), F), np.ones((1, 1, 3), F)]),
    ("scatter_sub", TypeError, lambda x, i, u: lax.scatter_sub(x, i, u, SD((1, 2), (0,), (5,))),
     [x3, idx, np.ones((1, 1, 3), F)]),
    ("scatter", TypeError, lambda x, i, u: lax.scatter(x, i, u, SD((1, 2), (0, 1), (0,))),
     [x3, idx, np.ones((1, 1, 3), F)]),
    ("scatter", ValueError, lambda x, i, u: lax.scatter(x, i, u, ROWS_S, mode="wrap"),
     [x3, idx, np.ones((1, 1, 3), F)]),
    ("scatter_apply", TypeError,
     lambda x, i: lax.scatter_apply(x, i, lax.neg, ROWS_S, update_shape=(1, 2)), [x3, idx]),
]
# fmt: on

IDS = [f"{i}-{case[0]}" for i, case in enumerate(CASES)]
THIS_FILE = os.path.basename(__file__)


def _check(error: pytest.ExceptionInfo, opname: str) -> None:
    message = str(error.value)
    assert message.startswith(f"lax.{opname}"), message
    assert THIS_FILE in message, message


@pytest.mark.parametrize("opname,kind,fun,args", CASES, ids=IDS)
def test_error_eager(opname, kind, fun, args):
    with pytest.raises(kind) as error:
        fun(*[jnp.asarray(a) for a in args])
    _check(error, opname)


@pytest.mark.parametrize("opname,kind,fun,args", CASES, ids=IDS)
def test_error_under_jit(opname, kind, fun, args):
    with pytest.raises(kind) as error:
        stablax.jit(fun)(*[jnp.asarray(a) for a in args])
    _check(error, opname)


def test_error_with_python_and_numpy_operands():
    # Without any device array involved the checks run all the same.
    with pytest.raises(ValueError) as error:
        lax.squeeze(np.ones((2, 3), F), (0,))
    _check(error, "squeeze")
    with pytest.raises(ValueError) as error:
        lax.pad(1.0, 0.0, [(0, 0, 0)])
    _check(error, "pad")


@pytest.mark.parametrize("opname", ["scatter_add", "scatter_mul", "scatter_min", "scatter_max"])
def test_combining_scatters_read_the_operand_before_the_mode(opname):
    # JAX 0.10.2: the combining scatters read the operand's dtype first (TypeError for an object
    # that is no array); lax.scatter checks the mode first (ValueError).
    args = (np.zeros((5, 1), i32), np.ones(5, F), SD((), (0,), (0,)))
    with pytest.raises(TypeError, match="of type object is not a valid"):
        getattr(lax, opname)(object(), *args, mode="symmetric")
    with pytest.raises(ValueError, match="Unknown gather/scatter mode"):
        getattr(lax, opname)(np.zeros(3, F), *args, mode="symmetric")
    with pytest.raises(ValueError, match="Unknown gather/scatter mode"):
        lax.scatter(object(), *args, mode="symmetric")
