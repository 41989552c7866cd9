"""The compiled programs the harness measures, written once against a JAX-like library.

Each builder takes a `Lib` (the library, its numpy, lax and random) and a size preset and returns
a `Program`: a step function to jit and the arguments to call it with. The same code runs on
stablax and on JAX, so both compile the same computation.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Lib:
    """A JAX-like library: `stablax` or `jax`, with its numpy, lax and random modules."""

    name: str
    top: ModuleType
    jnp: ModuleType
    lax: ModuleType
    random: ModuleType

    @classmethod
    def load(cls, name: str) -> Lib:
        top = __import__(name)
        __import__(f"{name}.numpy")
        return cls(name, top, top.numpy, top.lax, top.random)

    def block(self, value: Any) -> Any:
        return self.top.block_until_ready(value)


@dataclass
class Program:
    """A function to jit and the arguments of one call."""

    fn: Callable[..., Any]
    args: tuple[Any, ...]


def _sgd(lib: Lib, loss: Callable[..., Any], lr: float = 1e-3) -> Callable[..., Any]:
    """A training step: the loss's gradient in the first argument, then one SGD update."""

    def step(params, *batch):
        grads = lib.top.grad(loss)(params, *batch)
        return lib.top.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)

    return step


def _put(lib: Lib, tree: Any) -> Any:
    return lib.top.tree_util.tree_map(lib.jnp.asarray, tree)


def mlp(lib: Lib, quick: bool) -> Program:
    """A 3-layer tanh MLP regression step."""
    batch, width = (8, 16) if quick else (128, 256)
    rng = np.random.default_rng(0)
    sizes = [(64, width), (width, width), (width, 10)]
    params = [
        (rng.standard_normal(s).astype(np.float32) / np.sqrt(s[0]), np.zeros(s[1], np.float32))
        for s in sizes
    ]
    x = rng.standard_normal((batch, 64)).astype(np.float32)
    y = rng.standard_normal((batch, 10)).astype(np.float32)
    jnp = lib.jnp

    def loss(params, x, y):
        h = x
        for w, b in params[:-1]:
            h = jnp.tanh(h @ w + b)
        w, b = params[-1]
        return jnp.mean((h @ w + b - y) ** 2)

    return Program(_sgd(lib, loss), (_put(lib, params), jnp.asarray(x), jnp.asarray(y)))


def cnn(lib: Lib, quick: bool) -> Program:
    """Two 3x3 convolutions with relu and a dense head (NCHW)."""
    batch, side = (2, 8) if quick else (16, 16)
    rng = np.random.default_rng(0)
    params = (
        rng.standard_normal((8, 3, 3, 3)).astype(np.float32) * 0.1,
        rng.standard_normal((16, 8, 3, 3)).astype(np.float32) * 0.1,
        rng.standard_normal((16 * side * side, 10)).astype(np.float32) * 0.01,
    )
    x = rng.standard_normal((batch, 3, side, side)).astype(np.float32)
    y = rng.standard_normal((batch, 10)).astype(np.float32)
    jnp, lax = lib.jnp, lib.lax
    dn = ("NCHW", "OIHW", "NCHW")

    def loss(params, x, y):
        k1, k2, w = params
        h = lax.conv_general_dilated(x, k1, (1, 1), "SAME", dimension_numbers=dn)
        h = jnp.maximum(h, 0.0)
        h = lax.conv_general_dilated(h, k2, (1, 1), "SAME", dimension_numbers=dn)
        h = jnp.maximum(h, 0.0).reshape(x.shape[0], -1)
        return jnp.mean((h @ w - y) ** 2)

    return Program(_sgd(lib, loss), (_put(lib, params), jnp.asarray(x), jnp.asarray(y)))


def _transformer(lib: Lib, quick: bool, layers: int) -> Program:
    """A pre-norm causal transformer encoder over float inputs: attention + gelu MLP blocks."""
    batch, seq, dim, heads = (2, 8, 16, 2) if quick else (8, 64, 128, 4)
    head_dim = dim // heads
    rng = np.random.default_rng(0)

    def dense(n_in, n_out):
        return rng.standard_normal((n_in, n_out)).astype(np.float32) / np.sqrt(n_in)

    params = [
        {
            "ln1": (np.ones(dim, np.float32), np.zeros(dim, np.float32)),
            "q": dense(dim, dim),
            "k": dense(dim, dim),
            "v": dense(dim, dim),
            "o": dense(dim, dim),
            "ln2": (np.ones(dim, np.float32), np.zeros(dim, np.float32)),
            "up": (dense(dim, 4 * dim), np.zeros(4 * dim, np.float32)),
            "down": (dense(4 * dim, dim), np.zeros(dim, np.float32)),
        }
        for _ in range(layers)
    ]
    x = rng.standard_normal((batch, seq, dim)).astype(np.float32)
    y = rng.standard_normal((batch, seq, dim)).astype(np.float32)
    jnp, nn = lib.jnp, lib.top.nn

    def layer_norm(h, scale_bias):
        scale, bias = scale_bias
        mean = h.mean(-1, keepdims=True)
        var = ((h - mean) ** 2).mean(-1, keepdims=True)
        return (h - mean) * lib.lax.rsqrt(var + 1e-5) * scale + bias

    def attention(h, p):
        def heads_of(w):
            return (h @ w).reshape(batch, seq, heads, head_dim)

        q, k, v = heads_of(p["q"]), heads_of(p["k"]), heads_of(p["v"])
        scores = jnp.einsum("bqhd,bkhd->bhqk", q, k) / math.sqrt(head_dim)
        causal = jnp.tril(jnp.ones((seq, seq), bool))
        scores = jnp.where(causal, scores, jnp.finfo(scores.dtype).min)
        weights = nn.softmax(scores, axis=-1)
        out = jnp.einsum("bhqk,bkhd->bqhd", weights, v)
        return out.reshape(batch, seq, dim) @ p["o"]

    def loss(params, x, y):
        h = x
        for p in params:
            h = h + attention(layer_norm(h, p["ln1"]), p)
            w_up, b_up = p["up"]
            w_down, b_down = p["down"]
            h = h + nn.gelu(layer_norm(h, p["ln2"]) @ w_up + b_up) @ w_down + b_down
        return jnp.mean((h - y) ** 2)

    return Program(_sgd(lib, loss), (_put(lib, params), jnp.asarray(x), jnp.asarray(y)))


def transformer2(lib: Lib, quick: bool) -> Program:
    """A 2-layer transformer training step."""
    return _transformer(lib, quick, 1 if quick else 2)


def transformer12(lib: Lib, quick: bool) -> Program:
    """A 12-layer transformer training step."""
    return _transformer(lib, quick, 1 if quick else 12)


def scan_rnn(lib: Lib, quick: bool) -> Program:
    """A tanh RNN over a sequence with `lax.scan`, trained by one SGD step."""
    steps, batch, hidden, features = (8, 2, 8, 4) if quick else (1000, 8, 64, 16)
    rng = np.random.default_rng(0)
    params = (
        (rng.standard_normal((hidden, hidden)) / np.sqrt(hidden)).astype(np.float32),
        (rng.standard_normal((features, hidden)) / np.sqrt(features)).astype(np.float32),
        np.zeros(hidden, np.float32),
        (rng.standard_normal((hidden, 1)) / np.sqrt(hidden)).astype(np.float32),
    )
    xs = rng.standard_normal((steps, batch, features)).astype(np.float32)
    target = rng.standard_normal((steps, batch, 1)).astype(np.float32)
    jnp, lax = lib.jnp, lib.lax

    def loss(params, xs, target):
        w_h, w_x, b, w_out = params

        def cell(h, x):
            h = jnp.tanh(h @ w_h + x @ w_x + b)
            return h, h @ w_out

        _, ys = lax.scan(cell, jnp.zeros((xs.shape[1], hidden), xs.dtype), xs)
        return jnp.mean((ys - target) ** 2)

    return Program(_sgd(lib, loss), (_put(lib, params), jnp.asarray(xs), jnp.asarray(target)))


def per_example_grads(lib: Lib, quick: bool) -> Program:
    """Per-example gradients of an MLP: jit(vmap(grad)) over the batch."""
    batch = 8 if quick else 256
    sizes = [(32, 64), (64, 64), (64, 10)]
    rng = np.random.default_rng(0)
    params = [
        (rng.standard_normal(s).astype(np.float32) / np.sqrt(s[0]), np.zeros(s[1], np.float32))
        for s in sizes
    ]
    xs = rng.standard_normal((batch, 32)).astype(np.float32)
    ys = rng.standard_normal((batch, 10)).astype(np.float32)
    jnp = lib.jnp

    def loss(params, x, y):
        h = x
        for w, b in params[:-1]:
            h = jnp.tanh(jnp.dot(h, w) + b)
        w, b = params[-1]
        return jnp.sum((jnp.dot(h, w) + b - y) ** 2)

    fn = lib.top.vmap(lib.top.grad(loss), in_axes=(None, 0, 0))
    return Program(fn, (_put(lib, params), jnp.asarray(xs), jnp.asarray(ys)))


def vae(lib: Lib, quick: bool) -> Program:
    """A VAE-style step: one bernoulli draw of binarised images feeding 100 slices of the
    reconstruction loss, and normal noise for the reparameterisation."""
    batch, image, hidden, latent = (2, 16, 8, 2) if quick else (8, 784, 256, 16)
    slices = 4 if quick else 100
    rng = np.random.default_rng(0)

    def dense(n_in, n_out):
        return (
            rng.standard_normal((n_in, n_out)).astype(np.float32) / np.sqrt(n_in),
            np.zeros(n_out, np.float32),
        )

    params = {
        "enc": dense(image, hidden),
        "mu": dense(hidden, latent),
        "logvar": dense(hidden, latent),
        "dec1": dense(latent, hidden),
        "dec2": dense(hidden, image),
    }
    x = rng.uniform(size=(batch * slices, image)).astype(np.float32)
    jnp, random, nn = lib.jnp, lib.random, lib.top.nn

    def apply(p, h):
        w, b = p
        return h @ w + b

    def loss(params, x, key):
        k_bin, k_eps = random.split(key)
        binary = random.bernoulli(k_bin, x).astype(jnp.float32)  # one draw, 100 consumers
        h = nn.relu(apply(params["enc"], binary))
        mu, logvar = apply(params["mu"], h), apply(params["logvar"], h)
        z = mu + jnp.exp(0.5 * logvar) * random.normal(k_eps, mu.shape)
        logits = apply(params["dec2"], nn.relu(apply(params["dec1"], z)))
        total = -0.5 * jnp.sum(1 + logvar - mu**2 - jnp.exp(logvar))
        for i in range(slices):
            xb, lb = binary[i * batch : (i + 1) * batch], logits[i * batch : (i + 1) * batch]
            total = total + jnp.sum(nn.softplus(lb) - xb * lb)
        return total / (batch * slices)

    key = random.PRNGKey(0)
    return Program(_sgd(lib, loss), (_put(lib, params), jnp.asarray(x), key))


PROGRAMS: dict[str, Callable[[Lib, bool], Program]] = {
    "mlp": mlp,
    "cnn": cnn,
    "transformer-2": transformer2,
    "transformer-12": transformer12,
    "scan-rnn": scan_rnn,
    "per-example-grads": per_example_grads,
    "vae": vae,
}
