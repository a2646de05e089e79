"""Jobs: the frozen request the controller submits, the events and the result (STYLE §3).

On the GUI thread the controller freezes the panels into a :class:`JobRequest`
(everything the worker needs, immutable, with a fresh ``job_id``). The worker
iterates the generator :func:`uvlab.app.gui.live.iter_job` gives for it, which
yields :class:`Progress` and :class:`Partial` events and finally one
:class:`Done`; the worker wraps the output in a :class:`JobResult`.

Nothing here imports Qt. A new job type needs a task name here, an output
dataclass, and a branch in ``live.iter_job`` (as ``compare`` has:
:mod:`uvlab.app.gui.compare_task`).
"""

from __future__ import annotations

import itertools
import os
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from uvlab.app.skymodel import SkyModel

if TYPE_CHECKING:
    from uvlab.app.observation import ObservationSpec
    from uvlab.gpu.gridders.params import GridParams
    from uvlab.gpu.imaging.spec import ImageSpec
    from uvlab.gpu.imaging.weighting import Weighting

_JOB_IDS = itertools.count(1)

#: Where the visibilities come from.
SOURCES = ("synthetic", "ms")
#: What to compute ("image": dirty image + PSF; "aliasing": error maps; "compare":
#: several imaging entries against the DFT).
TASKS = ("image", "aliasing", "compare")
#: Imaging algorithms offered: the exact DFT, then the gridders (DESIGN §2 order).
ALGORITHMS = ("dft", "conv", "nn", "nn-oversampled", "hybrid", "pruned-nn")
KERNELS = ("es", "kb", "pswf", "gauss", "lm")
PRECISIONS = ("single", "double")
DEVICES = ("auto", "cpu", "gpu")
#: CPU gridding threads in the GUI: every core but one, which stays with the window.
INTERACTIVE_THREADS = max(1, (os.cpu_count() or 2) - 1)


def next_job_id() -> int:
    """A new job id (increasing, process-wide)."""
    return next(_JOB_IDS)


@dataclass(frozen=True)
class ImagingOptions:
    """Imaging choices of the GUI (a superset of :class:`uvlab.app.scene.ImagingSettings`).

    Attributes
    ----------
    npix : int
        Image side, even, 16–16384 pixels.
    cell_arcsec : float or None
        Pixel size; None chooses 1/(3·u_max) from the data.
    weighting, robust, taper_arcsec
        As :class:`uvlab.gpu.imaging.weighting.Weighting`.
    algorithm : str
        One of :data:`ALGORITHMS`.
    kernel : str
        GCF of ``conv`` and ``hybrid``.
    accuracy : {"eps", "support"}
        Choose the kernel support from ε (ES kernel, exact evaluation) or give it.
    eps : float
        Requested accuracy ε, in (0, 1).
    support : int
        GCF support S, cells (with ``accuracy="support"``).
    oversample : int
        β: kernel-table oversampling, the uv oversampling of the NN variants
        (even and ≥ 4 for ``hybrid`` and ``pruned-nn``).
    padding : float
        Grid padding σ in [1, 4].
    precision : {"single", "double"}
        Working precision of the prediction.
    """

    npix: int = 256
    cell_arcsec: float | None = None
    weighting: str = "natural"
    robust: float = 0.0
    taper_arcsec: float = 0.0
    algorithm: str = "conv"
    kernel: str = "es"
    accuracy: str = "eps"
    eps: float = 1e-5
    support: int = 7
    oversample: int = 16
    padding: float = 2.0
    precision: str = "double"

    def __post_init__(self):
        def bad(what: str):
            raise ValueError(what)

        if int(self.npix) != self.npix or self.npix % 2 or not 16 <= self.npix <= 16384:
            bad(f"image size must be an even number of pixels in 16–16384, got {self.npix}")
        if self.cell_arcsec is not None and not (
            np.isfinite(self.cell_arcsec) and self.cell_arcsec > 0
        ):
            bad(f"cell size must be > 0 arcsec (or auto), got {self.cell_arcsec}")
        if self.algorithm not in ALGORITHMS:
            bad(f"unknown algorithm {self.algorithm!r}; choose one of {', '.join(ALGORITHMS)}")
        if self.kernel not in KERNELS:
            bad(f"unknown kernel {self.kernel!r}; choose one of {', '.join(KERNELS)}")
        if self.accuracy not in ("eps", "support"):
            bad(f"accuracy must be 'eps' or 'support', got {self.accuracy!r}")
        if not 0 < self.eps < 1:
            bad(f"ε must lie in (0, 1), got {self.eps}")
        if self.precision not in PRECISIONS:
            bad(f"precision must be single or double, got {self.precision!r}")
        if self.algorithm in ("hybrid", "pruned-nn") and (
            self.oversample % 2 or self.oversample < 4
        ):
            bad(f"{self.algorithm} needs an even oversampling β ≥ 4, got {self.oversample}")
        self.weighting_spec()  # validates scheme, robust and taper
        if self.algorithm != "dft":
            self.grid_params()  # validates support, β and σ

    def weighting_spec(self) -> Weighting:
        from uvlab.gpu.imaging.weighting import Weighting

        return Weighting(self.weighting, float(self.robust), float(self.taper_arcsec))

    def grid_params(self) -> GridParams | None:
        """The gridder parameters (None for the DFT)."""
        if self.algorithm == "dft":
            return None
        from uvlab.gpu.gridders.params import GridParams

        common = dict(
            kernel=self.kernel,
            oversample=int(self.oversample),
            sigma=self.padding,
            threads=INTERACTIVE_THREADS,
        )
        if self.accuracy == "eps":
            return GridParams.from_eps(float(self.eps), **common)
        return GridParams(support=int(self.support), **common)

    @property
    def dtype(self):
        return np.float32 if self.precision == "single" else np.float64

    def image_spec(self, cell_rad: float) -> ImageSpec:
        from uvlab.gpu.imaging.spec import ImageSpec

        return ImageSpec(int(self.npix), float(cell_rad), pad=float(self.padding))

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> ImagingOptions:
        known = {k: v for k, v in d.items() if k in cls.__dataclass_fields__}
        return cls(**known)

    @classmethod
    def from_settings(cls, s) -> ImagingOptions:
        """From a scene's :class:`~uvlab.app.scene.ImagingSettings`."""
        return cls(
            npix=s.npix,
            cell_arcsec=s.cell_arcsec,
            weighting=s.weighting,
            robust=s.robust,
            taper_arcsec=s.taper_arcsec,
            algorithm=s.algorithm,
            kernel=s.kernel,
            eps=s.eps,
            precision=s.precision,
        )


@dataclass(frozen=True)
class MSSelection:
    """Which data of a MeasurementSet to image."""

    path: str
    field: int = 0
    spw: int = 0
    column: str = "DATA"
    stokes: str = "I"


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
        The entries of a ``compare`` task (two or more gridders).
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
        if self.task == "compare" and len(self.compare) < 2:
            raise ValueError("compare needs two or more entries (Compare tab of the controls)")


# --------------------------------------------------------------------- events
@dataclass(frozen=True)
class Progress:
    """Fraction done in [0, 1] and the stage being worked on."""

    fraction: float
    stage: str


@dataclass(frozen=True, eq=False)
class UvData:
    """Sampled uv points (one row per baseline and time), for the uv view.

    u_m, v_m, time : (row,) float; baseline : (row,) int; freq_hz : (chan,) float
    """

    u_m: np.ndarray
    v_m: np.ndarray
    freq_hz: np.ndarray
    time: np.ndarray
    baseline: np.ndarray

    @property
    def nrow(self) -> int:
        return int(self.u_m.size)


@dataclass(frozen=True, eq=False)
class Antennas:
    """Antenna positions for the array view: enu (n, 3) m, names, diameters (n,) m."""

    enu: np.ndarray
    names: tuple[str, ...]
    diameter_m: np.ndarray


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
