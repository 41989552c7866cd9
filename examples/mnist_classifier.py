"""An MLP classifier of handwritten digits, trained from scratch with stax and optimizers.

JAX's `examples/mnist_classifier.py` on the digits scikit-learn ships (8x8 images, so nothing to
download):

    pip install "stablax[examples]"
    python examples/mnist_classifier.py          # 30 epochs, about 97-98% test accuracy
    python examples/mnist_classifier.py --quick  # 3 epochs
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from digits_data import batches, digits
from tqdm import tqdm

import stablax as jax
import stablax.numpy as jnp
from stablax import grad, jit, random
from stablax.example_libraries import optimizers, stax
from stablax.example_libraries.stax import Dense, Flatten, LogSoftmax, Relu

init_random_params, predict = stax.serial(
    Flatten, Dense(256), Relu, Dense(256), Relu, Dense(10), LogSoftmax
)


def loss(params, batch):
    inputs, targets = batch
    preds = predict(params, inputs)
    return -jnp.mean(jnp.sum(preds * targets, axis=1))


@jit
def accuracy(params, batch):
    inputs, targets = batch
    predicted_class = jnp.argmax(predict(params, inputs), axis=1)
    return jnp.mean(predicted_class == jnp.argmax(targets, axis=1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 epochs (a few seconds)")
    parser.add_argument("--epochs", type=int, default=None)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--step-size", type=float, default=1e-3)
    args = parser.parse_args()
    num_epochs = args.epochs or (3 if args.quick else 30)

    train_images, train_labels, test_images, test_labels = digits()
    print(f"digits: {len(train_images)} training and {len(test_images)} test images of 8x8, "
          f"on {jax.devices()[0]}")  # fmt: skip

    opt_init, opt_update, get_params = optimizers.adam(args.step_size)

    @jit
    def update(i, opt_state, batch):
        params = get_params(opt_state)
        return opt_update(i, grad(loss)(params, batch), opt_state)

    _, init_params = init_random_params(random.PRNGKey(0), (-1, 8, 8, 1))
    opt_state = opt_init(init_params)
    data_rng = np.random.default_rng(0)
    steps_per_epoch = len(train_images) // args.batch_size
    step = 0
    start = time.perf_counter()
    for epoch in range(1, num_epochs + 1):
        epoch_start = time.perf_counter()
        progress = tqdm(
            batches(train_images, train_labels, args.batch_size, data_rng),
            total=steps_per_epoch,
            desc=f"epoch {epoch:2d}/{num_epochs}",
            leave=False,  # the epoch's summary line replaces the bar
            disable=None,  # shown on a terminal, not in a log
            ncols=80,
        )
        for batch in progress:
            opt_state = update(step, opt_state, batch)
            step += 1
        params = get_params(opt_state)
        train_acc = float(accuracy(params, (train_images, train_labels)))
        test_acc = float(accuracy(params, (test_images, test_labels)))
        epoch_time = time.perf_counter() - epoch_start
        print(f"epoch {epoch:2d} in {epoch_time:5.2f} s   train accuracy {train_acc:.4f}   "
              f"test accuracy {test_acc:.4f}")  # fmt: skip
    total = time.perf_counter() - start
    print(f"trained {num_epochs} epochs ({step} steps) in {total:.1f} s: "
          f"test accuracy {test_acc:.2%}")  # fmt: skip


if __name__ == "__main__":
    main()
