"""Primary-beam cubes from FITS: voltage patterns on a regular (l, m, ν) grid.

The format (one HDU, the primary or the first image extension):

- axis 1 (``CTYPE1`` ``L``, ``X`` or ``RA---SIN``) and axis 2 (``M``, ``Y`` or
  ``DEC--SIN``): direction cosines about the pointing centre, in ``CUNIT`` ``deg``
  (the default) or ``rad`` — a SIN projection's intermediate coordinates, l = x·π/180
  for degrees; l increases with the axis when ``CDELT1`` > 0 (a sky image's
  ``CDELT1`` < 0 is read the same way: every pixel has its own l);
- axis 3 (``FREQ``, Hz or ``CUNIT3`` ``MHz``/``GHz``), any number of planes; a 2-D image is
  one plane, valid at every frequency; further axes must have length 1;
- the data: the real voltage pattern E (1 at the pointing centre for a normalised beam),
  the same for both feeds. No rotation (``PC``/``CROTA``) of the axes.

:func:`load_beam_cube` reads and checks it with astropy's WCS; a file without a usable
WCS is a :class:`BeamCubeError` naming the file and the problem, nothing else written.
Sampling (trilinear, rotated by the parallactic angle, as Montblanc's beam cubes) is
:func:`uvlab.gpu.predict.beams.sample_cube`. :func:`write_beam_cube` writes the format.

A polarised (2×2 Jones) beam is a set of such files, one per Jones element and real or
imaginary part, named by a pattern (``beam_$(corr)_$(reim).fits``): see
:mod:`uvlab.app.instrument.beam_pattern`. Its :class:`BeamCube` holds ``data[ν, m, l, 2, 2]``
complex and says its feed basis (``feeds``).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

SPATIAL = ({"L", "X", "RA---SIN"}, {"M", "Y", "DEC--SIN"})
ANGLE_UNITS = {"": math.pi / 180, "deg": math.pi / 180, "rad": 1.0}
FREQ_UNITS = {"": 1.0, "Hz": 1.0, "kHz": 1e3, "MHz": 1e6, "GHz": 1e9}


#: The frequency axis of a 2-D beam image: one plane, valid at every frequency.
ANY_FREQUENCY = (1.0, 1.0, 1)
#: How far (a fraction) observed frequencies may lie outside a cube's planes.
FREQ_MARGIN = 0.1


class BeamCubeError(ValueError):
    """A beam cube that cannot be used (one line: the file and the problem)."""


@dataclass(frozen=True)
class BeamCube:
    """A voltage-pattern cube with regular axes (start, step, count).

    ``data[ν, m, l]`` float64 for a scalar beam (``feeds`` None), or ``data[ν, m, l, 2, 2]``
    complex Jones matrices ``[[xx, xy], [yx, yy]]`` (``feeds`` "linear") or
    ``[[rr, rl], [lr, ll]]`` ("circular"). ``source``: the file name or pattern.
    """

    data: np.ndarray
    l_axis: tuple[float, float, int]
    m_axis: tuple[float, float, int]
    freq_axis: tuple[float, float, int]
    source: str
    feeds: str | None = None

    @property
    def jones(self) -> bool:
        """True for a 2×2 Jones cube (a pattern set), False for one scalar file."""
        return self.feeds is not None

    def sample(self, lmn, freq_hz, chi=None) -> np.ndarray:
        """E at the sources: (time or 1, ant or 1, chan, src) float64, or
        (time or 1, ant or 1, chan, src, 2, 2) complex for a Jones cube.

        ``chi`` (time, ant) parallactic angles in radians (None: no rotation); it turns the
        sampling direction only (:func:`~uvlab.gpu.predict.beams.sample_cube`).
        """
        from uvlab.gpu.predict.beams import sample_cube

        lmn = np.asarray(lmn, dtype=np.float64)
        return sample_cube(
            self.data, self.l_axis, self.m_axis, self.freq_axis, lmn[:, 0], lmn[:, 1],
            np.asarray(freq_hz, dtype=np.float64), chi,
        )  # fmt: skip


def _axis(wcs, i: int, n: int, scale: float) -> tuple[float, float, int]:
    crval, cdelt, crpix = wcs.wcs.crval[i], wcs.wcs.cdelt[i], wcs.wcs.crpix[i]
    return ((crval + (1 - crpix) * cdelt) * scale, cdelt * scale, n)


def load_beam_cube(path: str | Path) -> BeamCube:
    """Read and check a beam cube (the module docstring gives the format)."""
    cube, l_axis, m_axis, freq_axis = read_cube_file(path)
    check_not_zero(cube, str(path))
    return BeamCube(cube, l_axis, m_axis, freq_axis, str(path))


def check_not_zero(data, source: str) -> None:
    """Refuse a beam that is zero everywhere (BeamCubeError): nothing would be seen.

    A pattern set is checked as a whole (its cross-hand or imaginary files may be 0).
    """
    if not np.any(data != 0):
        raise BeamCubeError(f"{source}: the beam is zero everywhere: nothing would be seen")


def read_cube_file(path: str | Path):
    """``(data[ν, m, l] float64, l_axis, m_axis, freq_axis)`` of one checked FITS file.

    Frequencies ascending (a descending axis is flipped); errors are one-line
    :class:`BeamCubeError` naming the file.
    """
    from astropy.io import fits
    from astropy.wcs import WCS, FITSFixedWarning

    from uvlab.app.outputs.fits_io import check_wcs_cards

    name = str(path)
    _check_regular(name)
    try:
        with warnings.catch_warnings():  # astropy's WARNINGs: what matters is checked below
            warnings.simplefilter("ignore")
            with fits.open(name) as hdus:
                hdu = next((h for h in hdus if h.data is not None and h.data.ndim >= 2), None)
                if hdu is None:
                    raise BeamCubeError(f"{name}: no image data")
                header, data = hdu.header, np.asarray(hdu.data, dtype=np.float64)
    except BeamCubeError:
        raise
    except (OSError, ValueError, TypeError) as exc:
        why = " ".join(str(exc).split())
        raise BeamCubeError(f"{name}: not a readable FITS file ({why})") from None
    check_wcs_cards(header, lambda why: BeamCubeError(f"{name}: {why}"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FITSFixedWarning)
        try:
            wcs = WCS(header)
        except Exception as exc:
            raise BeamCubeError(f"{name}: no usable WCS ({' '.join(str(exc).split())})") from None
    ctype = [c.strip().upper() for c in wcs.wcs.ctype]
    naxis = data.ndim
    if len(ctype) < 2 or ctype[0] not in SPATIAL[0] or ctype[1] not in SPATIAL[1]:
        raise BeamCubeError(
            f"{name}: no usable WCS: axes 1 and 2 must be L/M, X/Y or RA---SIN/DEC--SIN, "
            f"got {', '.join(ctype[:2]) or 'none'}"
        )
    if naxis >= 3 and ctype[2] != "FREQ":
        raise BeamCubeError(f"{name}: no usable WCS: axis 3 must be FREQ, got {ctype[2]!r}")
    if wcs.wcs.has_pc() and not np.allclose(wcs.wcs.get_pc(), np.eye(wcs.naxis)):
        raise BeamCubeError(f"{name}: no usable WCS: rotated axes (PC/CROTA) are not supported")
    if any(d == 0 or not np.isfinite(d) for d in wcs.wcs.cdelt[: min(naxis, 3)]):
        raise BeamCubeError(f"{name}: no usable WCS: an axis has CDELT 0")
    shape = data.shape[::-1]  # FITS order: (l, m, ν, …)
    if any(n != 1 for n in shape[3:]):
        raise BeamCubeError(f"{name}: axes past the third must have length 1, got {shape[3:]}")
    units = [str(u) for u in wcs.wcs.cunit]
    scale = [ANGLE_UNITS.get(u) for u in units[:2]]
    if None in scale:
        raise BeamCubeError(f"{name}: no usable WCS: angle units {units[:2]} (deg or rad)")
    cube = data.reshape(data.shape[-3:] if naxis >= 3 else (1, *data.shape[-2:]))
    if not np.all(np.isfinite(cube)):
        raise BeamCubeError(f"{name}: the cube has non-finite values")
    if min(shape[0], shape[1]) < 2:
        raise BeamCubeError(
            f"{name}: a beam needs at least 2 pixels along l and m to be sampled, "
            f"got {shape[0]} × {shape[1]}"
        )
    l_axis = _axis(wcs, 0, shape[0], scale[0])
    m_axis = _axis(wcs, 1, shape[1], scale[1])
    if naxis >= 3:
        fscale = FREQ_UNITS.get(units[2])
        if fscale is None:
            raise BeamCubeError(f"{name}: no usable WCS: frequency unit {units[2]!r}")
        freq_axis = _axis(wcs, 2, shape[2], fscale)
        if freq_axis[1] < 0:  # descending frequencies: flip to ascending
            cube = cube[::-1]
            f0, df, nf = freq_axis
            freq_axis = (f0 + (nf - 1) * df, -df, nf)
        if not freq_axis[0] > 0:
            raise BeamCubeError(f"{name}: frequencies must be > 0 Hz, got {freq_axis[0]:g}")
    else:
        freq_axis = ANY_FREQUENCY
    return np.ascontiguousarray(cube), l_axis, m_axis, freq_axis


def _check_regular(name: str) -> None:
    """Refuse a FIFO, socket or device (opening one blocks)."""
    import os
    import stat

    try:
        mode = os.stat(name).st_mode
    except OSError:
        return  # missing: the open says so
    if not stat.S_ISREG(mode):
        raise BeamCubeError(f"{name}: not a regular file")


def check_cube_frequencies(cube, freq_hz) -> None:
    """Refuse a cube whose planes are far from the observed frequencies (BeamCubeError).

    A cube's planes cover [f_first, f_last]; frequencies up to
    :data:`FREQ_MARGIN` beyond that range are sampled at the nearest plane, anything
    further (a 1 kHz cube observed at 1.4 GHz) is refused. A 2-D image
    (:data:`ANY_FREQUENCY`) is valid at every frequency.
    """
    if cube is None or tuple(cube.freq_axis) == ANY_FREQUENCY:
        return
    f0, df, nf = cube.freq_axis
    lo, hi = sorted((f0, f0 + (nf - 1) * df))
    freq = np.asarray(freq_hz, dtype=np.float64)
    if freq.size == 0:
        return
    fmin, fmax = float(freq.min()), float(freq.max())
    if fmin < lo / (1 + FREQ_MARGIN) or fmax > hi * (1 + FREQ_MARGIN):
        raise BeamCubeError(
            f"{cube.source}: the beam's planes cover {lo:.6g}–{hi:.6g} Hz, but the data are at "
            f"{fmin:.6g}–{fmax:.6g} Hz (more than {FREQ_MARGIN:.0%} outside): give a beam of "
            "these frequencies"
        )


def write_beam_cube(path, data, l_axis, m_axis, freq_axis) -> None:
    """Write ``data[ν, m, l]`` with axes (start, step, count) as a beam cube (l, m in radians)."""
    from astropy.io import fits

    hdu = fits.PrimaryHDU(np.asarray(data, dtype=np.float64))
    deg = 180 / math.pi
    axes = (("L", l_axis, "deg", deg), ("M", m_axis, "deg", deg), ("FREQ", freq_axis, "Hz", 1.0))
    for i, (ctype, (start, step, _), unit, scale) in enumerate(axes, start=1):
        hdu.header[f"CTYPE{i}"] = ctype
        hdu.header[f"CRPIX{i}"] = 1.0
        hdu.header[f"CRVAL{i}"] = start * scale
        hdu.header[f"CDELT{i}"] = step * scale
        hdu.header[f"CUNIT{i}"] = unit
    hdu.header["BUNIT"] = ""
    hdu.writeto(str(path), overwrite=True)
