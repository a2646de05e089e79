"""Benchmarks of the compute engine (pure NumPy/CuPy logic; the CLI is ``uvlab bench``)."""
