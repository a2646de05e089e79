"""uvlab.app: application layer (data model, MS I/O, CLI, Qt application)."""

from uvlab.app._version import __version__

__all__ = ["__version__"]
