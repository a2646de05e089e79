"""``uvlab image --pol LIST --channels-out N --join-channels --join-polarizations --niter``.

WSClean's two joins together: every polarisation is read and imaged as its own product,
each in N output channels with the MF weights of its own samples
(:func:`~uvlab.app.commands.image_channels.image_parts`), and then the N·P planes, one
per (channel, polarisation), are CLEANed together by the one driver with
:class:`~uvlab.gpu.deconvolution.joined.JoinedChannelsPolarizations`, as Radler does:

- peaks on each channel's root sum of squares of its polarisations (times √f, f = ½ for
  two or four correlations of one feed), averaged over the channels with the MFS weights
  (each channel's Σ of imaging weights — the first polarisation's, as Radler takes them);
- a component at that pixel in every plane, with that plane's own residual value (with
  ``--fit-spectral-pol K`` each polarisation's channel values replaced by their own K-term
  fit), each plane's own PSF of side 2N subtracted from its own residual;
- with Cotton–Schwab each plane's own major cycles; with ``--multiscale`` the joined
  multiscale minor cycles on the same search image.

Each plane is restored with its own PSF's beam; each polarisation's MFS images are its
channels' weighted means (:func:`~uvlab.app.commands.image_channels.mfs_clean`). The files
are WSClean's: ``PREFIX-0000-I-image.fits`` … ``PREFIX-MFS-I-image.fits``, the
polarisation after the channel, and ``PREFIX-I-sources.txt``. docs/cubes.md.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np


def later(args) -> bool:
    """Is this product's cube CLEANed later with the other polarisations' (both joins)?"""
    return (
        getattr(args, "channels_out", 1) > 1
        and bool(getattr(args, "joined_pols", None))
        and bool(getattr(args, "join_channels", False))
        and (args.niter or 0) > 0
    )


def image_cube(args, vd, spec, weighting, params, res):
    """One product's output channels imaged, not CLEANed: (ImagedParts, stage timing)."""
    import time

    from uvlab.app.commands.image_channels import image_parts

    t0 = time.perf_counter()
    parts = image_parts(vd, spec, args.channels_out, weighting, args.algorithm, params,
                        res.device, join=True)  # fmt: skip
    return parts, {"output channels": time.perf_counter() - t0}


def clean(ims, pols: tuple[str, ...]) -> list:
    """CLEAN the polarisations' cubes ``ims`` jointly; each one's MFS CLEAN, in ``pols``' order.

    ``ims``: the polarisations' :class:`~uvlab.app.commands.image.Imaged` with their
    ``parts`` (:func:`image_cube`), on one geometry and one channel split (exit 2 otherwise).
    Each ``im.channels`` gets its channels' CLEANs.
    """
    from uvlab.app.commands import joined_pols
    from uvlab.app.commands.clean_args import clean_options
    from uvlab.app.commands.image_channels import mfs_clean
    from uvlab.app.commands.image_outputs import psf_beam
    from uvlab.app.lab.joined_clean import clean_planes, plane_inputs
    from uvlab.app.lab.output_channels import spectral_fit
    from uvlab.app.runtime.progress import progress_bar
    from uvlab.gpu.deconvolution.joined import JoinedChannels, JoinedChannelsPolarizations

    joined_pols.check_geometry(ims, pols)
    first = ims[0]
    args, spec, device = first.args, first.spec, first.res.device
    split = [(c.start, c.stop) for c in first.channels]
    for im, p in zip(ims, pols, strict=True):
        if [(c.start, c.stop) for c in im.channels] != split:
            args.parser.error(f"--join-polarizations: {p}'s output channels are not "
                              f"{pols[0]}'s")  # fmt: skip
    opts = clean_options(args)
    nterms = getattr(args, "fit_spectral_pol", None)
    # planes channel-major: plane c·P + p is channel c's polarisation p (Radler's order)
    parts = [im.parts.parts[c] for c in range(len(split)) for im in ims]
    dirty = np.stack([im.channels[c].dirty for c in range(len(split)) for im in ims])
    with progress_bar("PSFs for CLEAN"):
        psfs, majors = plane_inputs(parts, spec, opts, first.params, first.parts.weighting,
                                    args.algorithm, device)  # fmt: skip
    channels = first.channels  # the MFS weights and the fit: the first polarisation's
    weights = JoinedChannels([c.sum_weights for c in channels], spectral_fit(channels, nterms))
    joined = JoinedChannelsPolarizations(weights, pols)
    cleans = clean_planes(dirty, psfs, majors, joined, spec, opts, first.clean_mask, device)
    out = []
    for k, im in enumerate(ims):
        mine = cleans[k :: len(ims)]
        im.channels = [replace(c, clean=d) for c, d in zip(im.channels, mine, strict=True)]
        out.append(mfs_clean(im.channels, psf_beam(im.res.psf, spec), True, nterms))
    return out
