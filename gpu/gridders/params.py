"""Gridder parameters: one frozen record every algorithm reads what it needs from."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from numbers import Integral

from uvlab.gpu.gridders.gcf import KERNELS

#: Kernels a tap rule can use: the closed forms plus the least-misfit tables.
GCF_NAMES = (*KERNELS, "lm")
PRECISIONS = ("single", "double")
#: How a GCF table is read: the nearest entry, or linear interpolation between two.
LOOKUPS = ("nearest", "linear")


@dataclass(frozen=True)
class GridParams:
    """How to grid (DESIGN §2).

    Attributes
    ----------
    kernel : {"es", "kb", "pswf", "gauss", "lm"}
        GCF of ``conv`` and of the u axis of ``hybrid``.
    support : int
        GCF support S, grid cells.
    oversample : int
        β: table oversampling of the GCF, and the uv-grid oversampling of
        ``nn-oversampled``, ``hybrid`` (v) and ``pruned-nn`` (Muscat's β; even
        for the pruned algorithms, which decimate by α = β/2).
    sigma : float
        Padding σ of the conv grid (and hybrid's u axis): grid side ≥ σ·N; uvlab's
        one home for σ (default 2). Muscat's algorithms use σ = 1.
    exact : bool
        Evaluate the GCF at the exact offsets instead of the table.
    lookup : {"nearest", "linear"}
        How the GCF table of ``conv`` and of hybrid's u axis is read: the
        nearest of its entries (Muscat's choice, error ∝ 1/β), or linear
        interpolation between the two neighbouring ones (error ∝ 1/β²; the
        corrector follows the interpolated kernel). Ignored with ``exact``
        and by ``ducc``.
    eps : float or None
        Requested accuracy (set by :meth:`from_eps`; ``ducc`` chooses its kernel from it).
    shape : float or None
        Override the kernel's shape parameter (ES/KB β, Gaussian width).
    prune_kernel : str
        Pruning kernel Z (``"lm"``: least-misfit, Muscat's choice).
    prune_support : int
        S_z, pruning kernel support in pruned-grid cells (Muscat: 8–14).
    wstack : bool
        Correct the w-term (``conv``: w-stacking on the host; ``ducc``:
        ducc0's w-gridder).
    wprojplanes : int
        W-projection (Cornwell, Golap & Bhatnagar 2008; tclean ``gridder='wproject'``):
        0 off; N ≥ 1 w-planes (1: the flat image, as tclean); −1: as many as tclean's
        automatic rule chooses (:mod:`~uvlab.gpu.gridders.wkernels`). ``conv`` only, and
        not with ``wstack``.
    chunk : int
        Tap entries (records × S²) processed per chunk: bounds memory.
    precision : {"double", "single"}
        CUDA gridders only: float64 throughout, or float32 records,
        complex64 grid and float32 image. The NumPy gridders are float64.
    threads : int
        CPU threads of ``ducc``; 0 uses every core. An interactive
        caller leaves one core to its user interface.
    compress : bool
        Full compression (Muscat §3.2.4): records falling in the same cell of
        the nearest-cell grid are summed exactly before gridding, so each
        occupied cell is gridded once (:mod:`~uvlab.gpu.gridders.compress`).
        Only for the algorithms with a nearest-cell v axis (``nn``,
        ``nn-oversampled``, ``hybrid``, ``pruned-nn``; the gridders raise
        otherwise); the image is unchanged to float rounding.
    """

    kernel: str = "es"
    support: int = 7
    oversample: int = 16
    sigma: float = 2.0
    exact: bool = False
    eps: float | None = None
    shape: float | None = None
    prune_kernel: str = "lm"
    prune_support: int = 14
    wstack: bool = False
    chunk: int = 1 << 22
    precision: str = "double"
    threads: int = 0
    lookup: str = "nearest"
    compress: bool = False
    wprojplanes: int = 0

    def __post_init__(self):
        if self.kernel not in GCF_NAMES:
            raise ValueError(f"unknown kernel {self.kernel!r}; choose one of {GCF_NAMES}")
        if self.prune_kernel not in GCF_NAMES:
            raise ValueError(f"unknown pruning kernel {self.prune_kernel!r}")
        if not 1 <= int(self.support) <= 32:
            raise ValueError(f"support must be 1–32 cells, got {self.support}")
        if not 1 <= int(self.oversample) <= 4096:
            raise ValueError(f"oversampling must be 1–4096, got {self.oversample}")
        if not 1.0 <= self.sigma <= 4.0:
            raise ValueError(f"padding σ must be in [1, 4], got {self.sigma}")
        if not 2 <= int(self.prune_support) <= 32:
            raise ValueError(f"pruning support must be 2–32, got {self.prune_support}")
        if self.lookup not in LOOKUPS:
            raise ValueError(f"lookup must be one of {LOOKUPS}, got {self.lookup!r}")
        if self.precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {PRECISIONS}, got {self.precision!r}")
        if self.eps is not None and not 0 < self.eps < 1:
            raise ValueError(f"eps must be in (0, 1), got {self.eps}")
        if not isinstance(self.compress, bool):
            raise ValueError(f"compress must be True or False, got {self.compress!r}")
        if self.compress and self.wstack:
            raise ValueError(
                "compress does not combine with wstack (each w plane grids its own records)"
            )
        if isinstance(self.wprojplanes, bool) or not isinstance(self.wprojplanes, Integral):
            raise ValueError(f"wprojplanes must be an integer, got {self.wprojplanes!r}")
        if self.wprojplanes < -1:
            raise ValueError(f"wprojplanes must be −1 (automatic), 0 (off) or ≥ 1, got "
                             f"{self.wprojplanes}")  # fmt: skip
        if self.wprojplanes and self.wstack:
            raise ValueError("wprojplanes does not combine with wstack: choose one w-correction")
        if self.wprojplanes and self.compress:
            raise ValueError("compress does not combine with wprojplanes")

    @classmethod
    def from_eps(cls, eps: float, sigma: float = 2.0, **kwargs) -> GridParams:
        """ES kernel, exact evaluation, support chosen for accuracy ε as FINUFFT does.

        At σ = 2, ``S = ⌈log10(10/ε)⌉``; otherwise
        ``S = ⌈−ln ε / (π·√(1 − 1/σ))⌉`` (Barnett et al. 2019), clipped to 2–16.
        """
        if not 0 < eps < 1:
            raise ValueError(f"eps must be in (0, 1), got {eps}")
        if abs(sigma - 2.0) < 1e-9:
            s = math.ceil(math.log10(10.0 / eps))
        else:
            s = math.ceil(-math.log(eps) / (math.pi * math.sqrt(1.0 - 1.0 / sigma)))
        s = min(max(s, 2), 16)
        fields = dict(kernel="es", support=s, sigma=sigma, exact=True, eps=eps)
        return cls(**{**fields, **kwargs})

    @classmethod
    def muscat(cls, oversample: int = 16, **kwargs) -> GridParams:
        """Muscat's (2021) setting: PSWF S = 6 table, σ = 1, LM pruner S_z = 14."""
        fields = dict(kernel="pswf", support=6, oversample=oversample, sigma=1.0)
        return cls(**{**fields, **kwargs})

    @property
    def w_term(self) -> bool:
        """Whether a w-correction is asked for (``wstack`` or w-projection): ``w`` is needed."""
        return bool(self.wstack) or self.wprojplanes != 0

    def with_(self, **changes) -> GridParams:
        """A copy with some fields changed."""
        return replace(self, **changes)

    def accuracy(self) -> float:
        """ε for ``ducc``: ``eps``, else what the support buys at σ = 2."""
        return float(self.eps if self.eps is not None else 10.0 ** (1 - self.support))


def good_size(n: float) -> int:
    """Smallest even integer ≥ n whose only prime factors are 2, 3 and 5."""
    m = max(2, math.ceil(n - 1e-9))
    m += m % 2
    while True:
        k = m
        for p in (2, 3, 5):
            while k % p == 0:
                k //= p
        if k == 1:
            return m
        m += 2
