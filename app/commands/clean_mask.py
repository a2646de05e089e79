"""``uvlab image`` CLEAN masks: boxes (tclean's ``mask='box[...]'``) and a FITS mask (WSClean's
``-fits-mask``), in the pixels of the image written.

A box is ``X0 Y0 X1 Y1``: inclusive 0-based FITS pixel corners (x along RA, the
column; y along Dec, the row), as CASA's box region gives them. A FITS mask has
the written image's shape (``--size W H``, or N × N); its non-zero, finite pixels
may hold components. Boxes and a FITS mask together allow their union. With
``--size`` the image is cleaned on the square max(W, H)² grid, and the mask is
placed at the written image's centre there (:func:`square_mask`).
"""

from __future__ import annotations

import numpy as np

from uvlab.app.lab.clean_mask import MaskError, read_fits_mask

__all__ = ["MaskError", "add_mask_args", "output_mask", "square_mask"]


def add_mask_args(g) -> None:
    """``--mask-box`` (repeatable) and ``--fits-mask`` on the deconvolution group ``g``."""
    g.add_argument(
        "--mask-box",
        type=int,
        nargs=4,
        action="append",
        metavar=("X0", "Y0", "X1", "Y1"),
        help="clean only inside this box, inclusive 0-based pixel corners of the image "
        "written (x along RA, y along Dec, as CASA's box); repeat for several",
    )
    g.add_argument(
        "--fits-mask",
        metavar="FILE",
        help="clean only where this FITS image (the written image's shape) is non-zero "
        "(WSClean's -fits-mask)",
    )


def output_mask(args, width: int, height: int):
    """(height, width) bool mask of the image written, or None without mask options."""
    boxes, path = getattr(args, "mask_box", None), getattr(args, "fits_mask", None)
    if not boxes and not path:
        return None
    mask = np.zeros((height, width), dtype=bool)
    for x0, y0, x1, y1 in boxes or ():
        (x0, x1), (y0, y1) = sorted((x0, x1)), sorted((y0, y1))
        if x1 < 0 or y1 < 0 or x0 >= width or y0 >= height:
            raise MaskError(
                f"--mask-box {x0} {y0} {x1} {y1} lies outside the {width} × {height} image"
            )
        mask[max(y0, 0) : min(y1, height - 1) + 1, max(x0, 0) : min(x1, width - 1) + 1] = True
    if path:
        mask |= read_fits_mask(path, width, height)
    if not mask.any():
        raise MaskError(f"{path}: the mask allows no pixel")
    return mask


def square_mask(mask, npix: int):
    """The (npix, npix) mask with the written image's mask at its centre (None stays None)."""
    if mask is None:
        return None
    h, w = mask.shape
    out = np.zeros((npix, npix), dtype=bool)
    j0, i0 = npix // 2 - h // 2, npix // 2 - w // 2
    out[j0 : j0 + h, i0 : i0 + w] = mask
    return out
