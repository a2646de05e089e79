"""Visibility prediction (the measurement equation), NumPy and CuPy backends."""
