"""Jobs: the frozen request the controller submits, the events and the result (STYLE §3).

On the GUI thread the controller freezes the panels into a :class:`JobRequest`
(everything the worker needs, immutable, with a fresh ``job_id``). The worker
iterates the generator :func:`uvlab.app.lab.live.iter_job` gives for it, which
yields :class:`Progress` and :class:`Partial` events and finally one
:class:`Done`; the worker wraps the output in a :class:`JobResult`.

Nothing here imports Qt. The imaging choices are an
:class:`~uvlab.app.lab.imaging.ImagingOptions`. A new job type needs a task
name here, an output dataclass, and a branch in ``live.iter_job`` (as
``compare`` has: :mod:`uvlab.app.lab.compare_task`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from uvlab.app.lab.imaging import (
    COMPARE_REPEATS,
    DEVICES,
    INTERACTIVE_THREADS,
    MAX_REPEATS,
    ImagingOptions,
)
from uvlab.app.skymodel import SkyModel
from uvlab.gpu.gridders.registry import EXACT_GCF, grids

if TYPE_CHECKING:
    from uvlab.app.lab.corruptions import BeamMap, Corruptions, NoiseReport
    from uvlab.app.observing.observation import ObservationSpec
    from uvlab.app.skymodel.image_sky import ImageSky
    from uvlab.gpu.deconvolution.options import CleanOptions
    from uvlab.gpu.gridders.params import GridParams
    from uvlab.gpu.image_spec import ImageSpec

_JOB_IDS = itertools.count(1)

#: Where the visibilities come from.
SOURCES = ("synthetic", "ms")
#: What to compute ("image": dirty image + PSF; "aliasing": error maps; "compare":
#: several imaging entries against the DFT; "clean": CLEAN, live per cycle).
TASKS = ("image", "aliasing", "compare", "clean")


def next_job_id() -> int:
    """A new job id (increasing, process-wide)."""
    return next(_JOB_IDS)


@dataclass(frozen=True)
class MSSelection:
    """Which data of a MeasurementSet to image.

    ``field`` is a FIELD_ID or a field's name; ``channels`` is ``(start, stop)``
    of the window's channels (stop None: to the end), or None for all.
    ``stokes`` ``"auto"`` is what the MS holds: I when its correlations form it,
    else the first correlation (:func:`uvlab.app.ms.stokes.default_stokes`).
    ``uvrange`` is ``(min, max)`` of √(u²+v²) in wavelengths (max None: no upper
    limit): samples outside it are flagged when read, per channel.
    ``timerange`` (CASA syntax), ``interval`` (timesteps ``(A, B)``, B excluded) and
    ``antenna`` (CASA syntax) select rows (:mod:`uvlab.app.ms.rowselect`);
    ``phase_centre`` (RA, Dec), degrees, re-phases the rows read to that centre
    (:mod:`uvlab.app.ms.phaseshift`).
    """

    path: str
    field: int | str = 0
    spw: int = 0
    column: str = "DATA"
    stokes: str = "auto"
    channels: tuple[int, int | None] | None = None
    uvrange: tuple[float, float | None] | None = None
    timerange: str | None = None
    interval: tuple[int, int] | None = None
    antenna: str | None = None
    phase_centre: tuple[float, float] | None = None

    def __post_init__(self):
        for name in ("channels", "interval", "phase_centre"):  # JSON lists, from a session file
            if getattr(self, name) is not None:
                object.__setattr__(self, name, tuple(getattr(self, name)))
        if self.uvrange is not None:
            lo, hi = tuple(self.uvrange)
            if not lo >= 0 or (hi is not None and not hi > lo):
                raise ValueError(f"uv range must be 0 ≤ min < max wavelengths, got {lo} … {hi}")
            object.__setattr__(self, "uvrange", (float(lo), None if hi is None else float(hi)))


@dataclass(frozen=True)
class JobRequest:
    """Everything one job needs, frozen on the GUI thread.

    Attributes
    ----------
    source : {"synthetic", "ms"}
    imaging : ImagingOptions
    device : {"auto", "cpu", "gpu"}
    observation : ObservationSpec or None
        The synthetic observation (its layout may be a modified ArrayLayout).
    sky : SkyModel
        Components predicted for a synthetic observation (and drawn as the model image).
    smearing : bool
        Apply time and bandwidth smearing to the prediction.
    ms : MSSelection or None
    task : {"image", "aliasing", "compare"}
    preview : bool
        Stream a preview image per time chunk while predicting.
    job_id : int
        From :func:`next_job_id`; newest wins.
    compare : tuple of ImagingOptions
        The entries of a ``compare`` task (gridders; the window gives two or more).
    match : int or None
        ``compare`` only: after the comparison, find the exact-ES ``conv``
        setting whose measured error matches that of entry ``compare[match]``
        (any entry but an exact-ES conv: another algorithm, or conv with a
        kernel table) and add it to the comparison
        (:mod:`uvlab.app.lab.conv_match`).
    threads : int
        CPU threads of the ducc0 gridder for the ``aliasing`` and ``compare``
        tasks: by default every core but one (the window's); 0 uses every core
        (the commands). The ``image`` task grids on every core
        (:data:`uvlab.app.lab.imaging.IMAGING_THREADS`): it takes ~0.1 s and the
        window has nothing to draw until it ends.
    spec : ImageSpec or None
        The image geometry, exactly, when the caller chose it from the data
        (``uvlab image``: the size from the dish diameter, the cell from the
        unflagged baselines); its ``npix`` must be ``imaging.npix``. None: from
        ``imaging``'s npix and cell, as the window does.
    params : GridParams or None
        The gridder parameters of ``imaging``, exactly as given (``uvlab image``'s
        ``--kernel``, ``--eps``, ``--support``, ``--oversample`` and ``--precision``,
        which ``imaging``'s fields cannot all express: a support with ε, the
        gridding precision); they replace those that ``imaging``'s kernel,
        kernel_size, eps, support, oversample, sigma and ``threads`` give, and with
        ``precision="single"`` the samples are imaged as complex64. None: from
        ``imaging``.
    clean : CleanOptions or None
        The ``clean`` task's options (None: the defaults).
    clean_mask : (N, N) bool or None
        The ``clean`` task's mask array (a FITS mask read:
        :meth:`uvlab.app.lab.state.CleanRecord.mask`), with ``clean.mask_boxes``.
    image_sky : ImageSky or None
        A picture or FITS image sky, predicted (by degridding) on top of
        ``sky``'s components for a synthetic observation, and drawn in the
        model image.
    corruptions : Corruptions or None
        A synthetic observation's primary beam, gain errors and thermal noise
        (:mod:`uvlab.app.lab.corruptions`); None or all off: none.
    repeats : int
        ``compare`` only: timed runs of each entry, 1 … :data:`MAX_REPEATS`
        (the median and the spread are shown).
    """

    source: str
    imaging: ImagingOptions
    device: str = "auto"
    observation: ObservationSpec | None = None
    sky: SkyModel = field(default_factory=SkyModel)
    smearing: bool = True
    ms: MSSelection | None = None
    task: str = "image"
    preview: bool = True
    job_id: int = field(default_factory=next_job_id)
    compare: tuple[ImagingOptions, ...] = ()
    match: int | None = None
    threads: int = INTERACTIVE_THREADS
    spec: ImageSpec | None = None
    params: GridParams | None = None
    clean: CleanOptions | None = None
    clean_mask: np.ndarray | None = field(default=None, compare=False)
    image_sky: ImageSky | None = None
    corruptions: Corruptions | None = None
    repeats: int = COMPARE_REPEATS

    def grid_params(self, options: ImagingOptions | None = None):
        """The GridParams of ``options`` (default the job's imaging) with the job's threads.

        For the job's imaging, ``params`` when given (the DFT has none).
        """
        if options is None and self.params is not None:
            return self.params if grids(self.imaging.algorithm) else None
        return (options or self.imaging).grid_params(self.threads)

    def __post_init__(self):
        if self.source not in SOURCES:
            raise ValueError(f"unknown data source {self.source!r}")
        if self.task not in TASKS:
            raise ValueError(f"unknown task {self.task!r}")
        if self.device not in DEVICES:
            raise ValueError(f"device must be one of {', '.join(DEVICES)}, got {self.device!r}")
        if self.source == "synthetic" and self.observation is None:
            raise ValueError("a synthetic job needs an observation")
        if self.source == "ms" and self.ms is None:
            raise ValueError("no MeasurementSet opened: use File → Open MeasurementSet…")
        if self.task == "compare" and not self.compare:
            raise ValueError("compare needs entries to compare (Compare tab of the controls)")
        if not 1 <= self.repeats <= MAX_REPEATS or int(self.repeats) != self.repeats:
            raise ValueError(f"timed runs per entry must be 1–{MAX_REPEATS}, got {self.repeats}")
        if self.match is not None:
            if self.task != "compare" or not 0 <= self.match < len(self.compare):
                raise ValueError(f"match {self.match} is not one of the compare entries")
            target = self.compare[self.match]
            if target.algorithm == EXACT_GCF and target.kernel_size == "eps":
                raise ValueError("an exact-ES conv entry needs no conv to match it")
        m = self.clean_mask
        if m is not None and m.shape != (self.imaging.npix, self.imaging.npix):
            raise ValueError(
                f"the CLEAN mask's {m.shape[1]} × {m.shape[0]} pixels are not the image's "
                f"{self.imaging.npix} × {self.imaging.npix}"
            )
        if self.spec is not None and self.spec.npix != self.imaging.npix:
            raise ValueError(
                f"the image geometry's {self.spec.npix} pixels are not the imaging's "
                f"{self.imaging.npix}"
            )


# --------------------------------------------------------------------- events
@dataclass(frozen=True)
class Progress:
    """Fraction done in [0, 1] and the stage being worked on."""

    fraction: float
    stage: str


def run_to_end(events: Iterator, on_event: Callable[[object], None] | None = None):
    """Run a generator to its end, handing each event to ``on_event``; its return value."""
    while True:
        try:
            event = next(events)
        except StopIteration as stop:
            return stop.value
        if on_event is not None:
            on_event(event)


def within(events: Iterator, lo: float, hi: float, prefix: str = "") -> Iterator:
    """Re-yield a step's Progress events in [lo, hi] of a job's; returns the step's value.

    For a step that reports its own fractions in [0, 1] (as
    :func:`uvlab.app.lab.compare.iter_comparison` does): ``yield from within(...)``.
    """
    while True:
        try:
            event = next(events)
        except StopIteration as stop:
            return stop.value
        if isinstance(event, Progress):
            event = Progress(lo + (hi - lo) * event.fraction, prefix + event.stage)
        yield event


@dataclass(frozen=True, eq=False)
class UvData:
    """Sampled uv points (one row per baseline and time), for the uv view.

    u_m, v_m, time : (row,) float; baseline : (row,) int; freq_hz : (chan,) float;
    of_rows : int or None, the rows these are a subsample of (an MS streamed in row
    chunks, :mod:`uvlab.app.lab.ms_streamed`); None: every row.
    """

    u_m: np.ndarray
    v_m: np.ndarray
    freq_hz: np.ndarray
    time: np.ndarray
    baseline: np.ndarray
    of_rows: int | None = None

    @property
    def nrow(self) -> int:
        return int(self.u_m.size)


@dataclass(frozen=True, eq=False)
class Antennas:
    """Antenna positions for the array view: enu (n, 3) m, names, diameters (n,) m.

    ``subarray`` (n,) int or None: the configuration of each antenna of a combined
    layout (baselines join one configuration's antennas only).
    """

    enu: np.ndarray
    names: tuple[str, ...]
    diameter_m: np.ndarray
    subarray: np.ndarray | None = None


@dataclass(frozen=True, eq=False)
class Partial:
    """A partial result: any of the uv so far, a preview image, the MS summary.

    ``urgent`` partials (the MS summary, a warning) bypass the worker's rate limit.
    ``warning`` is one line for the log, e.g. how many non-finite values were flagged.
    """

    stage: str
    fraction: float
    uv: UvData | None = None
    dirty: np.ndarray | None = None
    spec: ImageSpec | None = None
    info: object | None = None
    antennas: Antennas | None = None
    urgent: bool = False
    warning: str | None = None
    clean: object | None = None  # a CleanState of the ``clean`` task


@dataclass(frozen=True, eq=False)
class ImageOutput:
    """The complete result of an ``image`` job (all arrays NumPy)."""

    source: str
    spec: ImageSpec
    dirty: np.ndarray
    psf: np.ndarray
    model: np.ndarray
    uv: UvData
    antennas: Antennas | None
    ra0_rad: float
    dec0_rad: float
    freq_hz: np.ndarray
    algorithm: str
    device: str
    nvis: int
    nsrc: int
    sum_weights: float
    timing: dict
    info: object | None = None
    description: str = ""
    sources_lm: np.ndarray | None = None  # (nsrc, 2) direction cosines of the sky components
    # |FT(model)| on the uv grid of the image (:func:`uvlab.app.lab.fourier_plane.sky_amplitude`)
    model_ft: np.ndarray | None = None
    # the image noise, expected and measured (synthetic data; :mod:`uvlab.app.lab.corruptions`)
    noise: NoiseReport | None = None
    beam: BeamMap | None = None  # the power beam over the field, when one is on


@dataclass(frozen=True, eq=False)
class AliasingOutput:
    """The result of an ``aliasing`` job.

    error : (N, N) or None, ``|I − I_dft|/peak`` (None when the DFT was too costly)
    metrics : dict, ``rms_central``, ``rms_full``, ``max_error`` (may be empty)
    analytic : (M, M) or None, the data-independent bound on ``analytic_spec``'s grid
    scan_x, scan_r : (k,) the R(X) point-source scan
    notes : what was skipped or approximated, one line each
    analytic_spec : ImageSpec of ``analytic`` (every k-th pixel of ``spec``)
    """

    spec: ImageSpec
    algorithm: str
    error: np.ndarray | None
    metrics: dict
    analytic: np.ndarray | None
    scan_x: np.ndarray
    scan_r: np.ndarray
    notes: tuple[str, ...] = ()
    analytic_spec: ImageSpec | None = None


@dataclass(frozen=True)
class Done:
    """The last event of a job: its output."""

    output: object


@dataclass(frozen=True, eq=False)
class JobResult:
    """What the worker emits when a job completes (never for a cancelled job)."""

    job_id: int
    task: str
    output: object
    elapsed_s: float
    request: JobRequest | None = None
