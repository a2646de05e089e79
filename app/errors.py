"""Exceptions shared across uvlab's application layer."""


class Cancelled(Exception):
    """Work stopped because its caller asked it to (``cancelled()`` returned True)."""
