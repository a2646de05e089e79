"""What the views computed only on request (Aliasing, Compare) share: their note's state.

A class using :class:`OnDemand` has a ``note`` QLabel and sets ``_computed``
when it shows a result; it names its texts in ``NOT_COMPUTED`` and ``STALE``.
"""

from __future__ import annotations


class OnDemand:
    """``is_computed`` and ``mark_stale`` for a view computed on request."""

    NOT_COMPUTED = ""
    STALE = ""
    _computed = False

    def is_computed(self) -> bool:
        return self._computed

    def mark_stale(self) -> None:
        """The parameters changed: what is shown (if anything) no longer applies."""
        self.note.setText(self.STALE if self._computed else self.NOT_COMPUTED)
