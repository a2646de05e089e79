"""The one CLEAN driver: minor cycles, major cycles, masks, auto-mask (issue 26).

Shaped as WSClean's deconvolution driver: :func:`iter_clean` is a generator that
runs the cycles and yields a :class:`CleanCycle` after each (and, when asked, after
each chunk of a long minor cycle); the last one it yields has ``done`` set. Its
callers only drive it: ``uvlab image --niter`` (:mod:`uvlab.app.commands.deconvolve`),
the window's Deconvolution task (:mod:`uvlab.app.lab.clean_task`) and
``uvlab bench clean`` (:mod:`uvlab.gpu.bench.clean_bench`, through
:func:`~uvlab.gpu.deconvolution.cotton_schwab.cotton_schwab`).

A cycle:

1. the stop level, taken once from the residual at the cycle's start (as
   :func:`~uvlab.gpu.deconvolution.hogbom.hogbom` takes it):
   ``max(threshold, S·σ_MAD, (1 − mgain)·peak)``, the peak inside the mask;
2. the minor cycle: Högbom against the PSF of side 2N
   (:func:`~uvlab.gpu.deconvolution.hogbom.hogbom`), by WSClean's sub-minor loop
   on the brightest ``active_max`` pixels where the image is large enough for it to
   pay (:mod:`uvlab.gpu.deconvolution.subminor`), down to that level;
3. Cotton–Schwab only (a :class:`~uvlab.gpu.deconvolution.cotton_schwab.MajorCycle` given):
   the major cycle, the residual made anew from ``V − D(model)`` with the grid and
   degrid pair of the imaging, the w-term included where the imaging had it.

until ``niter`` iterations, a stop level other than mgain, a cycle that cleans
nothing (``converged``) or ``max_major`` major cycles.

With ``joined`` (WSClean's ``-join-channels`` or ``-join-polarizations``) the images
are stacks of P planes (output channels or polarisations), each with its own PSF: the
minor cycles are the joined ones (:func:`~uvlab.gpu.deconvolution.joined.joined_hogbom`,
with multiscale :func:`~uvlab.gpu.deconvolution.multiscale.joined_multiscale`: peaks on
the planes' search image — the channels' MFS mean, the polarisations' root sum of
squares — a component in every plane), the stop levels, peaks and auto-mask are the
search image's, the auto-threshold's σ that of the planes' linear combination (its PSF
the PSFs' alike), and a major cycle makes every plane's residual from its own model
(:class:`~uvlab.gpu.deconvolution.joined.JoinedMajor`). With ``auto_mask`` the whole
runs twice: to ``auto_mask·σ`` (in the mask), then — if that level was reached — on
the pixels holding a component only, down to the threshold or auto-threshold.

Arrays stay in the namespace of the inputs (NumPy or CuPy) until the caller takes
them (:func:`~uvlab.gpu.backend.to_numpy`); the histories are NumPy.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from uvlab.gpu.backend import get_xp
from uvlab.gpu.deconvolution.hogbom import hogbom
from uvlab.gpu.deconvolution.joined import joined_hogbom
from uvlab.gpu.deconvolution.mask import box_mask
from uvlab.gpu.deconvolution.multiscale import (
    MultiscaleResult,
    default_scales,
    joined_multiscale,
    multiscale,
    prepare_scales,
)
from uvlab.gpu.deconvolution.noise import robust_sigma
from uvlab.gpu.deconvolution.options import CleanOptions


@dataclass(frozen=True, eq=False)
class CleanCycle:
    """The CLEAN after a cycle (or a chunk of one); ``done``: the last.

    Attributes
    ----------
    model : (N, N) float64, or (P, N, N) with joined planes
        Jy/pixel, the inputs' namespace (never changed after it is yielded).
    residual : (N, N) float64, or (P, N, N)
        Jy/beam; after a Cotton–Schwab cycle, the image of the residual visibilities.
    comp_j, comp_i, comp_flux : (iterations,) NumPy; comp_flux (iterations, P) when joined
        The components in CLEAN's order (row, column, Jy).
    peak, rms : (iterations + 1,) float64 NumPy
        Residual |peak| (inside the mask) and RMS at the start and after each iteration
        (joined: the search image's);
        at the end of a major cycle, those of the major cycle's residual (the RMS is NaN
        inside a sub-minor loop).
    cycle_ends : tuple of int
        The iteration count at the end of each cycle.
    majors : int
        Major cycles run (0 for Högbom).
    major_peaks : tuple of float
        Cotton–Schwab: the residual's |peak| at the start and after each major cycle.
    stop_reason : str
        Why CLEAN stopped (``niter``, ``threshold``, ``auto-threshold``, ``zero``,
        ``converged``, or ``mgain`` where the major-cycle limit ended it); "" while it runs.
    done : bool
    """

    model: object
    residual: object
    comp_j: np.ndarray
    comp_i: np.ndarray
    comp_flux: np.ndarray
    peak: np.ndarray
    rms: np.ndarray
    cycle_ends: tuple[int, ...]
    majors: int
    major_peaks: tuple[float, ...]
    stop_reason: str = ""
    done: bool = False

    @property
    def iterations(self) -> int:
        return int(self.comp_j.size)

    @property
    def cycles(self) -> int:
        return len(self.cycle_ends)


class _History:
    """The components, peaks, RMS and cycle ends so far.

    ``mean``: the image the peaks are taken on, of a residual (joined: the search image).
    """

    def __init__(self, residual, maskf, mean=lambda r: r):
        self.mean = mean
        # the components' sums on the pixels holding one (sorted), one row per plane
        self.pix = np.zeros(0, dtype=np.int64)
        self.sums = np.zeros((residual.shape[0] if residual.ndim == 3 else 1, 0))
        self.j, self.i, self.flux = [], [], []
        self.peak, self.rms = [], []
        self.cycle_ends: list[int] = []
        self.major_peaks: list[float] = []
        self.majors = 0
        self.iterations = 0
        self.set_last(residual, maskf, append=True)

    def set_last(self, residual, maskf, append: bool = False) -> None:
        """The state after the last iteration is ``residual``'s (a major cycle's)."""
        peak, top, rms = image_stats(self.mean(residual), maskf)
        self.last = (residual, maskf, peak, top)
        if append:
            self.peak.append(peak)
            self.rms.append(rms)
        else:
            self.peak[-1], self.rms[-1] = peak, rms

    def known_peak(self, residual, maskf=None, masked: bool = True) -> float | None:
        """|peak| of ``residual`` (of its mean; in ``maskf``, or anywhere) if :meth:`set_last`
        measured this very array (with this very mask), else None."""
        last, last_mask, peak, top = self.last
        if last is not residual:
            return None
        if not masked:
            return top
        return peak if last_mask is maskf else None

    def add(self, res, model):
        """A hogbom call's components and the states after each (its first: the one before).

        Returns the model with them added, a new array in ``model``'s namespace. The sum
        is the host's, component after component in CLEAN's order (``np.add.at``), so a
        minor cycle split into chunks, or run on a GPU, sums to the same bits. It is kept
        on the pixels holding components only (adding into a dense 4096² host image took
        0.5–0.8 ms a cycle on an H200's host), and only the pixels these components
        touched are copied into the model. A multiscale cycle's components are kernels:
        its model (them convolved) is added whole.
        """
        if isinstance(res, MultiscaleResult):
            self._record(res)
            return model + res.model
        n = model.shape[-1]
        pos = res.comp_j * n + res.comp_i
        planes = self.sums.shape[0]
        flux = np.asarray(res.comp_flux).reshape(pos.size, planes)  # none: (0, C)
        pix = np.union1d(self.pix, pos)
        if pix.size != self.pix.size:  # new pixels: the sums move to their sorted places
            sums = np.zeros((planes, pix.size))
            sums[:, np.searchsorted(pix, self.pix)] = self.sums
            self.pix, self.sums = pix, sums
        at = np.searchsorted(self.pix, pos)
        for c in range(planes):
            np.add.at(self.sums[c], at, flux[:, c])
        xp = get_xp(model)
        touched = np.unique(pos)
        model = model.copy()
        model.reshape(-1, n * n)[:, xp.asarray(touched)] = xp.asarray(
            self.sums[:, np.searchsorted(self.pix, touched)]
        )
        self._record(res)
        return model

    def _record(self, res) -> None:
        self.j.append(res.comp_j)
        self.i.append(res.comp_i)
        self.flux.append(res.comp_flux)
        self.peak.extend(np.asarray(res.peak[1:], float).tolist())
        self.rms.extend(np.asarray(res.rms[1:], float).tolist())
        self.iterations += res.iterations

    def state(self, model, residual, reason: str = "", done: bool = False) -> CleanCycle:
        cat = lambda parts, t: np.concatenate(parts).astype(t) if parts else np.zeros(0, t)  # noqa: E731
        return CleanCycle(
            model, residual, cat(self.j, np.int64), cat(self.i, np.int64),
            cat(self.flux, np.float64), np.asarray(self.peak), np.asarray(self.rms),
            tuple(self.cycle_ends), self.majors, tuple(self.major_peaks), reason, done,
        )  # fmt: skip


def image_stats(image, maskf=None) -> tuple[float, float, float]:
    """(|peak| inside the mask, |peak|, RMS) of ``image``, with one device-to-host copy.

    ``maskf``: 1.0 inside the mask, 0.0 outside (None: no mask). On a GPU, one pass of a
    reduction kernel each (:func:`~uvlab.gpu.deconvolution.cuda_hogbom.image_stats_cupy`).
    """
    xp = get_xp(image)
    if xp is np:
        top = np.abs(image).max()
        peak = top if maskf is None else np.abs(image * maskf).max()
        stats = [peak, top, np.vdot(image.ravel(), image.ravel())]
    else:
        from uvlab.gpu.deconvolution.cuda_hogbom import image_stats_cupy

        stats = image_stats_cupy(xp.ascontiguousarray(image, dtype=xp.float64), maskf).tolist()
    flat = image.reshape(-1)
    return float(stats[0]), float(stats[1]), float(np.sqrt(stats[2] / max(flat.size, 1)))


def stop_level(
    residual, psf, maskf, opts: CleanOptions, auto_threshold, peak: float | None = None
) -> tuple[float, str]:
    """(level, name) a cycle starting on ``residual`` stops at: the largest of its levels.

    The levels :func:`~uvlab.gpu.deconvolution.hogbom.hogbom` takes (the same order on
    ties): the threshold, ``auto_threshold·σ`` and ``(1 − mgain)·peak`` with the peak
    inside the mask — σ the noise's that extended emission does not inflate
    (:func:`~uvlab.gpu.deconvolution.noise.robust_sigma`; hogbom's own is the MAD).
    ``peak``: that peak where the caller has measured it already. Joined planes pass
    their linear image as ``residual`` (σ's: the polarisations' linear sum) and the
    search image's peak as ``peak``.
    """
    levels = {"threshold": float(opts.threshold_jy)}
    if auto_threshold:
        levels["auto-threshold"] = float(auto_threshold) * robust_sigma(residual, psf)
    if opts.mgain < 1.0:
        if peak is None:
            peak = image_stats(residual, maskf)[0]
        levels["mgain"] = (1.0 - float(opts.mgain)) * float(peak)
    name, level = max(levels.items(), key=lambda kv: kv[1])
    return level, name


def whole_image_loop(npix: int, active_max) -> bool:
    """Does :func:`~uvlab.gpu.deconvolution.hogbom.hogbom` run Högbom on the whole image?

    Then a minor cycle split into chunks makes exactly what it makes in one piece.
    """
    return active_max is None or 4 * int(active_max) >= npix * npix


def iter_clean(
    dirty, psf, opts: CleanOptions, *, mask=None, major=None, chunk: int | None = None,
    joined=None,
) -> Iterator[CleanCycle]:  # fmt: skip
    """CLEAN ``dirty`` with ``psf``: a :class:`CleanCycle` at the start and after each cycle.

    Parameters
    ----------
    dirty : (N, N) float, (P, N, N) with ``joined``, or None
        The dirty image (Jy/beam; NumPy or CuPy). None with ``major``: the major cycle's
        own image of the visibilities.
    psf : (2N, 2N) or (N, N) float; (P, Q, Q) with ``joined``
        Peak 1 at the centre; 2N subtracts sidelobes over the whole image.
    opts : CleanOptions
        ``deconvolver`` "cotton-schwab" needs ``major``.
    mask : (N, N) bool, optional
        Components only where True; with ``opts.mask_boxes``, inside the boxes too (the union).
    major : MajorCycle, optional
        Cotton–Schwab's residual from the visibilities
        (:class:`~uvlab.gpu.deconvolution.cotton_schwab.MajorCycle`); its residual of no model
        is the first residual.
    chunk : int, optional
        Also yield after every ``chunk`` iterations of a minor cycle — only where the
        minor loop is Högbom's on the whole image, where splitting changes nothing
        (:func:`whole_image_loop`), so every caller gets the same CLEAN.
    joined : JoinedChannels, JoinedPolarizations or JoinedChannelsPolarizations, optional
        Joined CLEAN of P planes (:mod:`uvlab.gpu.deconvolution.joined`); ``major`` is then a
        :class:`~uvlab.gpu.deconvolution.joined.JoinedMajor`. With ``opts.multiscale`` the
        minor cycles are :func:`~uvlab.gpu.deconvolution.multiscale.joined_multiscale`'s.

    Yields
    ------
    CleanCycle
        The start (no iterations), then after each cycle (and chunk); the last is
        ``done``, with ``stop_reason``.
    """
    if opts.deconvolver == "cotton-schwab" and major is None:
        raise ValueError("Cotton–Schwab needs the visibilities (a MajorCycle) for its majors")
    if opts.deconvolver == "hogbom":
        major = None
    if major is not None:
        residual = major.residual(None)
        xp = get_xp(residual)
    else:
        xp = get_xp(dirty)
        residual = xp.asarray(dirty, dtype=xp.float64)
    psf = xp.asarray(psf, dtype=xp.float64)
    n = residual.shape[-1]
    model = xp.zeros(residual.shape, dtype=xp.float64)
    mask = None if mask is None else xp.asarray(mask, dtype=bool)
    if opts.mask_boxes:
        boxes = box_mask(n, opts.mask_boxes, xp)
        mask = boxes if mask is None else boxes | mask
    maskf = None if mask is None else mask.astype(xp.float64)
    mean = (lambda r: r) if joined is None else joined.search
    hist = _History(residual, maskf, mean)
    if major is not None:
        hist.major_peaks.append(hist.known_peak(residual, masked=False))
    joined = None if joined is None else (joined, joined.linear(psf))  # and σ's PSF
    whole = (joined is not None or whole_image_loop(n, opts.active_max)) and not opts.multiscale
    step = int(chunk) if chunk and whole else None
    scales = None
    if opts.multiscale:
        # default scales from the joined PSF (the planes' linear combination)
        sizes = opts.multiscale_scales or default_scales(psf if joined is None else joined[1], n)
        scales = prepare_scales(
            sizes, opts.multiscale_scale_bias, psf, n, opts.multiscale_small_scale_bias
        )
    yield hist.state(model, residual)

    stages = [(mask, opts.auto_threshold)]
    if opts.auto_mask is not None:
        stages = [(mask, opts.auto_mask), (None, opts.auto_threshold)]
    left, reason = int(opts.niter), "niter"
    for k, (stage_mask, auto) in enumerate(stages):
        if k == 1:  # auto-mask's second stage: only where the first put components
            if reason != "auto-threshold" or left <= 0:
                break
            stage_mask = model != 0 if model.ndim == 2 else (model != 0).any(axis=0)
        smf = None if stage_mask is None else stage_mask.astype(xp.float64)
        model, residual, left, reason = yield from _cycles(
            hist,
            model,
            residual,
            psf,
            opts,
            auto,
            stage_mask,
            smf,
            major,
            left,
            step,
            scales,
            joined,
        )
    yield hist.state(model, residual, reason, done=True)


def _cycles(
    hist, model, residual, psf, opts, auto, mask, maskf, major, left, step, scales, joined=None
):
    """The cycles of one stage; returns (model, residual, iterations left, stop reason).

    ``scales``: multiscale's prepared scales (:func:`~uvlab.gpu.deconvolution.multiscale.
    prepare_scales`), or None for Högbom's minor cycles. ``joined``: (the joined planes,
    their linear PSF) for joined minor cycles.
    """
    reason = "niter"
    while left > 0:
        known = hist.known_peak(residual, maskf)
        if joined is None:
            level, name = stop_level(residual, psf, maskf, opts, auto, known)
        else:
            if known is None:  # the search image's peak, where the mgain level is taken
                known = image_stats(hist.mean(residual), maskf)[0]
            level, name = stop_level(joined[0].linear(residual), joined[1], maskf, opts, auto,
                                     known)  # fmt: skip
        start = hist.iterations
        while True:  # the minor cycle, in chunks of ``step`` where asked
            if joined is not None and scales is not None:
                res = joined_multiscale(
                    residual, psf, joined[0], scales=[sc.scale for sc in scales],
                    gain=opts.gain, niter=left, threshold=level, mask=mask, prepared=scales,
                )  # fmt: skip
            elif joined is not None:
                res = joined_hogbom(
                    residual, psf, joined[0], gain=opts.gain, niter=min(step or left, left),
                    threshold=level, mask=mask,
                )  # fmt: skip
            elif scales is not None:
                res = multiscale(
                    residual, psf, scales=[sc.scale for sc in scales], gain=opts.gain,
                    niter=left, threshold=level, mask=mask, prepared=scales,
                )  # fmt: skip
            else:
                res = hogbom(
                    residual, psf, gain=opts.gain, niter=min(step or left, left),
                    threshold=level, mask=mask, active_max=opts.active_max,
                )  # fmt: skip
            model = hist.add(res, model)
            residual = res.residual
            left -= res.iterations
            reason = name if res.stop_reason == "threshold" else res.stop_reason
            if res.stop_reason != "niter" or left == 0:
                break
            yield hist.state(model, residual)
        if hist.iterations == start:  # nothing above the stop level
            reason = "converged" if reason == "mgain" else reason
            break
        if major is not None:  # the major cycle: what the data still hold, exactly
            residual = major.residual(model)
            hist.set_last(residual, maskf)
            hist.majors += 1
            hist.major_peaks.append(hist.known_peak(residual, masked=False))
        hist.cycle_ends.append(hist.iterations)
        yield hist.state(model, residual)
        if reason != "mgain" or (major is not None and hist.majors >= opts.max_major):
            break
    return model, residual, left, reason


def run_clean(dirty, psf, opts: CleanOptions, **kw) -> CleanCycle:
    """:func:`iter_clean` driven to its end: the last (``done``) :class:`CleanCycle`."""
    last = None
    for last in iter_clean(dirty, psf, opts, **kw):  # noqa: B007
        pass
    return last
