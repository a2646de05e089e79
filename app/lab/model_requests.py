"""The job requests of a :class:`~uvlab.app.lab.state.LabModel`: what the controller freezes.

The window's controller is given a :class:`ModelRequests`: each submit makes the
:class:`~uvlab.app.lab.jobs.JobRequest` of the model's current state
(:func:`~uvlab.app.lab.state.job_request`, a pure function), never reading the
panels back. Two things a state does not hold travel beside it:

- an edit a front end could not make a record of (a field that does not parse, a
  Compare entry the gridder refuses) is *refused*: while one is, every request
  raises ValueError with its message, as the front end shows it;
- an image sky is read from its file once per source: the panel that loaded it
  hands it over (:meth:`ModelRequests.keep_image_sky`), and a request of a state with
  the same source uses it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from uvlab.app.lab.state import job_request

if TYPE_CHECKING:
    from uvlab.app.lab.jobs import JobRequest
    from uvlab.app.lab.session import ImageSkySource
    from uvlab.app.lab.state import LabModel, LabState


class ModelRequests:
    """``requests(task)``: the JobRequest of ``model``'s current state.

    Parameters
    ----------
    model : LabModel
    match : callable(task) -> int or None, optional
        The Compare entry a ``compare`` job should find a matching conv for
        (``JobRequest.match``; the window's Compare mode says which, per job).
    """

    def __init__(self, model: LabModel, *, match: Callable[[str], int | None] | None = None):
        self.model = model
        self.match = match or (lambda task: None)
        self._refused: dict[str, str] = {}
        self._image_sky: tuple[ImageSkySource, object] | None = None

    def __call__(self, task: str = "image") -> JobRequest:
        """The request of the current state (ValueError: a refused edit, or a bad state)."""
        if self._refused:
            raise ValueError(next(iter(self._refused.values())))
        state = self.model.state
        return job_request(state, task, match=self.match(task), image_sky=self.image_sky(state))

    # ------------------------------------------------------------ refusals
    def refuse(self, part: str, message: str) -> None:
        """A front end holds an edit of ``part`` (a record's name) it could not record."""
        self._refused[part] = message

    def accept(self, part: str | None = None) -> None:
        """``part``'s edit was recorded (None: every part; the front end shows the model)."""
        if part is None:
            self._refused.clear()
        else:
            self._refused.pop(part, None)

    def refused(self) -> dict[str, str]:
        """The refused edits: part → message."""
        return dict(self._refused)

    # ------------------------------------------------------------ image sky
    def keep_image_sky(self, source: ImageSkySource | None, sky) -> None:
        """Remember ``sky`` (an ImageSky) as what ``source`` reads to."""
        self._image_sky = None if source is None or sky is None else (source, sky)

    def image_sky(self, state: LabState):
        """The ImageSky of ``state``'s sky record (read once per source), or None."""
        source = state.sky.image_sky
        if source is None:
            return None
        if self._image_sky is None or self._image_sky[0] != source:
            self._image_sky = (source, source.load())
        return self._image_sky[1]
