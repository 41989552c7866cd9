"""stablax.scipy.stats's implementation: one module per distribution, plus mode, rankdata,
sem and gaussian_kde."""
