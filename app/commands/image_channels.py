"""``uvlab image --channels-out N``: the selected channels imaged as N output channels.

WSClean's spectral imaging (``-channels-out``; ``-join-channels``: MF weighting and the
joined CLEAN of :mod:`uvlab.app.lab.joined_clean`):

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
The split, the imaging and the MFS means are :mod:`uvlab.app.lab.output_channels`, which
the window's joined CLEAN (:mod:`uvlab.app.lab.joined_task`) runs too.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

# the output channels' split, imaging and MFS means live in the lab, which the window's
# joined CLEAN shares; the commands import them from here as before
from uvlab.app.lab.output_channels import (
    ImagedParts,
    OutputChannel,
    bandwidth,
    centre_frequency,
    channel_data,
    channel_ranges,
    image_parts,
    mf_weights,
    mfs_clean,
    mfs_mean,
)

__all__ = [
    "ImagedParts", "OutputChannel", "add_channel_args", "bandwidth", "centre_frequency",
    "channel_data", "channel_ranges", "channels_estimate", "check_channel_args", "image_channels",
    "image_parts", "mf_weights", "mfs_clean", "mfs_mean", "run_channels",
]  # fmt: skip


def image_channels(vd, spec, n: int, weighting, algorithm, params, device, clean_opts=None,
                   mask=None, join: bool = False, nterms: int | None = None,
                   ) -> list[OutputChannel]:  # fmt: skip
    """The ``n`` output channels of ``vd``, each imaged (and with ``clean_opts`` CLEANed).

    Without ``join`` each channel is weighted and CLEANed alone; with it
    (``--join-channels``) the weights of all channels share one density grid
    (:func:`mf_weights`) and the channels are CLEANed jointly
    (:func:`~uvlab.app.lab.joined_clean.clean_joined`).

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
        from uvlab.app.lab.joined_clean import clean_joined

        cleans = clean_joined(parts, out, spec, clean_opts, params, weighting, algorithm, mask,
                              device, nterms)  # fmt: skip
    else:
        cleans = [_clean_one(p, spec, c.dirty, device, clean_opts, params, weighting, algorithm,
                             mask) for p, c in zip(parts, out, strict=True)]  # fmt: skip
    return [replace(c, clean=k) for c, k in zip(out, cleans, strict=True)]


def _clean_one(part, spec, dirty, device, opts, params, weighting, algorithm, mask):
    """One output channel's CLEAN: its own PSF of side 2N, its own major cycles."""
    from uvlab.app.lab.deconvolve import clean, wide_psf

    psf2 = wide_psf(part, spec, weighting, algorithm, params, device)
    return clean(part, spec, dirty, psf2, opts, params, weighting, device,
                 algorithm=algorithm, mask=mask)  # fmt: skip


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
