"""scipy.sparse.linalg: iterative solvers (cg, bicgstab, gmres)."""
