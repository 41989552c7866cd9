"""scipy.linalg: decompositions, solvers, matrix functions and special matrices."""
