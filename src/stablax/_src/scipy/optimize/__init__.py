"""scipy.optimize: BFGS and L-BFGS minimization."""
