"""``uvlab image --size W H``: non-square images, as the centre of a square one.

uvlab's gridders and image geometry (:class:`uvlab.gpu.image_spec.ImageSpec`)
are square, so a W × H image is imaged at N = max(W, H) on the same cell and
cropped about the phase centre (:func:`uvlab.app.outputs.fits_io.centre_crop`): the
centre pixel (N/2, N/2) goes to (W/2, H/2), FITS CRPIX = (W/2 + 1, H/2 + 1),
CASA's reference pixel. The PSF, model, residual and restored images are cropped
alike; the beam is fitted and CLEAN runs on the N² image, before the crop.
"""

from __future__ import annotations

import argparse
from dataclasses import replace

from uvlab.app.commands.validate import check_image_side, even_pixels


def add_size_arg(p: argparse.ArgumentParser) -> None:
    """``--size W H`` (WSClean's -size, tclean's imsize=[W, H])."""
    p.add_argument(
        "--size",
        type=even_pixels,
        nargs=2,
        metavar=("W", "H"),
        help="image width and height, pixels, even (as WSClean's -size W H); imaged at "
        "max(W, H)² and cropped about the centre",
    )


def resolve_size(args) -> tuple[int, int] | None:
    """(W, H) of ``--size`` (and ``args.npix`` set to max(W, H)), or None without it.

    A usage error (exit 2) for odd or small sides, or with ``--npix`` as well.
    """
    if not getattr(args, "size", None):
        return None
    w, h = args.size
    if args.npix is not None:
        args.parser.error("give --size W H or --npix N, not both")
    if min(w, h) < 2 or w % 2 or h % 2:
        args.parser.error(f"--size: W and H must be even numbers ≥ 2, got {w} {h}")
    args.npix = max(w, h)
    check_image_side(args.parser, args.npix, getattr(args, "support", None), "--size")
    return w, h


def crop_outputs(res, clean, size):
    """(res, clean) with every image cropped to ``size`` (W, H); unchanged when None."""
    from uvlab.app.outputs.fits_io import centre_crop

    if size is None:
        return res, clean
    w, h = size
    res = replace(res, dirty=centre_crop(res.dirty, w, h), psf=centre_crop(res.psf, w, h))
    if clean is not None:
        clean = replace(
            clean,
            model=centre_crop(clean.model, w, h),
            residual=centre_crop(clean.residual, w, h),
            restored=centre_crop(clean.restored, w, h),
        )
        terms = getattr(clean, "spectral_terms", None)
        if terms is not None:
            clean = replace(clean, spectral_terms=centre_crop(terms, w, h))
    return res, clean
