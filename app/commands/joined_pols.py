"""``uvlab image --pol LIST --join-polarizations --niter …``: WSClean's joined-polarisation CLEAN.

Every polarisation is read and imaged as its own product (its own dirty image, weights
and CLEAN PSF of side 2N, :func:`~uvlab.app.commands.image.image_product`), then they
are CLEANed together by the one driver with
:class:`~uvlab.gpu.deconvolution.joined.JoinedPolarizations`: peaks on the root sum of
squares of the residuals (½ of it squared for two or four correlations of one feed),
a component at that pixel in every polarisation with its own residual value, each
polarisation's PSF subtracted from its own residual, and with Cotton–Schwab each
polarisation's own major cycles; with ``--multiscale`` the joined multiscale minor cycles
(:func:`~uvlab.gpu.deconvolution.multiscale.joined_multiscale`: each scale's peak on the
root sum of squares of the polarisations' scale-convolved residuals). Each is restored
with the beam of its own PSF (WSClean makes one PSF, of the first polarisation, for all
of them; here each product's weights make its own) and written as the unjoined ``--pol``
run writes it: ``PREFIX-I-image.fits``, ``PREFIX-Q-model.fits`` … docs/cli.md, *Joined
polarisations*.
"""

from __future__ import annotations

import numpy as np

#: How many polarisations may be joined (WSClean: "two or four").
COUNTS = (2, 4)


def add_join_arg(p) -> None:
    """``--join-polarizations`` (WSClean's ``-join-polarizations``)."""
    p.add_argument(
        "--join-polarizations",
        action="store_true",
        help="WSClean's -join-polarizations: with --pol of two or four polarisations and "
        "--niter, find CLEAN's peaks on the root sum of their squares and put each "
        "component in every polarisation, with its own value",
    )


def check(args, pols: tuple[str, ...], shown: str) -> None:
    """Usage errors of ``--join-polarizations`` (exit 2, one line), before anything is read."""
    if not getattr(args, "join_polarizations", False):
        return
    if len(pols) not in COUNTS:
        args.parser.error(f"--join-polarizations with --pol {shown}: joins two or four "
                          f"polarisations, not {len(pols)}")  # fmt: skip


def check_geometry(ims, pols: tuple[str, ...]) -> None:
    """Exit 2 (one line) unless the polarisations' images ``ims`` share one geometry."""
    spec = ims[0].spec
    for im, p in zip(ims, pols, strict=True):
        if (im.spec.npix, im.spec.cell_rad) != (spec.npix, spec.cell_rad):
            im.args.parser.error(
                f"--join-polarizations: {p}'s image is {im.spec.npix}² × "
                f"{im.spec.cell_arcsec:.4g}\", {pols[0]}'s {spec.npix}² × "
                f'{spec.cell_arcsec:.4g}" (chosen from differently flagged data): give '
                "--npix and --cell-arcsec"
            )


def clean(ims, pols: tuple[str, ...]) -> list:
    """Each polarisation's :class:`~uvlab.app.lab.deconvolve.Deconvolved`, CLEANed jointly.

    ``ims``: the polarisations' :class:`~uvlab.app.commands.image.Imaged`, in ``pols``'
    order, on one geometry (exit 2 otherwise: their geometries were chosen from data
    flagged differently; give ``--npix`` and ``--cell-arcsec``).
    """
    from uvlab.app.commands.clean_args import clean_options
    from uvlab.app.commands.image_spws import clean_psf
    from uvlab.app.lab.deconvolve import major_cycle
    from uvlab.app.lab.joined_clean import clean_planes
    from uvlab.app.runtime.progress import progress_bar
    from uvlab.gpu.backend import get_xp
    from uvlab.gpu.deconvolution.joined import JoinedPolarizations

    first = ims[0]
    args, spec, device = first.args, first.spec, first.res.device
    check_geometry(ims, pols)
    opts = clean_options(args)
    with progress_bar("PSFs for CLEAN"):
        psfs = np.stack([clean_psf(im.vd, spec, im.wt, args.algorithm, im.params, device)
                         for im in ims])  # fmt: skip
    xp = get_xp(device=device)
    majors = None
    if opts.deconvolver == "cotton-schwab":
        majors = [major_cycle(im.vd, spec, opts, im.params, im.wt, args.algorithm, xp)
                  for im in ims]  # fmt: skip
    dirty = np.stack([im.res.dirty for im in ims])
    joined = JoinedPolarizations(pols)
    return clean_planes(dirty, psfs, majors, joined, spec, opts, first.clean_mask, device)
