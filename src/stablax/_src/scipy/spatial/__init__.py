"""scipy.spatial: rotations."""
