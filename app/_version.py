"""uvlab's version, single-sourced for pyproject and ``uvlab --version``."""

__version__ = "0.1.0"
