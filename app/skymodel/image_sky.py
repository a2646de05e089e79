"""Image sky models: a picture or a FITS image as the sky (issue 15).

APSYNSIM and Friendly VRI let a student observe any picture; astronomers
bring a FITS model. An :class:`ImageSky` is a brightness image in Jy/pixel on
its own grid, placed one of two ways:

- **relative** (a picture, a drawn demo picture): an angular width, centred on
  whatever phase centre observes it, north up and east to the left as a
  picture of the sky is shown
  (:func:`~uvlab.app.skymodel.image_sky_files.read_picture`,
  :func:`~uvlab.app.skymodel.demo_pictures.demo_picture`);
- **absolute** (a FITS image): where its celestial WCS says
  (:func:`~uvlab.app.skymodel.image_sky_files.read_fits_sky`).

:func:`~uvlab.app.skymodel.image_sky_files.load_image_sky` reads any of them
from a file or a name.

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
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from uvlab.app.skymodel.checks import SkyModelError

ARCSEC = math.pi / (180.0 * 3600.0)


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
