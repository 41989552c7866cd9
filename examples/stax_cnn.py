"""A small convolutional network on the handwritten digits, trained with stax and adam.

pip install "stablax[examples]"
python examples/stax_cnn.py          # 10 epochs, about 98-99% test accuracy
python examples/stax_cnn.py --quick  # 1 epoch
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from digits_data import batches, digits

import stablax as jax
import stablax.numpy as jnp
from stablax import jit, random, value_and_grad
from stablax.example_libraries import optimizers, stax
from stablax.example_libraries.stax import Conv, Dense, Flatten, LogSoftmax, MaxPool, Relu

init_fun, apply_fun = stax.serial(
    Conv(16, (3, 3), padding="SAME"), Relu,
    Conv(32, (3, 3), padding="SAME"), Relu,
    MaxPool((2, 2), strides=(2, 2)), Flatten,
    Dense(64), Relu,
    Dense(10), LogSoftmax,
)  # fmt: skip


def loss(params, batch):
    images, labels = batch
    return -jnp.mean(jnp.sum(apply_fun(params, images) * labels, axis=1))


@jit
def accuracy(params, images, labels):
    return jnp.mean(jnp.argmax(apply_fun(params, images), 1) == jnp.argmax(labels, 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1 epoch (a few seconds)")
    args = parser.parse_args()
    num_epochs = 1 if args.quick else 10

    train_images, train_labels, test_images, test_labels = digits()
    out_shape, params = init_fun(random.PRNGKey(0), (-1, 8, 8, 1))
    num_params = sum(p.size for p in jax.tree_util.tree_leaves(params))
    print(f"CNN with {num_params} parameters and {out_shape[-1]} outputs, on {jax.devices()[0]}")
    opt_init, opt_update, get_params = optimizers.adam(1e-3)

    @jit
    def update(i, opt_state, batch):
        value, grads = value_and_grad(loss)(get_params(opt_state), batch)
        return value, opt_update(i, grads, opt_state)

    opt_state = opt_init(params)
    data_rng = np.random.default_rng(0)
    step = 0
    start = time.perf_counter()
    for epoch in range(1, num_epochs + 1):
        epoch_start = time.perf_counter()
        losses = []
        for batch in batches(train_images, train_labels, 32, data_rng):
            value, opt_state = update(step, opt_state, batch)
            losses.append(value)
            step += 1
        test_acc = float(accuracy(get_params(opt_state), test_images, test_labels))
        print(f"epoch {epoch:2d} in {time.perf_counter() - epoch_start:5.2f} s   "
              f"mean loss {float(jnp.mean(jnp.stack(losses))):.4f}   "
              f"test accuracy {test_acc:.4f}")  # fmt: skip
    print(f"trained {num_epochs} epochs in {time.perf_counter() - start:.1f} s: "
          f"test accuracy {test_acc:.2%}")  # fmt: skip


if __name__ == "__main__":
    main()
