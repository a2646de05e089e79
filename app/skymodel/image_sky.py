"""Image sky models: a picture or a FITS image as the sky (issue 15).

APSYNSIM and Friendly VRI let a student observe any picture; astronomers
bring a FITS model. An :class:`ImageSky` is a brightness image in Jy/pixel on
its own grid, placed one of two ways:

- **relative** (a picture, a drawn demo picture): an angular width, centred on
  whatever phase centre observes it, north up and east to the left as a
  picture of the sky is shown (:func:`read_picture`, :func:`demo_picture`);
- **absolute** (a FITS image): where its celestial WCS says
  (:func:`read_fits_sky`).

:meth:`ImageSky.on_grid` samples it on a model grid (an
:class:`~uvlab.gpu.image_spec.ImageSpec` about a phase centre, DESIGN §1:
``img[j, i]`` at ``l_i = −(i − N/2)·cell``, ``m_j = (j − N/2)·cell``, SIN
projection), conserving surface brightness: each model pixel takes the
bilinear interpolation of the source at its centre, scaled by the ratio of
pixel areas. Where the model pixels are coarser than the source's, the source
is first box-averaged over one model pixel, so that no structure aliases in;
where they are finer, the source is interpolated. The total flux on the grid
is the source's up to that interpolation and to what falls outside the grid
(:meth:`ImageSky.on_grid` returns both totals).

Errors are :class:`~uvlab.app.skymodel.checks.SkyModelError`, one line
naming the file: not an image, no celestial WCS, a unit that is not a flux
density, nothing but zeros, an absurd size.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from uvlab.app.outputs.fits_io import check_wcs_cards
from uvlab.app.skymodel.checks import SkyModelError
from uvlab.app.skymodel.limits import MAX_FLUX_JY, MAX_PICTURE_ARCMIN
from uvlab.app.skymodel.text_format import check_regular
from uvlab.app.skymodel.wcs_checks import check_pixels, wcslib_reason

ARCSEC = math.pi / (180.0 * 3600.0)
#: Largest source image read (pixels per side).
MAX_SIDE = 16384
#: Picture extensions read with Pillow.
PICTURE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".bmp", ".tif", ".tiff")
#: Drawn demo pictures (:func:`demo_picture`).
DEMO_PICTURES = ("radio-galaxy", "spiral", "ring")


@dataclass(frozen=True, eq=False)
class ImageSky:
    """A brightness image as a sky model.

    Attributes
    ----------
    image : (ny, nx) float64
        Jy per source pixel, ``image[y, x]`` with y increasing north and x
        increasing west (FITS order for a WCS image; a picture is flipped to it).
    name : str
    pixel_rad : float or None
        Angular size of a (square) source pixel: a relative sky centred on the
        phase centre. None for a WCS sky.
    wcs : astropy.wcs.WCS or None
        The celestial WCS of an absolute sky.
    ref_freq_hz, spectral_index : float
        S(ν) = S·(ν/ν0)^α for every pixel.
    notes : tuple of str
        What was assumed or approximated while reading, one line each.
    """

    image: np.ndarray
    name: str = ""
    pixel_rad: float | None = None
    wcs: object = None
    ref_freq_hz: float = 1.4e9
    spectral_index: float = 0.0
    notes: tuple[str, ...] = field(default=())

    @property
    def total_jy(self) -> float:
        return float(self.image.sum())

    @property
    def relative(self) -> bool:
        """Centred on the phase centre (no WCS of its own)."""
        return self.wcs is None

    def native_grid(self, ra0_deg: float, dec0_deg: float, max_npix: int = 8192):
        """(model (N, N) Jy/pixel, ImageSpec) on a grid of the sky's own pixel size.

        The grid a prediction degrids: centred on the phase centre, cells as
        the source's (so nothing is lost to resampling but the half-pixel
        shift of an odd-sized picture), N even and large enough for all of
        the source. SkyModelError when that exceeds ``max_npix``.
        """
        from uvlab.gpu.image_spec import ImageSpec

        if self.relative:
            cell = self.pixel_rad
            npix = max(self.image.shape) + 2
        else:
            cell = math.radians(math.sqrt(abs(np.linalg.det(self.wcs.pixel_scale_matrix))))
            ny, nx = self.image.shape
            x, y = self.wcs.wcs_world2pix([[ra0_deg % 360.0, dec0_deg]], 0)[0]
            reach = max(abs(x), abs(nx - 1 - x), abs(y), abs(ny - 1 - y))
            npix = 2 * math.ceil(reach) + 4
        npix += npix % 2
        if npix > max_npix:
            raise SkyModelError(
                f"this sky needs a {npix}² model grid about the phase centre (limit "
                f"{max_npix}²): point nearer to it, or shrink the image"
            )
        spec = ImageSpec(npix, cell)
        return self.on_grid(spec, ra0_deg, dec0_deg)[0], spec

    def on_grid(self, spec, ra0_deg: float, dec0_deg: float) -> tuple[np.ndarray, float]:
        """(model image (N, N) Jy/pixel on ``spec`` about the phase centre, its total flux).

        ``spec`` is an :class:`~uvlab.gpu.image_spec.ImageSpec`.
        """
        if self.relative:
            return _relative_on_grid(self, spec)
        return _wcs_on_grid(self, spec, ra0_deg, dec0_deg)


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


def _box_average(image: np.ndarray, factor: float) -> np.ndarray:
    """The image averaged over a ``round(factor)``-pixel box (zeros outside), same shape."""
    size = round(factor)
    if size < 2:
        return image
    out = image
    for axis in (0, 1):
        lo = size // 2
        pad = [(0, 0), (0, 0)]
        pad[axis] = (lo + 1, size - lo - 1)
        c = np.cumsum(np.pad(out, pad), axis=axis)
        n = out.shape[axis]
        hi = np.take(c, np.arange(size, size + n), axis=axis)
        low = np.take(c, np.arange(0, n), axis=axis)
        out = (hi - low) / size
    return out


def _sample(image: np.ndarray, y, x) -> np.ndarray:
    """Bilinear interpolation of ``image[y, x]`` at fractional pixels; 0 outside."""
    y, x = np.asarray(y, dtype=np.float64), np.asarray(x, dtype=np.float64)
    ny, nx = image.shape
    y0, x0 = np.floor(y).astype(np.int64), np.floor(x).astype(np.int64)
    fy, fx = y - y0, x - x0
    out = np.zeros(np.broadcast(y, x).shape)
    for dy, wy in ((0, 1.0 - fy), (1, fy)):
        for dx, wx in ((0, 1.0 - fx), (1, fx)):
            yy, xx = y0 + dy, x0 + dx
            ok = (yy >= 0) & (yy < ny) & (xx >= 0) & (xx < nx)
            out += (
                np.where(ok, image[np.clip(yy, 0, ny - 1), np.clip(xx, 0, nx - 1)], 0.0) * wy * wx
            )
    return out


def _relative_on_grid(sky: ImageSky, spec) -> tuple[np.ndarray, float]:
    ny, nx = sky.image.shape
    ratio = spec.cell_rad / sky.pixel_rad
    src = _box_average(sky.image, ratio) if ratio >= 1.5 else sky.image
    l, m = np.meshgrid(spec.l_axis(), spec.m_axis())  # (j, i)
    # source pixel centres: x west-increasing from the centre, y north-increasing
    x = (nx - 1) / 2.0 - l / sky.pixel_rad
    y = (ny - 1) / 2.0 + m / sky.pixel_rad
    model = _sample(src, y, x) * ratio**2
    return model, float(model.sum())


def _wcs_on_grid(sky: ImageSky, spec, ra0_deg: float, dec0_deg: float):
    from astropy.wcs import WCS

    target = WCS(naxis=2)
    n = spec.npix
    cell = math.degrees(spec.cell_rad)
    target.wcs.ctype = ["RA---SIN", "DEC--SIN"]
    target.wcs.crpix = [n // 2 + 1.0, n // 2 + 1.0]
    target.wcs.crval = [float(ra0_deg) % 360.0, float(dec0_deg)]
    target.wcs.cdelt = [-cell, cell]
    src_pix = math.sqrt(abs(np.linalg.det(sky.wcs.pixel_scale_matrix)))  # degrees
    ratio = cell / src_pix
    src = _box_average(sky.image, ratio) if ratio >= 1.5 else sky.image
    jj, ii = np.mgrid[0:n, 0:n]
    ra, dec = target.wcs_pix2world(ii.ravel(), jj.ravel(), 0)
    x, y = sky.wcs.wcs_world2pix(ra, dec, 0)
    model = _sample(src, y, x).reshape(n, n) * ratio**2
    return model, float(model.sum())


def demo_picture(
    name: str, width_arcmin: float = 4.0, flux_jy: float = 1.0, npix: int = 256
) -> ImageSky:
    """A picture the project draws: ``radio-galaxy``, ``spiral`` or ``ring``.

    - ``radio-galaxy``: a compact core, two jets and two edge-brightened lobes
      with hot spots (a Fanaroff–Riley II double), 90 % of the flux in the lobes;
    - ``spiral``: an exponential disc with two logarithmic arms (pitch 20°) and a bulge;
    - ``ring``: a thin shell brighter on one side (a supernova remnant, an
      Einstein ring).
    """
    key = name.strip().lower()
    if key not in DEMO_PICTURES:
        raise SkyModelError(f"unknown demo picture {name!r}; choose one of {DEMO_PICTURES}")
    t = (np.arange(npix) - (npix - 1) / 2.0) / (npix / 2.0)  # [-1, 1] across
    x, y = np.meshgrid(t, t)  # image[y, x], y north, x west

    def gauss(x0, y0, sx, sy, angle=0.0):
        c, s = math.cos(angle), math.sin(angle)
        dx, dy = x - x0, y - y0
        a, b = c * dx + s * dy, -s * dx + c * dy
        return np.exp(-0.5 * ((a / sx) ** 2 + (b / sy) ** 2))

    if key == "radio-galaxy":
        lobes = sum(gauss(sx * 0.55, sx * 0.12, 0.16, 0.11, 0.2) for sx in (-1, 1))
        spots = sum(gauss(sx * 0.68, sx * 0.15, 0.03, 0.03) for sx in (-1, 1))
        jets = sum(gauss(sx * 0.28, sx * 0.06, 0.2, 0.012, 0.21) for sx in (-1, 1))
        core = gauss(0.0, 0.0, 0.015, 0.015)
        img = 0.9 * lobes / lobes.sum() + 0.5 * spots / spots.sum()
        img += 0.05 * jets / jets.sum() + 0.05 * core / core.sum()
    elif key == "spiral":
        r = np.hypot(x, y) + 1e-9
        theta = np.arctan2(y, x)
        arms = np.cos(2.0 * (theta - np.log(r) / math.tan(math.radians(20.0)))) ** 8
        disc = np.exp(-r / 0.25)
        img = disc * (0.3 + arms) + 0.6 * gauss(0.0, 0.0, 0.05, 0.04)
        img[r > 0.95] = 0.0
    else:  # ring
        r = np.hypot(x, y)
        theta = np.arctan2(y, x)
        img = np.exp(-0.5 * ((r - 0.55) / 0.04) ** 2) * (1.0 + 0.6 * np.cos(theta - 0.8))
    img = np.clip(img, 0.0, None)
    img *= flux_jy / img.sum()
    pixel = width_arcmin * 60.0 * ARCSEC / npix
    return ImageSky(img, key, pixel_rad=pixel)


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
