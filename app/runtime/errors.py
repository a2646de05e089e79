"""Exceptions shared across uvlab's application layer."""


class Cancelled(Exception):
    """Work stopped because its caller asked it to (``cancelled()`` returned True)."""


class UsageError(ValueError):
    """The request itself is wrong (a bad option value): the CLI exits with status 2."""
