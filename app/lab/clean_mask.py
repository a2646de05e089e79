"""A CLEAN mask from a FITS image (WSClean's ``-fits-mask``), for both front ends.

``uvlab image --fits-mask`` (:mod:`uvlab.app.commands.clean_mask`) and the window's
Deconvolution tab (:class:`~uvlab.app.lab.state.CleanRecord`) read a mask file here:
its non-zero, finite pixels may hold components, its rows the image's rows.
"""

from __future__ import annotations

import numpy as np


class MaskError(ValueError):
    """A mask that cannot be used; one line naming the box or file."""


def read_fits_mask(path, width: int, height: int) -> np.ndarray:
    """(height, width) bool: where the FITS image at ``path`` is finite and non-zero.

    Raises
    ------
    MaskError
        The file is unreadable, holds no image, or has another shape.
    """
    from astropy.io import fits

    try:
        with fits.open(path) as hdul:
            data = hdul[0].data
    except (OSError, ValueError) as exc:
        raise MaskError(f"{path}: not a readable FITS mask ({exc})") from None
    if data is None:
        raise MaskError(f"{path}: the FITS mask holds no image")
    data = np.asarray(data, dtype=np.float64)
    data = (
        data.reshape(data.shape[-2:])
        if data.ndim > 2 and data.size == np.prod(data.shape[-2:])
        else data
    )
    if data.shape != (height, width):
        raise MaskError(
            f"{path}: the FITS mask is {data.shape[-1]} × {data.shape[-2]} pixels, the image "
            f"{width} × {height}"
        )
    return np.isfinite(data) & (data != 0)


def read_mask(path, width: int, height: int) -> np.ndarray:
    """:func:`read_fits_mask`, refusing a mask that allows no pixel (MaskError)."""
    mask = read_fits_mask(path, width, height)
    if not mask.any():
        raise MaskError(f"{path}: the mask allows no pixel")
    return mask
