"""How to CLEAN: the one options record of both front ends (issue 26).

``uvlab image --niter …`` builds a :class:`CleanOptions` from its flags
(:mod:`uvlab.app.commands.clean_args`), the window's Deconvolution tab from its
controls, a session from its JSON; :func:`~uvlab.gpu.deconvolution.driver.iter_clean`
reads it. A record that exists was checked: :meth:`CleanOptions.__post_init__`
refuses what CLEAN cannot run with (one-line ``ValueError``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from uvlab.gpu.deconvolution.subminor import ACTIVE_MAX

#: The deconvolvers the driver runs: image-plane Högbom, and Högbom minor cycles between
#: major cycles in the visibilities (Cotton–Schwab).
DECONVOLVERS = ("hogbom", "cotton-schwab")
#: Major cycles at most (WSClean's default -nmiter is 20).
MAX_MAJOR = 20


@dataclass(frozen=True)
class CleanOptions:
    """How to CLEAN.

    Attributes
    ----------
    deconvolver : {"hogbom", "cotton-schwab"}
    niter : int
        Minor iterations at most, ≥ 0.
    gain : float
        Loop gain in (0, 1].
    mgain : float
        A (minor) cycle ends at ``(1 − mgain)·peak``, in (0, 1]; 1: one cycle.
    threshold_jy : float
        Stop at this residual peak, Jy/beam (≥ 0).
    auto_threshold : float or None
        Stop at this many σ of the residual (MAD, taken at each cycle's start), or None.
    auto_mask : float or None
        WSClean's ``-auto-mask``: CLEAN to this many σ first, then only on the pixels
        that hold a component, down to the threshold or the auto-threshold (which must
        then be lower).
    active_max : int or None
        The minor cycles' sub-minor loop on at most this many of the brightest pixels
        (WSClean's; :mod:`uvlab.gpu.deconvolution.subminor`); None: whole-image Högbom.
    max_major : int
        Cotton–Schwab: major cycles at most (≥ 1).
    multiscale : bool
        Multiscale CLEAN's minor cycles (:mod:`uvlab.gpu.deconvolution.multiscale`), in
        Högbom and Cotton–Schwab alike (WSClean's ``-multiscale``).
    multiscale_scales : tuple of float or None
        Scales in pixels (0: a point); None: WSClean's default from the PSF
        (:func:`~uvlab.gpu.deconvolution.multiscale.default_scales`).
    multiscale_scale_bias : float
        In (0, 1]; smaller favours larger scales (WSClean's ``-multiscale-scale-bias``, 0.6).
    multiscale_small_scale_bias : float or None
        tclean's ``smallscalebias`` in [−1, 1]: the scales chosen, and CLEAN stopped, as
        tclean does (peaks normalised to a component's flux;
        :mod:`uvlab.gpu.deconvolution.multiscale`), ``multiscale_scale_bias`` unused;
        None: WSClean's rule.
    mask_boxes : tuple of (j0, i0, j1, i1)
        Components only inside these pixel boxes (inclusive corners, rows then columns;
        :func:`~uvlab.gpu.deconvolution.mask.box_mask`); empty: everywhere (or the mask
        array a front end gives the driver, such as ``uvlab image --fits-mask``).
    channels_out : int
        WSClean's ``-channels-out N -join-channels``: CLEAN N output channels jointly
        (peaks on the MFS image, each channel's own PSF and components;
        :mod:`uvlab.gpu.deconvolution.joined`); 1: one image of all channels.
    fit_spectral_pol : int or None
        WSClean's ``-fit-spectral-pol K`` with ``channels_out`` > 1: each component's
        channel values fitted with K terms (:mod:`uvlab.gpu.deconvolution.spectral_fit`);
        None: no fit.
    """

    deconvolver: str = "hogbom"
    niter: int = 500
    gain: float = 0.1
    mgain: float = 0.8
    threshold_jy: float = 0.0
    auto_threshold: float | None = None
    auto_mask: float | None = None
    active_max: int | None = ACTIVE_MAX
    max_major: int = MAX_MAJOR
    mask_boxes: tuple = ()
    multiscale: bool = False
    multiscale_scales: tuple | None = None
    multiscale_scale_bias: float = 0.6
    multiscale_small_scale_bias: float | None = None
    channels_out: int = 1
    fit_spectral_pol: int | None = None

    def __post_init__(self):
        if self.multiscale_scales is not None:  # JSON lists → hashable tuples
            scales = tuple(float(s) for s in self.multiscale_scales)
            object.__setattr__(self, "multiscale_scales", scales)
        boxes = tuple(tuple(int(v) for v in box) for box in self.mask_boxes)
        if any(len(b) != 4 for b in boxes):
            raise ValueError(f"a mask box is four pixel corners (j0, i0, j1, i1), got {boxes}")
        object.__setattr__(self, "mask_boxes", boxes)  # JSON lists → hashable tuples
        complaint = self.complaint()
        if complaint:
            raise ValueError(complaint)

    def complaint(self) -> str | None:
        """One line on what is wrong with these options, or None when they are usable."""
        if self.deconvolver not in DECONVOLVERS:
            return f"deconvolver {self.deconvolver!r} is not one of {', '.join(DECONVOLVERS)}"
        if isinstance(self.niter, bool) or int(self.niter) != self.niter or self.niter < 0:
            return f"niter must be a whole number ≥ 0, got {self.niter!r}"
        if not 0.0 < self.gain <= 1.0:
            return f"gain must be in (0, 1], got {self.gain}"
        if not 0.0 < self.mgain <= 1.0:
            return f"mgain must be in (0, 1], got {self.mgain}"
        if not (self.threshold_jy >= 0.0 and math.isfinite(self.threshold_jy)):
            return f"threshold must be ≥ 0 Jy/beam, got {self.threshold_jy}"
        a, m = self.auto_threshold, self.auto_mask
        if a is not None and not (a >= 0.0 and math.isfinite(a)):
            return f"auto-threshold must be ≥ 0 σ, got {a}"
        if m is not None:
            if not (m > 0.0 and math.isfinite(m)):
                return f"auto-mask must be > 0 σ, got {m}"
            if a is not None and not m > a:
                return (
                    f"auto-mask ({m:g}σ) must be above auto-threshold ({a:g}σ): "
                    "the mask is made first"
                )
        k = self.active_max
        if k is not None and (isinstance(k, bool) or int(k) != k or k < 1):
            return f"active_max must be a whole number ≥ 1 or None, got {k!r}"
        if (
            isinstance(self.max_major, bool)
            or int(self.max_major) != self.max_major
            or (self.max_major < 1)
        ):
            return f"max_major must be a whole number ≥ 1, got {self.max_major!r}"
        scales = self.multiscale_scales
        if scales is not None and (
            not scales or not all(math.isfinite(s) and s >= 0 for s in scales)
        ):
            return f"multiscale-scales must be pixel sizes ≥ 0, got {list(scales)}"
        if scales is not None and len(set(scales)) != len(scales):
            return f"multiscale-scales must differ, got {list(scales)}"
        bias = self.multiscale_scale_bias
        if not (0.0 < bias <= 1.0 and math.isfinite(bias)):
            return f"multiscale-scale-bias must be in (0, 1], got {bias}"
        small = self.multiscale_small_scale_bias
        if small is not None and not (-1.0 <= small <= 1.0):
            return f"multiscale-small-scale-bias must be in [-1, 1], got {small}"
        n, k = self.channels_out, self.fit_spectral_pol
        if isinstance(n, bool) or int(n) != n or n < 1:
            return f"channels-out must be a whole number ≥ 1, got {n!r}"
        if k is not None and (isinstance(k, bool) or int(k) != k or k < 1):
            return f"fit-spectral-pol must be a whole number ≥ 1 or None, got {k!r}"
        if k is not None and k > n:
            return f"fit-spectral-pol: {k} terms, but only {n} output channels"
        return None
