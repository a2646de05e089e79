"""``uvlab image --channels-out N``: the selected channels imaged as N output channels.

WSClean's spectral imaging (``-channels-out``; ``-join-channels``: MF weighting and the
joined CLEAN of :mod:`uvlab.app.commands.joined_clean`):

- the selected channels are divided into N output channels of (near) equal
  numbers of input channels, WSClean's split: output channel k holds input
  channels ``⌊k·n/N⌋ … ⌊(k+1)·n/N⌋ − 1`` of the n selected (:func:`channel_ranges`);
- each output channel is imaged on its own, with its own uniform/Briggs density
  (WSClean's default, ``-no-mf-weighting``: "the weights of each imaged channel
  are gridded on a separate grid") and its own PSF, and with ``--niter`` is
  deconvolved on its own (:func:`image_channels`);
- its FITS files carry CRVAL3, the weighted centre frequency of its channels
  (:func:`centre_frequency`), and CDELT3, its bandwidth (:func:`bandwidth`);
- the MFS model, residual and restored images are the weighted mean of the
  channel images (:func:`mfs_clean`), as WSClean's ``PREFIX-MFS-*.fits`` ("the
  weighted sum over all images", each weighted by its sum of imaging weights,
  WSClean's WSCIMGWG). The MFS dirty image and PSF are the image of all the
  selected channels together, as ``uvlab image`` writes without the flag.

The files: ``PREFIX-0000-dirty.fits`` … ``PREFIX-{N−1:04d}-dirty.fits`` and ``-psf``
(with CLEAN ``-model``, ``-residual``, ``-image``) per output channel, and
``PREFIX-MFS-*.fits`` (:func:`~uvlab.app.commands.image_outputs.cube_names`); docs/cubes.md.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

#: The images of one output channel, and with CLEAN those of the MFS set too.


@dataclass(frozen=True)
class OutputChannel:
    """One output channel's images.

    Attributes
    ----------
    index : int
        Output channel k, from 0.
    start, stop : int
        Its input channels ``start … stop − 1`` of the selection.
    freq_hz : float
        The weighted centre frequency (:func:`centre_frequency`).
    bandwidth_hz : float
    dirty, psf : (N, N) float64
        Normalised by its own Σw (DESIGN §1).
    sum_weights : float
        Σ of its imaging weights: its weight in the MFS mean.
    nvis : int
    clean : Deconvolved or None
    """

    index: int
    start: int
    stop: int
    freq_hz: float
    bandwidth_hz: float
    dirty: np.ndarray
    psf: np.ndarray
    sum_weights: float
    nvis: int
    clean: object = None


def channel_ranges(nchan: int, n: int) -> list[tuple[int, int]]:
    """WSClean's split of ``nchan`` channels into ``n`` output channels: (start, stop) each.

    Output channel k holds ``⌊k·nchan/n⌋ … ⌊(k+1)·nchan/n⌋ − 1``: sizes differ by at most one.
    """
    if not 1 <= n <= nchan:
        raise ValueError(f"{n} output channels of {nchan} channels")
    return [(k * nchan // n, (k + 1) * nchan // n) for k in range(n)]


def centre_frequency(freq_hz, weight, flag) -> float:
    """Σ_c W_c·ν_c / Σ_c W_c, W_c the data weight of channel c's unflagged samples (Hz).

    The plain mean of ``freq_hz`` where every sample has zero weight.
    """
    w = np.where(np.asarray(flag), 0.0, np.asarray(weight, dtype=np.float64))
    w = np.where(np.isfinite(w) & (w > 0), w, 0.0)
    wc = np.broadcast_to(w, np.shape(flag)).sum(axis=0)
    freq = np.asarray(freq_hz, dtype=np.float64)
    return float((wc * freq).sum() / wc.sum()) if wc.sum() > 0 else float(freq.mean())


def bandwidth(freq_hz, chan_width_hz: float) -> float:
    """The band the channels cover: from the lowest channel's lower edge to the highest's upper."""
    freq = np.asarray(freq_hz, dtype=np.float64)
    return float(freq.max() - freq.min() + abs(chan_width_hz))


def channel_data(vd, start: int, stop: int):
    """``vd`` (a VisData) restricted to input channels ``start … stop − 1``."""
    sl = slice(start, stop)
    weight = vd.weight if np.ndim(vd.weight) < 2 else vd.weight[:, sl]
    return replace(vd, freq_hz=vd.freq_hz[sl], vis=vd.vis[:, sl], weight=weight,
                   flag=vd.flag[:, sl])  # fmt: skip


def image_channels(vd, spec, n: int, weighting, algorithm, params, device, clean_opts=None,
                   mask=None, join: bool = False, nterms: int | None = None,
                   ) -> list[OutputChannel]:  # fmt: skip
    """The ``n`` output channels of ``vd``, each imaged (and with ``clean_opts`` CLEANed).

    Without ``join`` each channel is weighted and CLEANed alone; with it
    (``--join-channels``) the weights of all channels share one density grid
    (:func:`mf_weights`) and the channels are CLEANed jointly
    (:func:`~uvlab.app.commands.joined_clean.clean_joined`).

    Parameters
    ----------
    vd : VisData
    spec : ImageSpec
    n : int
        Output channels, 1 … ``vd.nchan``.
    weighting : Weighting
        Its density counted on each output channel's own samples.
    algorithm, params, device
        The imaging's (:func:`uvlab.gpu.imaging.imager.make_image`).
    clean_opts : CleanOptions, optional
        CLEAN each output channel with its own PSF.
    mask : (N, N) bool, optional
        The CLEAN mask, the same for every channel.
    join : bool
        WSClean's ``-join-channels``: MF weighting and joined CLEAN.
    nterms : int, optional
        ``--fit-spectral-pol``: the joined CLEAN's components fitted with this many terms.
    """
    imaged = image_parts(vd, spec, n, weighting, algorithm, params, device, join)
    out, parts, weighting = imaged.channels, imaged.parts, imaged.weighting
    if clean_opts is None:
        return out
    if join:
        from uvlab.app.commands.joined_clean import clean_joined

        cleans = clean_joined(parts, out, spec, clean_opts, params, weighting, algorithm, mask,
                              device, nterms)  # fmt: skip
    else:
        cleans = [_clean_one(p, spec, c.dirty, device, clean_opts, params, weighting, algorithm,
                             mask) for p, c in zip(parts, out, strict=True)]  # fmt: skip
    return [replace(c, clean=k) for c, k in zip(out, cleans, strict=True)]


@dataclass(frozen=True)
class ImagedParts:
    """The output channels imaged, before any CLEAN (:func:`image_parts`).

    Attributes
    ----------
    channels : list of OutputChannel
        Without ``clean``.
    parts : list of VisData
        Each output channel's visibilities, with the imaging weights of ``weighting``
        applied to them (their weights: the MF weights with ``--join-channels``).
    weighting : Weighting
        What ``parts`` are still to be weighted with (natural after MF weighting).
    """

    channels: list
    parts: list
    weighting: object


def image_parts(vd, spec, n: int, weighting, algorithm, params, device, join: bool = False
                ) -> ImagedParts:  # fmt: skip
    """The ``n`` output channels of ``vd`` imaged, not CLEANed (:func:`image_channels`'s
    parameters); with ``join`` the MF weights (:func:`mf_weights`) made once on all."""
    from uvlab.gpu.imaging.imager import ImagingError, make_image
    from uvlab.gpu.imaging.weighting import Weighting

    data = vd  # CRVAL3 from the data weights, with MF weighting too
    if join:  # the imaging weights made once on all channels, then used as they are
        vd, weighting = replace(vd, weight=mf_weights(vd, spec, weighting)), Weighting()
    out, parts = [], []
    for k, (start, stop) in enumerate(channel_ranges(vd.nchan, n)):
        part, own = channel_data(vd, start, stop), channel_data(data, start, stop)
        try:
            res = make_image(part.uvw, part.freq_hz, part.vis, part.weight, spec,
                             flag=part.flag, weighting=weighting, algorithm=algorithm,
                             params=params, device=device)  # fmt: skip
        except ImagingError as exc:  # e.g. every sample of this output channel flagged
            raise ImagingError(f"--channels-out: output channel {k} (input channels "
                               f"{start}-{stop - 1}): {exc}") from None  # fmt: skip
        parts.append(part)
        out.append(
            OutputChannel(
                k, start, stop, centre_frequency(own.freq_hz, own.weight, own.flag),
                bandwidth(part.freq_hz, vd.chan_width_hz), res.dirty, res.psf,
                float(res.sum_weights), int(res.nvis),
            )
        )  # fmt: skip
    return ImagedParts(out, parts, weighting)


def mf_weights(vd, spec, weighting) -> np.ndarray:
    """(row, chan) imaging weights of all channels on one density grid (WSClean's MF weighting).

    Uniform and Briggs count the density of every selected channel's samples together, as
    the MFS image does, so that the channel images' weighted mean is the MFS image; the
    taper is applied too. Zero where a sample is flagged or has no usable weight.
    """
    from uvlab.gpu.constants import C_LIGHT
    from uvlab.gpu.imaging.weighting import imaging_weights

    w = np.broadcast_to(np.asarray(vd.weight, dtype=np.float64), vd.flag.shape)
    ok = ~np.asarray(vd.flag) & np.isfinite(w) & (w > 0)
    scale = np.asarray(vd.freq_hz, dtype=np.float64)[None, :] / C_LIGHT
    u, v = (np.asarray(vd.uvw[:, k], dtype=np.float64)[:, None] * scale for k in (0, 1))
    out = np.zeros(vd.flag.shape)
    out[ok] = imaging_weights(u[ok], v[ok], w[ok], spec, weighting)
    return out


def _clean_one(part, spec, dirty, device, opts, params, weighting, algorithm, mask):
    """One output channel's CLEAN: its own PSF of side 2N, its own major cycles."""
    from uvlab.app.commands.deconvolve import clean, wide_psf

    psf2 = wide_psf(part, spec, weighting, algorithm, params, device)
    return clean(part, spec, dirty, psf2, opts, params, weighting, device,
                 algorithm=algorithm, mask=mask)  # fmt: skip


def mfs_mean(images, weights) -> np.ndarray:
    """Σ_k W_k·I_k / Σ_k W_k: WSClean's MFS image of the channel images ``images``."""
    w = np.asarray(weights, dtype=np.float64)
    return np.tensordot(w / w.sum(), np.asarray(images, dtype=np.float64), axes=1)


def mfs_clean(channels: list[OutputChannel], beam, join: bool = False, nterms=None):
    """The MFS model, residual and restored image: the channels' weighted means.

    ``beam``: the MFS PSF's fitted beam, written on the MFS image. The iterations are
    the channels' total (joined: the joined CLEAN's); the stop reason each channel's,
    joined. ``nterms``: the spectral terms of the model's pixels for the component list.
    """
    cleans = [c.clean for c in channels]
    w = [c.sum_weights for c in channels]
    extra = {}
    if nterms:
        from uvlab.app.commands.joined_clean import spectral_terms

        extra["spectral_terms"], extra["ref_freq_hz"] = spectral_terms(channels, nterms)
    return replace(
        cleans[0],
        model=mfs_mean([c.model for c in cleans], w),
        residual=mfs_mean([c.residual for c in cleans], w),
        restored=mfs_mean([c.restored for c in cleans], w),
        beam=beam,
        iterations=cleans[0].iterations if join else sum(c.iterations for c in cleans),
        cycles=max(c.cycles for c in cleans),
        stop_reason="; ".join(sorted({c.stop_reason for c in cleans})),
        **extra,
    )


def add_channel_args(p) -> None:
    """--channels-out and --join-channels (WSClean's names)."""
    from uvlab.app.commands.validate import number

    g = p.add_argument_group(
        "spectral imaging",
        "with --channels-out N > 1 write PREFIX-0000-dirty.fits … per output channel and "
        "PREFIX-MFS-*.fits (docs/cubes.md)",
    )
    g.add_argument(
        "--channels-out", type=number(1, integer=True), default=1, metavar="N",
        help="divide the selected channels into N output channels of (near) equal numbers "
        "of channels, each imaged (and CLEANed) on its own, as WSClean's -channels-out "
        "(default 1: one image)",
    )  # fmt: skip
    g.add_argument(
        "--join-channels", action="store_true",
        help="WSClean's -join-channels: one density grid for all channels' weights (MF "
        "weighting) and, with --niter, joined CLEAN: peaks on the MFS image, a component "
        "in every channel",
    )  # fmt: skip
    g.add_argument(
        "--fit-spectral-pol", type=number(1, integer=True), metavar="K",
        help="WSClean's -fit-spectral-pol: with --join-channels, fit a polynomial of K terms "
        "in ν/ν0 − 1 to each CLEAN component's channel values; PREFIX-sources.txt carries "
        "the terms (LogarithmicSI false)",
    )  # fmt: skip


def check_channel_args(args, nchan: int | None = None) -> None:
    """Usage errors (exit 2, one line): --fit-spectral-pol without what it needs; N above
    ``nchan``."""
    k = getattr(args, "fit_spectral_pol", None)
    if k is not None and not getattr(args, "join_channels", False):
        args.parser.error("--fit-spectral-pol needs --join-channels (and --channels-out N > 1)")
    n = getattr(args, "channels_out", 1)
    if k is not None and n < 2:
        args.parser.error("--fit-spectral-pol needs --channels-out N > 1")
    if k is not None and k > n:
        args.parser.error(f"--fit-spectral-pol: {k} terms, but only {n} output channels")
    if n > 1 and getattr(args, "pb_correct", False):
        args.parser.error("--pb-correct with --channels-out: not yet supported")
    if nchan is not None and n > nchan:
        args.parser.error(f"--channels-out: {n} output channels, but only {nchan} "
                          "channels are selected")  # fmt: skip


def run_channels(args, vd, spec, weighting, params, res, mask):
    """``uvlab image``'s output channels: (channels, the MFS CLEAN or None, stage timing).

    :func:`image_channels` with the options (CLEAN with ``--niter`` > 0, on ``res``'s
    device); the MFS CLEAN images are the channels' weighted means (:func:`mfs_clean`) with
    the beam fitted to ``res``'s (the MFS image's) PSF.
    """
    import time

    from uvlab.app.commands.clean_args import clean_options
    from uvlab.app.commands.image_outputs import psf_beam

    t0 = time.perf_counter()
    opts = clean_options(args) if args.niter > 0 else None
    nterms = getattr(args, "fit_spectral_pol", None)
    channels = image_channels(vd, spec, args.channels_out, weighting, args.algorithm, params,
                              res.device, opts, mask, join=args.join_channels,
                              nterms=nterms)  # fmt: skip
    clean = None
    if opts is not None:
        clean = mfs_clean(channels, psf_beam(res.psf, spec), args.join_channels, nterms)
    return channels, clean, {"output channels": time.perf_counter() - t0}


#: N² float64 images per output channel that joined CLEAN adds: the 2N PSF (4), the
#: driver's residual and model stacks and the dirty stack handed to it (3).
JOINED_EXTRA = 7
#: And per scale above 0 with ``--multiscale``: its two convolved 2N PSFs (8), the
#: channel's scale-convolved residual and its copy while they are stacked (2).
JOINED_PER_SCALE = 10


def joined_scales(args, npix: int) -> int:
    """Scales above 0 of joined multiscale: those given, or at most WSClean's default's
    (from a beam of 2 pixels: 4, 8, … N/2)."""
    given = getattr(args, "multiscale_scales", None)
    if given is not None:
        return sum(1 for s in given if s > 0)
    return max(0, int(np.log2(npix / 8)) + 1)


def channels_estimate(args, npix: int):
    """The memory ``--channels-out N``'s images take until they are written.

    Each float64 (N, N) per output channel: dirty and PSF, with CLEAN also model, residual
    and restored. Each channel is imaged (and CLEANed alone) in turn, in the memory the MFS
    image needed. Joined CLEAN holds every channel at once: its PSF of side 2N (4 N²) and
    the driver's residual and model stacks (:data:`JOINED_EXTRA` N² per channel); joined
    multiscale also each scale's PSFs and convolved residual (:data:`JOINED_PER_SCALE` N²
    per channel and scale, :func:`joined_scales`); with ``--join-polarizations`` too, all
    of that for every polarisation (:mod:`uvlab.app.commands.joined_cube`).
    """
    from uvlab.app.commands.image_outputs import CLEAN_KINDS, DIRTY_KINDS
    from uvlab.app.runtime.memory import MemoryEstimate

    clean = (args.niter or 0) > 0
    per = len(DIRTY_KINDS + CLEAN_KINDS) if clean else len(DIRTY_KINDS)
    count = 1
    if clean and getattr(args, "join_channels", False):
        per += JOINED_EXTRA
        if getattr(args, "multiscale", False):
            per += JOINED_PER_SCALE * joined_scales(args, npix)
        count = len(getattr(args, "joined_pols", None) or ()) or 1  # all polarisations at once
    n = float(args.channels_out) * count
    return MemoryEstimate({"output channel images": n * per * npix**2 * 8})
