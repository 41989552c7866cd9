"""Tracebacks of errors raised through the public API hide stablax's internal frames."""

from __future__ import annotations

import traceback

import pytest

import stablax
import stablax.numpy as jnp
from stablax import lax
from stablax._src import traceback_util
from stablax._src.config import config


def _bad_sum(x):
    return jnp.sum(x, axis=5)  # the user's error: x has one dimension


def _bad_body(x):
    return lax.scan(lambda c, y: (c + jnp.ones(7), y), x, x)


# name -> a call that raises through the public API because of the user's code
CASES = {
    "eager": lambda: _bad_sum(jnp.ones(3)),
    "jit": lambda: stablax.jit(_bad_sum)(jnp.ones(3)),
    "grad": lambda: stablax.grad(_bad_sum)(jnp.ones(3)),
    "vmap": lambda: stablax.vmap(_bad_sum)(jnp.ones((2, 3))),
    "jit of grad of vmap": lambda: stablax.jit(stablax.grad(lambda v: stablax.vmap(_bad_sum)(v)))(
        jnp.ones((2, 3))
    ),
    "scan body": lambda: _bad_body(jnp.ones(3)),
    "lax eager": lambda: lax.add(jnp.ones(3), jnp.ones(4)),
    "creation": lambda: jnp.eye(-1),
}


def _frames(call):
    with pytest.raises((TypeError, ValueError)) as info:
        call()
    return info.value, traceback.extract_tb(info.value.__traceback__)


@pytest.fixture
def filtering():
    previous = config.jax_traceback_filtering

    def set_mode(mode):
        config.update("jax_traceback_filtering", mode)

    yield set_mode
    config.update("jax_traceback_filtering", previous)


def _stablax_frames(frames):
    return [f for f in frames if not traceback_util.include_filename(f.filename)]


@pytest.mark.parametrize("name", sorted(CASES))
def test_user_errors_show_at_most_four_stablax_frames(name, filtering):
    filtering("auto")
    error, frames = _frames(CASES[name])
    assert len(_stablax_frames(frames)) <= 4, [f"{f.filename}:{f.name}" for f in frames]
    assert frames[-1].filename == __file__  # the user's line that went wrong is the last shown
    assert traceback_util.SIMPLIFIED_MESSAGE in "".join(error.__notes__)


@pytest.mark.parametrize("name", ["jit", "grad", "scan body"])
def test_off_keeps_every_frame(name, filtering):
    filtering("off")
    error, frames = _frames(CASES[name])
    assert len(_stablax_frames(frames)) > 4
    assert not getattr(error, "__notes__", None)


def test_remove_frames_attaches_the_unfiltered_traceback(filtering):
    filtering("remove_frames")
    error, frames = _frames(CASES["jit"])
    assert len(_stablax_frames(frames)) <= 4
    cause = error.__cause__
    assert isinstance(cause, traceback_util.UnfilteredStackTrace)
    assert len(_stablax_frames(traceback.extract_tb(cause.__traceback__))) > 4


def test_tracebackhide_marks_frames_instead_of_removing_them(filtering):
    filtering("tracebackhide")
    _, frames = _frames(CASES["jit"])
    assert len(_stablax_frames(frames)) > 4


def test_an_invalid_mode_is_refused_by_config_update(filtering):
    with pytest.raises(ValueError, match="jax_traceback_filtering"):
        filtering("sometimes")
    assert config.jax_traceback_filtering in traceback_util._MODES


def test_errors_of_the_users_own_callable_pass_through_unchanged(filtering):
    filtering("auto")

    def body(c, y):
        raise KeyError("mine")

    with pytest.raises(KeyError, match="mine"):
        lax.scan(body, 0.0, jnp.ones(3))
