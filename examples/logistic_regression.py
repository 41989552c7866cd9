"""The first JAX README's toy example: logistic regression trained by gradient descent.

python examples/logistic_regression.py
"""

from __future__ import annotations

import stablax.numpy as np
from stablax import grad, jit


def sigmoid(x):
    return 0.5 * (np.tanh(x / 2.0) + 1)


# Outputs probability of a label being true according to logistic model.
def logistic_predictions(weights, inputs):
    return sigmoid(np.dot(inputs, weights))


# Training loss is the negative log-likelihood of the training labels.
def loss(weights, inputs, targets):
    preds = logistic_predictions(weights, inputs)
    label_probs = preds * targets + (1 - preds) * (1 - targets)
    return -np.sum(np.log(label_probs))


# Build a toy dataset.
inputs = np.array([[0.52, 1.12, 0.77],
                   [0.88, -1.08, 0.15],
                   [0.52, 0.06, -1.30],
                   [0.74, -2.49, 1.39]])  # fmt: skip
targets = np.array([True, True, False, True])

# Define a compiled function that returns gradients of the training loss
training_gradient_fun = jit(grad(loss))

# Optimize weights using gradient descent.
weights = np.array([0.0, 0.0, 0.0])
print(f"Initial loss: {loss(weights, inputs, targets):0.2f}")
for _ in range(100):
    weights -= 0.1 * training_gradient_fun(weights, inputs, targets)

print(f"Trained loss: {loss(weights, inputs, targets):0.2f}")
print("Weights:", weights)
