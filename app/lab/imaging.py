"""The imaging record: one frozen :class:`ImagingOptions` and the defaults' one home.

The window's Imaging panel and compare entries, saved sessions (and the older
scene files), ``uvlab demo`` and ``uvlab bench worker`` all describe an image
with this record; :meth:`ImagingOptions.grid_params` and
:meth:`ImagingOptions.image_spec` turn it into what :mod:`uvlab.gpu` reads.
``uvlab image`` describes its image with it too, and hands the request what its
options say beyond the record (a support with ε, the gridding precision, a
geometry chosen from the data) as :class:`~uvlab.app.lab.jobs.JobRequest`'s
``params`` and ``spec``.

Names used throughout:

- ``npix``: the image side (default :data:`DEFAULT_NPIX`);
- ``sigma``: the grid padding σ (grid side ≈ σ·N), passed on as
  :attr:`uvlab.gpu.gridders.params.GridParams.sigma`, σ's one home in the engine;
- ``eps``: the accuracy ε, a float in (0, 1);
- ``kernel_size``: how the GCF support is chosen, ``"eps"`` (from ε, the
  kernel evaluated exactly) or ``"support"`` (S given, a table of β samples
  per cell).

Files written before these names existed say ``padding`` for σ and
``accuracy`` for the choice of ``kernel_size``: :meth:`ImagingOptions.from_dict`
reads both.
"""

from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from uvlab.gpu.gridders.params import GCF_NAMES, LOOKUPS
from uvlab.gpu.gridders.registry import NAMES, default_algorithm, grids
from uvlab.gpu.gridders.registry import algorithm as catalogue_entry
from uvlab.gpu.imaging.weighting import (
    DENSITY_CELLS,
    WSCLEAN_PADDING,
    WSCLEAN_RANK_FILTER_SIZE,
)

if TYPE_CHECKING:
    from uvlab.gpu.gridders.params import GridParams
    from uvlab.gpu.image_spec import ImageSpec
    from uvlab.gpu.imaging.weighting import Weighting

#: The image side when none is given: the window's, ``uvlab demo``'s, and
#: ``uvlab image``'s when the data do not say (no dish diameter).
DEFAULT_NPIX = 512
#: Imaging algorithms, the exact DFT first (the algorithm catalogue's order).
ALGORITHMS = NAMES
#: Gridding kernels (GCFs).
KERNELS = GCF_NAMES
#: How the GCF support is chosen: from the accuracy ε, or given.
KERNEL_SIZES = ("eps", "support")
#: How a kernel table is read (``kernel_size="support"``): nearest entry or linear interpolation.
TABLE_LOOKUPS = LOOKUPS
PRECISIONS = ("single", "double")
DEVICES = ("auto", "cpu", "gpu")
#: CPU gridding threads in the window: every core but one, which stays with the window.
INTERACTIVE_THREADS = max(1, (os.cpu_count() or 2) - 1)
#: Timed runs of each Compare entry by default (the median and the spread are shown:
#: single runs varied up to 4× between identical comparisons, issue 28), and at most.
COMPARE_REPEATS = 3
MAX_REPEATS = 20
#: CPU threads of the image task's gridding (ducc0): 0, every core (see :mod:`uvlab.app.lab.live`).
IMAGING_THREADS = 0


def lab_default_algorithm(device: str = "auto") -> str:
    """The lab's default algorithm on ``device``: ``conv`` with a GPU, ``ducc`` without.

    The catalogue's :func:`~uvlab.gpu.gridders.registry.default_algorithm`
    of the device that ``device`` resolves to: ducc0 keeps the CPU latency
    targets of ``uvlab bench worker --device cpu``. A GPU asked for and missing
    gets the GPU's default; the imaging itself reports the missing GPU.
    """
    from uvlab.gpu.backend import DeviceError, resolve_device

    try:
        return default_algorithm(resolve_device(device))
    except DeviceError:
        return default_algorithm("gpu")


#: Older spellings of fields, as files written before them still hold them.
RENAMED = {"padding": "sigma", "accuracy": "kernel_size"}


@dataclass(frozen=True)
class ImagingOptions:
    """How to image: size and cell, weighting, algorithm and its gridder parameters.

    Attributes
    ----------
    npix : int
        Image side N, an even number of pixels ≥ 2.
    cell_arcsec : float or None
        Pixel size; None chooses 1/(3·u_max) from the data.
    weighting, robust, taper_arcsec, density_scale, density_cells, density_padding
        As :class:`uvlab.gpu.imaging.weighting.Weighting` (``density_scale`` ≠ 1: tclean's
        LSRK density cells, ``uvlab image --density-frame lsrk``; ``density_cells="wsclean"``:
        WSClean's cells, those of the image padded by ``density_padding``,
        ``uvlab image --density-cells wsclean --density-padding P``).
    super_weight, rank_filter, rank_filter_size
        As :class:`uvlab.gpu.imaging.weighting.Weighting`: WSClean's ``-super-weight``,
        ``-weighting-rank-filter`` (0, the default: off) and ``-weighting-rank-filter-size``
        (``uvlab image --super-weight F --weighting-rank-filter L
        --weighting-rank-filter-size S``).
    algorithm : str
        One of :data:`ALGORITHMS`; default :func:`lab_default_algorithm`
        (``conv`` with a GPU, ``ducc`` on a CPU-only machine).
    kernel : str
        GCF of ``conv`` and ``hybrid``, one of :data:`KERNELS`.
    kernel_size : {"eps", "support"}
        Choose the GCF support from the accuracy ε (ES kernel, exact
        evaluation) or give it as ``support``.
    eps : float
        The accuracy ε, in (0, 1).
    support : int
        GCF support S, cells (with ``kernel_size="support"``).
    oversample : int
        β: kernel-table oversampling, the uv oversampling of the NN variants
        (even and ≥ 4 for ``hybrid`` and ``pruned-nn``).
    sigma : float
        Grid padding σ in [1, 4].
    precision : {"single", "double"}
        Working precision of the prediction.
    lookup : {"nearest", "linear"}
        How the kernel table (``kernel_size="support"``) of ``conv`` and of
        hybrid's u axis is read: its nearest entry, or linear interpolation
        between two (:attr:`uvlab.gpu.gridders.params.GridParams.lookup`).
    """

    npix: int = DEFAULT_NPIX
    cell_arcsec: float | None = None
    weighting: str = "natural"
    robust: float = 0.0
    taper_arcsec: float = 0.0
    density_scale: float = 1.0
    density_cells: str = "casa"
    density_padding: float = WSCLEAN_PADDING
    super_weight: float = 1.0
    rank_filter: float = 0.0
    rank_filter_size: int = WSCLEAN_RANK_FILTER_SIZE
    algorithm: str = field(default_factory=lab_default_algorithm)
    kernel: str = "es"
    kernel_size: str = "eps"
    eps: float = 1e-5
    support: int = 7
    oversample: int = 16
    sigma: float = 2.0
    precision: str = "double"
    lookup: str = "nearest"

    def __post_init__(self):
        npix = self.npix
        whole = isinstance(npix, (int, np.integer)) and not isinstance(npix, bool)
        if not whole or npix < 2 or npix % 2:
            raise ValueError(f"image size npix must be an even integer ≥ 2, got {npix!r}")
        numbers = ("robust", "taper_arcsec", "density_padding", "super_weight", "rank_filter")
        for name in (*numbers, "eps", "sigma", "cell_arcsec"):
            value = getattr(self, name)
            if value is None and name == "cell_arcsec":
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
                raise ValueError(f"{name} must be a number, got {value!r}")
            if not math.isfinite(value):
                raise ValueError(f"{name} must be a finite number, got {value!r}")
        if self.cell_arcsec is not None and not self.cell_arcsec > 0:
            raise ValueError(f"cell size must be > 0 arcsec (or auto), got {self.cell_arcsec}")
        choices = {
            "density_cells": DENSITY_CELLS,
            "algorithm": ALGORITHMS,
            "kernel": KERNELS,
            "kernel_size": KERNEL_SIZES,
            "precision": PRECISIONS,
            "lookup": TABLE_LOOKUPS,
        }
        for name, allowed in choices.items():
            if getattr(self, name) not in allowed:
                raise ValueError(
                    f"{name} {getattr(self, name)!r} is not one of {', '.join(allowed)}"
                )
        if not 0 < self.eps < 1:
            raise ValueError(f"ε (eps) must lie in (0, 1), got {self.eps}")
        if catalogue_entry(self.algorithm).even_oversample and (
            self.oversample % 2 or self.oversample < 4
        ):
            raise ValueError(
                f"{self.algorithm} needs an even oversampling β ≥ 4, got {self.oversample}"
            )
        self.weighting_spec()  # validates the scheme, robust and taper
        if grids(self.algorithm):
            self.grid_params()  # validates support, β and σ

    def weighting_spec(self) -> Weighting:
        from uvlab.gpu.imaging.weighting import Weighting

        return Weighting(
            self.weighting,
            float(self.robust),
            float(self.taper_arcsec),
            density_scale=float(self.density_scale),
            density_cells=self.density_cells,
            density_padding=float(self.density_padding),
            super_weight=float(self.super_weight),
            rank_filter=float(self.rank_filter),
            rank_filter_size=self.rank_filter_size,
        )

    def grid_params(self, threads: int = INTERACTIVE_THREADS) -> GridParams | None:
        """The gridder parameters (None for the DFT).

        Parameters
        ----------
        threads : int
            CPU threads of ``ducc``; 0 uses every core (the commands),
            the default leaves one to the window.
        """
        if not grids(self.algorithm):
            return None
        from uvlab.gpu.gridders.params import GridParams

        common = dict(
            kernel=self.kernel,
            oversample=int(self.oversample),
            sigma=float(self.sigma),
            threads=int(threads),
            lookup=self.lookup,
        )
        if self.kernel_size == "eps":
            return GridParams.from_eps(float(self.eps), **common)
        return GridParams(support=int(self.support), **common)

    @property
    def dtype(self):
        return np.float32 if self.precision == "single" else np.float64

    def image_spec(self, cell_rad: float) -> ImageSpec:
        """The image geometry at pixel size ``cell_rad`` (radians), padded by σ."""
        from uvlab.gpu.image_spec import ImageSpec

        return ImageSpec(int(self.npix), float(cell_rad))

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict, *, strict: bool = False) -> ImagingOptions:
        """From a JSON object; older names (``padding``, ``accuracy``) are read too.

        Unknown keys are skipped (a newer file), or refused with ``strict``.
        Missing keys take their defaults.
        """
        if not isinstance(d, dict):
            raise ValueError(f"imaging must be a JSON object, got {type(d).__name__}")
        d = {RENAMED.get(k, k): v for k, v in d.items()}
        known = [f for f in cls.__dataclass_fields__]
        unknown = [k for k in d if k not in known]
        if strict and unknown:
            raise ValueError(
                f"unknown key{'s' if len(unknown) > 1 else ''} {', '.join(map(str, unknown))}"
                f" (known: {', '.join(known)})"
            )
        return cls(**{k: v for k, v in d.items() if k in known})
