"""`jax.extend.source_info_util` under the alias (equinox: name stacks in errors)."""

import contextlib

from stablax._compat._src.traceback_util import register_exclusion as _record_exclusion


@contextlib.contextmanager
def extend_name_stack(name):
    """A context naming the ops inside it (stablax keeps no name stack; names are dropped)."""
    yield


def current():
    """The current source info: stablax records none."""
    return None


def register_exclusion(path):
    """Records `path` as hidden from source info (flax); stablax keeps no source info."""
    _record_exclusion(path)
