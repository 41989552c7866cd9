"""The handwritten digits the examples train on: scikit-learn's bundled copy of the UCI digits
(1,797 8x8 images in 16 grey levels, no download), split into fixed train and test sets.

Needs the `examples` extra: pip install "stablax[examples]".
"""

from __future__ import annotations

import numpy as np


def digits(test_fraction: float = 0.2, seed: int = 0):
    """The digits as float32 images in [0, 1] and one-hot labels, split once with `seed`.

    Args:
      test_fraction: the share of images held out for testing.
      seed: the seed of the shuffle that makes the split.

    Returns:
      `(train_images, train_labels, test_images, test_labels)`; images have shape
      `(n, 8, 8, 1)` and labels `(n, 10)`.
    """
    try:
        from sklearn.datasets import load_digits
    except ImportError as err:
        raise SystemExit(
            'this example needs scikit-learn: pip install "stablax[examples]"'
        ) from err
    data = load_digits()
    images = (data.images / 16.0).astype(np.float32)[..., None]
    labels = np.eye(10, dtype=np.float32)[data.target]
    order = np.random.default_rng(seed).permutation(len(images))
    n_test = int(round(test_fraction * len(images)))
    test, train = order[:n_test], order[n_test:]
    return images[train], labels[train], images[test], labels[test]


def batches(images, labels, batch_size: int, rng: np.random.Generator):
    """Shuffled minibatches of one epoch (the last, smaller batch is dropped)."""
    order = rng.permutation(len(images))
    for start in range(0, len(images) - batch_size + 1, batch_size):
        picked = order[start : start + batch_size]
        yield images[picked], labels[picked]
