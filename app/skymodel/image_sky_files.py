"""An image sky read from a file or named: a picture, a FITS image or a demo picture.

:func:`load_image_sky` takes any of them: :func:`read_picture` (a picture ``width_arcmin``
wide, centred on the phase centre), :func:`read_fits_sky` (a FITS image where its
celestial WCS says) or a drawn demo picture
(:func:`~uvlab.app.skymodel.demo_pictures.demo_picture`); each gives an
:class:`~uvlab.app.skymodel.image_sky.ImageSky`.

Errors are :class:`~uvlab.app.skymodel.checks.SkyModelError`, one line
naming the file: not an image, no celestial WCS, a unit that is not a flux
density, nothing but zeros, an absurd size.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np

from uvlab.app.outputs.fits_io import check_wcs_cards
from uvlab.app.skymodel.checks import SkyModelError
from uvlab.app.skymodel.demo_pictures import DEMO_PICTURES, demo_picture
from uvlab.app.skymodel.image_sky import ARCSEC, ImageSky
from uvlab.app.skymodel.limits import MAX_FLUX_JY, MAX_PICTURE_ARCMIN
from uvlab.app.skymodel.text_format import check_regular
from uvlab.app.skymodel.wcs_checks import check_pixels, wcslib_reason

#: Largest source image read (pixels per side).
MAX_SIDE = 16384
#: Picture extensions read with Pillow.
PICTURE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".bmp", ".tif", ".tiff")


def _check_image(data: np.ndarray, path) -> tuple[np.ndarray, tuple[str, ...]]:
    """Finite float64 2-D data, non-negative totals; notes for what was replaced."""
    data = np.asarray(data, dtype=np.float64)
    if data.ndim != 2 or min(data.shape) < 2:
        raise SkyModelError(f"expected a 2-D image, got shape {data.shape}", path)
    if max(data.shape) > MAX_SIDE:
        raise SkyModelError(
            f"{data.shape[1]}×{data.shape[0]} pixels is larger than uvlab reads "
            f"({MAX_SIDE} per side): shrink the image first",
            path,
        )
    notes = ()
    bad = ~np.isfinite(data)
    if bad.any():
        data = np.where(bad, 0.0, data)
        notes = (f"{int(bad.sum())} blank or non-finite pixels read as 0",)
    if not np.any(data != 0):
        raise SkyModelError("the image is zero everywhere: nothing to observe", path)
    return data, notes


def read_picture(
    path: str | os.PathLike, width_arcmin: float, flux_jy: float = 1.0, name: str | None = None
) -> ImageSky:
    """A picture (PNG, JPEG, …) as a relative sky ``width_arcmin`` wide of total ``flux_jy``.

    The picture's luminance is the brightness; its top is north and its left
    east, as a picture of the sky is shown. Pixels are square: the height is
    the width times rows/columns.
    """
    import warnings

    from PIL import Image, UnidentifiedImageError

    if not (0 < width_arcmin <= MAX_PICTURE_ARCMIN):
        raise SkyModelError(
            f"the picture's width (--image-sky-width-arcmin) must be > 0 and ≤ "
            f"{MAX_PICTURE_ARCMIN:g} arcmin (180°), got {width_arcmin:g}",
            path,
        )
    if not (0 < flux_jy <= MAX_FLUX_JY):
        raise SkyModelError(
            f"the total flux (--image-sky-flux-jy) must be > 0 and ≤ {MAX_FLUX_JY:g} Jy, "
            f"got {flux_jy:g}",
            path,
        )
    check_regular(Path(path))
    try:
        with warnings.catch_warnings():  # Pillow's DecompressionBombWarning: refused below
            warnings.simplefilter("ignore")
            im = Image.open(path)
        with im:
            if max(im.size) > MAX_SIDE:
                raise SkyModelError(
                    f"{im.size[0]}×{im.size[1]} pixels is larger than uvlab reads "
                    f"({MAX_SIDE} per side): shrink the picture first",
                    path,
                )
            grey = np.asarray(im.convert("F"), dtype=np.float64)  # ITU-R 601 luminance
    except FileNotFoundError:
        raise SkyModelError("no such file", path) from None
    except Image.DecompressionBombError:
        raise SkyModelError(
            f"too many pixels (a decompression bomb?): uvlab reads at most {MAX_SIDE} per side",
            path,
        ) from None
    except (UnidentifiedImageError, OSError, ValueError) as exc:
        raise SkyModelError(
            f"not a picture uvlab can read ({exc.__class__.__name__})", path
        ) from None
    data, notes = _check_image(grey[::-1, :], path)  # first row of a picture: north
    data = np.clip(data, 0.0, None)
    image = data * (flux_jy / data.sum())
    pixel = width_arcmin * 60.0 * ARCSEC / image.shape[1]
    return ImageSky(image, name or Path(path).stem, pixel_rad=pixel, notes=notes)


def read_fits_sky(path: str | os.PathLike) -> ImageSky:
    """A FITS image with a celestial WCS as an absolute sky (Jy/pixel).

    BUNIT ``Jy/pixel`` is used as it is; ``Jy/beam`` needs BMAJ and BMIN to be
    converted (× pixel area / beam area); no BUNIT is read as Jy/pixel, with a
    note. Extra axes (frequency, Stokes) give their first plane, with a note.
    """
    import warnings

    from astropy.io import fits
    from astropy.wcs import WCS

    check_regular(Path(path))
    with warnings.catch_warnings():  # astropy's WARNINGs (fixed cards, bad values): checked below
        warnings.simplefilter("ignore")
        try:
            with fits.open(path) as hdul:
                hdu = next((h for h in hdul if getattr(h, "data", None) is not None), None)
                if hdu is None or hdu.data.ndim < 2:
                    raise SkyModelError("no image in this FITS file", path)
                header, data = hdu.header, np.asarray(hdu.data)
        except FileNotFoundError:
            raise SkyModelError("no such file", path) from None
        except (OSError, ValueError, TypeError) as exc:
            why = " ".join(str(exc).split())
            raise SkyModelError(f"not a FITS file uvlab can read ({why})", path) from None
        check_wcs_cards(header, lambda why: SkyModelError(why, path))
        try:
            wcs = WCS(header).celestial
        except Exception as exc:  # astropy/WCSLIB: singular matrix, bad keyword values
            raise SkyModelError(f"no usable WCS: {wcslib_reason(exc)}", path) from None
    if not wcs.has_celestial or wcs.naxis != 2:
        raise SkyModelError("no celestial WCS (RA/Dec axes) in this FITS image", path)
    check_pixels(wcs, path)
    notes = []
    extra = data.ndim - 2
    if extra:
        planes = int(np.prod(data.shape[:-2]))
        data = data.reshape(-1, *data.shape[-2:])[0]
        if planes > 1:
            notes.append(f"{planes} planes (frequency/Stokes): the first one is the sky")
    data, more = _check_image(data, path)
    notes += more
    bunit = str(header.get("BUNIT", "")).strip().lower().replace(" ", "")
    pix_area = abs(np.linalg.det(wcs.pixel_scale_matrix)) * (math.pi / 180.0) ** 2
    if bunit in ("jy/beam", "jy/bm"):
        bmaj, bmin = header.get("BMAJ"), header.get("BMIN")
        if not bmaj or not bmin:
            raise SkyModelError("BUNIT is Jy/beam but BMAJ/BMIN give no beam to convert", path)
        beam = math.pi * math.radians(bmaj) * math.radians(bmin) / (4.0 * math.log(2.0))
        data = data * (pix_area / beam)
        notes.append("Jy/beam converted to Jy/pixel with the header's beam")
    elif bunit == "":
        notes.append("no BUNIT: read as Jy/pixel")
    elif bunit not in ("jy/pixel", "jy/pix", "jy"):
        raise SkyModelError(f"BUNIT {header['BUNIT']!r} is not a flux density (Jy/pixel)", path)
    freq = _header_freq(header)
    return ImageSky(
        data,
        str(header.get("OBJECT", "")).strip() or Path(path).stem,
        wcs=wcs,
        ref_freq_hz=freq or 1.4e9,
        notes=tuple(notes),
    )


def _header_freq(header) -> float | None:
    for k in range(1, int(header.get("NAXIS", 0)) + 1):
        if str(header.get(f"CTYPE{k}", "")).upper().startswith("FREQ"):
            return float(header.get(f"CRVAL{k}"))
    rest = header.get("RESTFRQ") or header.get("RESTFREQ")
    return float(rest) if rest else None


def load_image_sky(
    source: str | os.PathLike, *, width_arcmin: float | None = None, flux_jy: float = 1.0
) -> ImageSky:
    """A FITS image, a picture file or a demo picture name (``picture:NAME`` or NAME).

    A picture needs ``width_arcmin``; a demo picture defaults to 4′.
    """
    text = os.fspath(source)
    path = Path(text)
    if path.suffix.lower() in (".fits", ".fit", ".fts"):
        return read_fits_sky(path)
    if path.suffix.lower() in PICTURE_SUFFIXES:
        if width_arcmin is None:
            raise SkyModelError(
                "a picture needs its angular width (--image-sky-width-arcmin)", path
            )
        return read_picture(path, width_arcmin, flux_jy)
    name = text.split(":", 1)[1] if text.lower().startswith("picture:") else text
    if name.strip().lower() in DEMO_PICTURES:
        return demo_picture(name, width_arcmin or 4.0, flux_jy)
    raise SkyModelError(
        "not an image sky: expected a .fits file, a picture (.png, .jpg, …) or one of "
        f"{', '.join(DEMO_PICTURES)}",
        path,
    )
