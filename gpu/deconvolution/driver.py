"""The one CLEAN driver: minor cycles, major cycles, masks, auto-mask (issue 26).

Shaped as WSClean's deconvolution driver: :func:`iter_clean` is a generator that
runs the cycles and yields a :class:`CleanCycle` after each (and, when asked, after
each chunk of a long minor cycle); the last one it yields has ``done`` set. Its
callers only drive it: ``uvlab image --niter`` (:mod:`uvlab.app.lab.deconvolve`),
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
them (:func:`~uvlab.gpu.backend.to_numpy`); the histories are NumPy. The yielded record
and the history it is made from are :mod:`uvlab.gpu.deconvolution.history`'s, the stop
level and the image statistics :mod:`uvlab.gpu.deconvolution.levels`'.
"""

from __future__ import annotations

from collections.abc import Iterator

from uvlab.gpu.backend import get_xp
from uvlab.gpu.deconvolution.history import CleanCycle, CleanHistory
from uvlab.gpu.deconvolution.hogbom import hogbom
from uvlab.gpu.deconvolution.joined import joined_hogbom
from uvlab.gpu.deconvolution.levels import image_stats, stop_level
from uvlab.gpu.deconvolution.mask import box_mask
from uvlab.gpu.deconvolution.multiscale import (
    default_scales,
    joined_multiscale,
    multiscale,
    prepare_scales,
)
from uvlab.gpu.deconvolution.options import CleanOptions


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
    hist = CleanHistory(residual, maskf, mean)
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
