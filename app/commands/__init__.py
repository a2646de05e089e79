"""Subcommands of the ``uvlab`` command line."""
