"""scipy.signal: convolutions and spectral analysis."""
