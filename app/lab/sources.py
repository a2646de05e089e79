"""The lab's data sources: a synthetic observation, a MeasurementSet (no Qt).

Each source is a generator that yields :class:`~uvlab.app.lab.jobs.Progress`
and :class:`~uvlab.app.lab.jobs.Partial` events and returns imaging-ready
:class:`~uvlab.app.lab.samples.Samples` (``samples = yield from ...``):

- :func:`~uvlab.app.lab.synthetic_source.iter_synthetic`
  (:mod:`~uvlab.app.lab.synthetic_source`) simulates the request's observation
  and predicts its sky in time chunks, with a preview image and the uv tracks
  so far after each (at most every
  :data:`~uvlab.app.lab.synthetic_preview.PREVIEW_INTERVAL_S`); a synthetic
  request is sized before anything is simulated
  (:func:`~uvlab.app.lab.sizing.check_job_memory`, :mod:`~uvlab.app.lab.sizing`
  with the time chunks);
- :func:`~uvlab.app.lab.ms_source.iter_measurement_set`
  (:mod:`~uvlab.app.lab.ms_source`) opens an MS (its summary first, as an
  urgent partial) and reads the selection.

The sky goes to the engine through
:meth:`~uvlab.app.skymodel.SkyModel.sources_for`: a relative sky (a demo
sky) is first moved to the phase centre of the data (the observation's, the
MS field's), an absolute one (a sky file) stays where it is. When every
component of the sky lies outside the image, the first partial carries a
one-line warning (:func:`~uvlab.app.lab.image_notes.outside_image_note`,
:mod:`~uvlab.app.lab.image_notes`).

What does not depend on the imaging choices (the observation, the predicted
visibilities, an MS's summary and data) is kept in the
:class:`~uvlab.app.lab.samples.WorkCache`. :func:`iter_samples` picks the
request's source; :func:`read_samples` runs it to the end for the commands.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from uvlab.app.lab.jobs import JobRequest, Partial, Progress, run_to_end
from uvlab.app.lab.ms_source import iter_measurement_set
from uvlab.app.lab.samples import Samples, WorkCache
from uvlab.app.lab.synthetic_source import iter_synthetic

#: The part of a job's progress its source takes (the task has the rest).
SHARE = {"synthetic": 0.7, "ms": 0.6}

Report = Callable[[float, str], None]


def iter_samples(
    request: JobRequest,
    cache: WorkCache,
    cancelled=None,
    report: Report | None = None,
    stream: bool = False,
) -> Iterator:
    """The request's source (synthetic or MS); returns its Samples (``yield from``).

    ``stream``: an MS the memory cannot hold gives a
    :class:`~uvlab.app.lab.ms_streamed.Streamed` instead of being refused.
    """
    if request.source == "synthetic":
        return (yield from iter_synthetic(request, cache, cancelled))
    return (yield from iter_measurement_set(request, cache, cancelled, report, stream))


def read_samples(
    request: JobRequest,
    cache: WorkCache | None = None,
    progress: Report | None = None,
    warn: Callable[[str], None] | None = None,
) -> Samples:
    """The request's Samples, its source run to the end (the commands), on the host.

    ``progress(fraction, stage)`` follows the source's progress; ``warn(line)``
    gets each warning it gives (e.g. non-finite values flagged).
    """
    share = SHARE[request.source]
    notify = progress or (lambda f, s: None)

    def report(fraction: float, stage: str) -> None:
        notify(min(1.0, fraction / share), stage)

    def on_event(event) -> None:
        if isinstance(event, Progress):
            report(event.fraction, event.stage)
        elif isinstance(event, Partial) and event.warning and warn is not None:
            warn(event.warning)

    samples = run_to_end(iter_samples(request, cache or WorkCache(), None, report), on_event)
    return samples.on_host()
