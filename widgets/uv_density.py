"""uv density: the 2-D histogram of uv samples behind the uv coverage view (pure NumPy).

:func:`uv_density` bins every sample of both Hermitian halves on square cells
(one ``np.bincount`` per chunk, float32; the (−u, −v) half is the point mirror
of the (u, v) histogram), with the mean of a per-row weight (time) or one label
(baseline) per cell; :func:`density_rgba` turns it into an RGBA image whose
opacity is log(count). :mod:`uvlab.widgets.uv_coverage_view` draws it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from uvlab.gpu.constants import C_LIGHT

#: The one colour of ``color_by="none"`` and of the live look.
PLAIN_COLOUR = (55, 183, 236)
#: Opacity of a cell holding a single sample; the fullest cell is opaque.
ALPHA_FLOOR = 0.35
_CHUNK = 1 << 18  # samples binned per bincount call (fits the caches)
#: Cells across when the plot's size is not known yet, and the automatic range.
DEFAULT_BINS, MIN_BINS, MAX_BINS = 511, 63, 1023


@dataclass(frozen=True)
class UvDensity:
    """A 2-D histogram of uv samples, both halves.

    Attributes
    ----------
    counts : (nbins, nbins) int64
        ``counts[iv, iu]``: samples in the cell, ``iv`` along v, ``iu`` along u.
    half_width : float
        The cells span ``[−half_width, half_width]`` on both axes (display units).
    mean_weight : (nbins, nbins) float or None
        The mean of the per-row weights of each cell's samples (NaN where empty).
    label : (nbins, nbins) int or None
        The label of one of each cell's samples (−1 where empty).
    """

    counts: np.ndarray
    half_width: float
    mean_weight: np.ndarray | None = None
    label: np.ndarray | None = None

    @property
    def nbins(self) -> int:
        return self.counts.shape[0]

    def edges(self) -> np.ndarray:
        """(nbins + 1,) cell edges, as ``np.histogram2d(..., range=...)`` places them."""
        return np.linspace(-self.half_width, self.half_width, self.nbins + 1)


def uv_scale(units: str, freq_hz) -> np.ndarray:
    """Factor from metres to ``units`` per channel: (nchan,), or [1.0] for metres."""
    if units == "m":
        return np.ones(1)
    per_m = np.atleast_1d(np.asarray(freq_hz, dtype=np.float64)) / C_LIGHT
    return per_m / (1e3 if units == "klambda" else 1.0)


def auto_bins(px: float) -> int:
    """Cells across for a plot ``px`` device pixels across: about one cell per pixel,
    63–1023 (511 before the plot has a size), odd so that u = 0 is a cell centre."""
    n = DEFAULT_BINS if px < 64 else int(np.clip(px, MIN_BINS, MAX_BINS))
    return n if n % 2 else n - 1


def uv_density(
    u_m: np.ndarray,
    v_m: np.ndarray,
    scale: np.ndarray,
    nbins: int,
    *,
    half_width: float | None = None,
    row_weight: np.ndarray | None = None,
    row_label: np.ndarray | None = None,
) -> UvDensity:
    """Histogram every sample ``(u·s, v·s)`` and its mirror ``(−u·s, −v·s)``.

    Parameters
    ----------
    u_m, v_m : (nrow,) float
        Baseline coordinates, metres.
    scale : (nchan,) float
        Metres → display units per channel (:func:`uv_scale`); one sample per
        row and channel.
    nbins : int
        Cells across (odd keeps u = 0 at a cell centre).
    half_width : float, optional
        The cells span ±half_width; by default max(|u|, |v|) over all samples.
        Samples outside are dropped.
    row_weight : (nrow,) float, optional
        Averaged per cell (e.g. the time fraction of the row).
    row_label : (nrow,) int ≥ 0, optional
        Kept per cell from one of its samples (e.g. a baseline colour index).

    Notes
    -----
    Indices are ``floor((x + R)·nbins/2R)`` in float32 (the last edge is
    included, as in ``np.histogram2d``), flattened to ``iv·nbins + iu`` and
    counted with ``np.bincount`` chunk by chunk. The mirrored half is the
    histogram reversed on both axes, which is exact for cells symmetric
    about 0.
    """
    u_m = np.asarray(u_m, dtype=np.float32).ravel()
    v_m = np.asarray(v_m, dtype=np.float32).ravel()
    scale = np.asarray(scale, dtype=np.float64).ravel()
    nb, nrow, nchan = int(nbins), u_m.size, scale.size
    big = max(float(np.abs(u_m).max(initial=0.0)), float(np.abs(v_m).max(initial=0.0)))
    extent = big * float(np.abs(scale).max(initial=0.0))
    half_width = float(extent if half_width is None else half_width) or 1.0
    drop = extent > half_width * (1 + 1e-6)  # some samples fall outside the cells
    a = (scale * (nb / (2.0 * half_width))).astype(np.float32)[:, None]
    b = np.float32(nb / 2.0)
    counts = np.zeros(nb * nb, np.int64)
    wsum = np.zeros(nb * nb) if row_weight is not None else None
    label = np.full(nb * nb, -1, np.int32) if row_label is not None else None
    step = max(1, max(_CHUNK, 4 * nb * nb) // nchan)
    for r0 in range(0, nrow, step):  # chunks of rows × all channels
        r1 = min(nrow, r0 + step)
        fx = a * u_m[None, r0:r1]
        fx += b
        fy = a * v_m[None, r0:r1]
        fy += b
        # float → int truncates toward 0: a rounding to −ε lands in cell 0, x = R in the last
        ix = np.minimum(fx.astype(np.int32), nb - 1)
        flat = np.minimum(fy.astype(np.int32), nb - 1)
        flat *= nb
        flat += ix
        flat = flat.ravel()
        keep = None
        if drop:
            keep = ((fx >= 0) & (fx <= nb) & (fy >= 0) & (fy <= nb)).ravel()
            flat = flat[keep]
        counts += np.bincount(flat, minlength=nb * nb)
        if wsum is not None:
            w = np.tile(np.asarray(row_weight[r0:r1], dtype=np.float64), nchan)
            wsum += np.bincount(flat, weights=w if keep is None else w[keep], minlength=nb * nb)
        if label is not None:
            lab = np.tile(np.asarray(row_label[r0:r1], dtype=np.int32), nchan)
            label[flat] = lab if keep is None else lab[keep]
    counts = counts.reshape(nb, nb)
    counts = counts + counts[::-1, ::-1]
    mean = None
    if wsum is not None:
        wsum = wsum.reshape(nb, nb)
        wsum = wsum + wsum[::-1, ::-1]
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(counts > 0, wsum / counts, np.nan)
    if label is not None:
        label = label.reshape(nb, nb)
        label = np.where(label >= 0, label, label[::-1, ::-1])
    return UvDensity(counts, half_width, mean, label)


def density_rgba(density: UvDensity, colours: np.ndarray | None = None) -> np.ndarray:
    """An RGBA image of a density: opacity from log(count), colour per cell.

    Parameters
    ----------
    density : UvDensity
    colours : (nbins, nbins, 3) uint8, optional
        Colour of each cell; :data:`PLAIN_COLOUR` everywhere by default.

    Returns
    -------
    (nbins, nbins, 4) uint8, transparent where a cell is empty.
    """
    counts = density.counts
    filled = counts > 0
    rgba = np.zeros((*counts.shape, 4), np.uint8)
    logc = np.log(counts[filled].astype(np.float32))
    top = float(logc.max(initial=0.0))
    frac = logc / top if top > 0 else np.ones_like(logc)
    rgba[filled, 3] = np.round(255 * (ALPHA_FLOOR + (1 - ALPHA_FLOOR) * frac)).astype(np.uint8)
    rgba[filled, :3] = PLAIN_COLOUR if colours is None else colours[filled]
    return rgba
