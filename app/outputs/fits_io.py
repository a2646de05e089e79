"""FITS images with a celestial WCS (DESIGN §1), written with astropy.

Axis 1 is ``RA---SIN`` with ``CDELT1 = −cell``, axis 2 ``DEC--SIN`` with
``CDELT2 = +cell``, ``CRPIX = N/2 + 1`` on both, ``CRVAL`` the phase centre.
A W × H image (``uvlab image --size W H``: the centre of the N² image, N = max(W, H))
has ``CRPIX1 = W/2 + 1``, ``CRPIX2 = H/2 + 1``, CASA's reference pixel.
Axes 3 and 4 are FREQ and STOKES (CASA's order), each of length one. The
data array is ``img[j, i]`` exactly as uvlab's engine returns it.

Files are written atomically after a disk-space check (:mod:`uvlab.app.outputs.atomic`):
an existing file is replaced only by a complete new one.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from uvlab.app._version import __version__
from uvlab.app.outputs.atomic import atomic_path
from uvlab.gpu.image_spec import ImageSpec

#: FITS STOKES axis codes (AIPS memo 114 / FITS paper II).
STOKES_CODES = {
    "I": 1,
    "Q": 2,
    "U": 3,
    "V": 4,
    "RR": -1,
    "LL": -2,
    "RL": -3,
    "LR": -4,
    "XX": -5,
    "YY": -6,
    "XY": -7,
    "YX": -8,
}


def image_header(
    spec: ImageSpec,
    ra0_deg: float,
    dec0_deg: float,
    *,
    freq_hz: float,
    bandwidth_hz: float = 0.0,
    stokes: str = "I",
    bunit: str = "Jy/beam",
    history: Mapping[str, object] | None = None,
    beam=None,
    observation: Mapping[str, object] | None = None,
    shape: tuple[int, int] | None = None,
):
    """Build the astropy Header for a uvlab image.

    ``shape``: (H, W) of an image cropped about the centre of ``spec``'s grid
    (default its N × N): CRPIX1 = W//2 + 1, CRPIX2 = H//2 + 1.
    ``beam``: a restoring beam (:class:`~uvlab.gpu.deconvolution.beam.Beam`),
    written as BMAJ, BMIN (FWHM, degrees) and BPA (degrees east of north).
    ``observation``: what CASA and WSClean write about the data, any of
    ``start_mjd_s`` (DATE-OBS, MJD-OBS, TIMESYS = UTC), ``telescope``
    (TELESCOP), ``observer`` (OBSERVER), ``object`` (OBJECT) and
    ``obsgeo_m`` (OBSGEO-X/Y/Z, ITRF metres: the array's centre).
    CRVALs are rounded to 1e-11 deg (a Dec given as 30 comes back from radians
    as 29.999999999999996).
    """
    from astropy.io import fits

    ny, nx = (spec.npix, spec.npix) if shape is None else (int(shape[0]), int(shape[1]))
    cell_deg = np.degrees(spec.cell_rad)
    h = fits.Header()
    h["BUNIT"] = bunit
    h["BTYPE"] = "Intensity"
    h["CTYPE1"], h["CRPIX1"], h["CRVAL1"], h["CDELT1"], h["CUNIT1"] = (
        "RA---SIN",
        nx // 2 + 1.0,
        round(float(ra0_deg) % 360.0, 11) % 360.0,
        -cell_deg,
        "deg",
    )
    h["CTYPE2"], h["CRPIX2"], h["CRVAL2"], h["CDELT2"], h["CUNIT2"] = (
        "DEC--SIN",
        ny // 2 + 1.0,
        round(float(dec0_deg), 11),
        cell_deg,
        "deg",
    )
    h["CTYPE3"], h["CRPIX3"], h["CRVAL3"], h["CDELT3"], h["CUNIT3"] = (
        "FREQ",
        1.0,
        float(freq_hz),
        float(bandwidth_hz) or 1.0,
        "Hz",
    )
    code = STOKES_CODES.get(stokes.upper())
    if code is None:
        raise ValueError(f"unknown Stokes/correlation {stokes!r}")
    h["CTYPE4"], h["CRPIX4"], h["CRVAL4"], h["CDELT4"], h["CUNIT4"] = (
        "STOKES",
        1.0,
        float(code),
        1.0,
        "",
    )
    if beam is not None:
        h["BMAJ"] = (beam.bmaj_deg, "beam major FWHM, deg")
        h["BMIN"] = (beam.bmin_deg, "beam minor FWHM, deg")
        h["BPA"] = (beam.bpa_deg, "beam PA, deg E of N")
    h["RADESYS"] = "FK5"
    h["EQUINOX"] = 2000.0
    h["SPECSYS"] = "TOPOCENT"
    h["RESTFRQ"] = (float(freq_hz), "Hz")
    _observation_cards(h, observation or {})
    h["ORIGIN"] = f"uvlab {__version__}"
    h["DATE"] = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    for key, value in (history or {}).items():
        h.add_history(f"uvlab {key} = {value}")
    return h


def _observation_cards(h, obs: Mapping[str, object]) -> None:
    """DATE-OBS, MJD-OBS, TIMESYS, TELESCOP, OBSERVER, OBJECT, OBSGEO-X/Y/Z from ``obs``."""
    start = obs.get("start_mjd_s")
    if start is not None and np.isfinite(start):
        day = _dt.datetime(1858, 11, 17, tzinfo=_dt.timezone.utc)  # MJD 0
        when = day + _dt.timedelta(seconds=float(start))
        h["DATE-OBS"] = when.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3]
        h["MJD-OBS"] = float(start) / 86400.0
        h["TIMESYS"] = "UTC"
    for key, card in (("telescope", "TELESCOP"), ("observer", "OBSERVER"), ("object", "OBJECT")):
        if obs.get(key):
            h[card] = str(obs[key])
    geo = obs.get("obsgeo_m")
    if geo is not None:
        xyz = np.asarray(geo, dtype=float)
        for axis, value in zip("XYZ", xyz, strict=True):
            h[f"OBSGEO-{axis}"] = (float(value), "m (ITRF)")
        for axis, value in zip("LBH", _wcslib_geodetic(xyz), strict=True):
            h[f"OBSGEO-{axis}"] = float(value)


#: wcslib's ellipsoid (IAU 1976: equatorial radius m, flattening), on which astropy's WCS
#: derives OBSGEO-L/B/H from OBSGEO-X/Y/Z and checks the two agree.
WCSLIB_ELLIPSOID = (6378140.0, 1.0 / 298.2577)


def _wcslib_geodetic(xyz) -> np.ndarray:
    """OBSGEO-L/B/H (degrees, degrees, m) as wcslib derives them from OBSGEO-X/Y/Z.

    Written beside X/Y/Z so that astropy's WCS finds them consistent instead of
    "fixing" the header with a warning (its height differs from WGS84's by ~3 m). ERFA's
    ``gc2gde`` on wcslib's ellipsoid gives wcslib's values to 1e-8° and 2 cm; it spares
    every image written the import of ``astropy.wcs`` (and ``astropy.coordinates``).
    """
    import erfa

    elong, phi, height = erfa.gc2gde(*WCSLIB_ELLIPSOID, np.asarray(xyz, dtype=float))
    return np.array([np.degrees(elong), np.degrees(phi), float(height)])


def write_image_fits(
    path,
    image,
    spec: ImageSpec,
    ra0_deg: float,
    dec0_deg: float,
    *,
    freq_hz: float,
    bandwidth_hz: float = 0.0,
    stokes: str = "I",
    bunit: str = "Jy/beam",
    history: Mapping[str, object] | None = None,
    overwrite: bool = True,
    beam=None,
    observation: Mapping[str, object] | None = None,
    cropped: bool = False,
) -> Path:
    """Write ``image`` (N, N) as a 4-D FITS cube (1, 1, N, N) and return the path.

    With ``cropped``, ``image`` may also be (H, W), even sides ≤ N: the centre
    crop of ``spec``'s N × N grid (:func:`centre_crop`), written with its own CRPIX.
    """
    from astropy.io import fits

    image = np.asarray(image)
    ny, nx = image.shape if image.ndim == 2 else (-1, -1)
    fits_grid = 0 < ny <= spec.npix and 0 < nx <= spec.npix and ny % 2 == 0 and nx % 2 == 0
    if image.shape != (spec.npix, spec.npix) and not (cropped and fits_grid):
        raise ValueError(f"image shape {image.shape} does not match npix={spec.npix}")
    header = image_header(
        spec,
        ra0_deg,
        dec0_deg,
        freq_hz=freq_hz,
        bandwidth_hz=bandwidth_hz,
        stokes=stokes,
        bunit=bunit,
        history=history,
        beam=beam,
        observation=observation,
        shape=image.shape,
    )
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    hdu = fits.PrimaryHDU(image.astype(np.float32)[None, None], header=header)
    need = fits_size(hdu)
    with atomic_path(path, overwrite=overwrite, need_bytes=need, what="the FITS image") as tmp:
        hdu.writeto(tmp, overwrite=True)
    return path


def centre_crop(image, width: int, height: int):
    """The (height, width) centre of an (N, N) image: pixel (N/2, N/2) goes to (H/2, W/2).

    Even ``width`` and ``height`` ≤ N. The reference pixel stays on the phase
    centre, so CRPIX = (W/2 + 1, H/2 + 1) (:func:`image_header`'s ``shape``).
    """
    n = image.shape[-1]
    j0, i0 = n // 2 - height // 2, n // 2 - width // 2
    return image[..., j0 : j0 + height, i0 : i0 + width]


def image_fits_bytes(npix: int, header_blocks: int = 3) -> int:
    """Bytes of an ``npix``² float32 image written by :func:`write_image_fits` (an estimate).

    The data take whole 2880-byte blocks; the header ``header_blocks`` (108
    cards: the WCS and a history of about 60 cards fit in 3).
    """
    block, data = 2880, int(npix) ** 2 * 4
    return header_blocks * block + -(-data // block) * block


def fits_size(hdu) -> int:
    """Bytes ``hdu`` takes in a file: header and data, each in whole 2880-byte blocks."""
    block = 2880
    header = len(hdu.header.tostring())  # already padded to whole blocks
    data = 0 if hdu.data is None else hdu.data.nbytes
    return header + -(-data // block) * block


def read_image_fits(path):
    """Read a uvlab FITS image: returns (image (N, N) float, astropy Header)."""
    from astropy.io import fits

    with fits.open(path) as hdul:
        data = np.asarray(hdul[0].data, dtype=np.float64)
        header = hdul[0].header.copy()
    while data.ndim > 2:
        data = data[0]
    return data, header


def check_wcs_cards(header, error) -> None:
    """Raise ``error(reason)`` when a WCS card (CDELTn, CRPIXn, CRVALn, CDi_j, PCi_j, CROTAn)
    holds no finite number (``CDELT1 = 'NAN'``, which astropy would replace by a default
    with only a warning). ``error`` builds the exception naming the file.
    """
    import math
    import re

    pattern = re.compile(r"(CDELT|CRPIX|CRVAL|CROTA)\d+|(CD|PC)\d+_\d+")
    for key in header:
        if not isinstance(key, str) or not pattern.fullmatch(key):
            continue
        value = header[key]
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not ok or not math.isfinite(value):
            raise error(f"{key} = {value!r} is not a finite number: no usable WCS")
