"""stablax.scipy: JAX's jax.scipy submodules on stablax arrays."""

from stablax.scipy import cluster as cluster
from stablax.scipy import fft as fft
from stablax.scipy import integrate as integrate
from stablax.scipy import interpolate as interpolate
from stablax.scipy import linalg as linalg
from stablax.scipy import ndimage as ndimage
from stablax.scipy import optimize as optimize
from stablax.scipy import signal as signal
from stablax.scipy import sparse as sparse
from stablax.scipy import spatial as spatial
from stablax.scipy import special as special
from stablax.scipy import stats as stats
