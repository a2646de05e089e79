"""A lesson and its scenes: the records Help → Lessons shows (no Qt).

Each :class:`Lesson` names its page in ``docs/`` and holds the scenes its "In the window"
steps set up, in order; each :class:`Scene` makes the
:class:`~uvlab.app.lab.session.SessionState` that step describes. The lessons themselves
are :data:`uvlab.app.lab.lessons.LESSONS`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from uvlab.app.lab.session import SessionState

#: The docs folder of a source checkout (absent from an installed wheel).
DOCS = Path(__file__).resolve().parents[2] / "docs"


@dataclass(frozen=True)
class Scene:
    """One step of a lesson: a label, what to try, and the state it loads.

    Attributes
    ----------
    title : str
        The menu entry.
    try_this : str
        A few sentences: what to look at or change once it is loaded.
    make : callable() -> SessionState
        Builds the state (its sky may be a :class:`NamedSky`, placed when resolved).
    """

    title: str
    try_this: str
    make: Callable[[], SessionState]

    def state(self) -> SessionState:
        """The scene's state, its sky resolved (what the window shows)."""
        return self.make().resolved()


@dataclass(frozen=True)
class Lesson:
    """A docs page and the scenes of its "In the window" steps.

    Attributes
    ----------
    title : str
    page : str
        The page's file name in ``docs/`` (e.g. ``"lesson-aliasing.md"``).
    try_this : str
        What the lesson is about, in one or two sentences.
    scenes : tuple of Scene
    """

    title: str
    page: str
    try_this: str
    scenes: tuple[Scene, ...]

    def page_path(self) -> Path | None:
        """The page in a source checkout's ``docs/``, or None when it is not there."""
        path = DOCS / self.page
        return path if path.is_file() else None
