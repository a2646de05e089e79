"""What jobs share: the worker's cache, imaging-ready samples and view helpers (no Qt).

- :class:`WorkCache`: the last observation, prediction and MS read, reused by
  later jobs; only the worker thread touches it (one I/O thread for casacore).
- :class:`Samples`: visibilities ready to image plus what the views need.
- :func:`model_image`: the sky model rendered on the image grid; :func:`sky_image` with
  the image sky.
- :func:`image_spec_for`, :func:`cell_rad_for`, :func:`uv_rows`, :func:`antennas_from_ecef`.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from uvlab.app.lab.jobs import Antennas, JobRequest, MSSelection, UvData
from uvlab.app.runtime.errors import Cancelled
from uvlab.gpu.imaging.reuse import ImagingCache


def check(cancelled: Callable[[], bool] | None) -> None:
    """Raise :class:`Cancelled` when ``cancelled()`` is true."""
    if cancelled is not None and cancelled():
        raise Cancelled("job cancelled")


def block_check(cancelled: Callable[[], bool] | None) -> Callable[[], None] | None:
    """The engine's ``on_block`` for ``cancelled``: :func:`check` it between blocks.

    :mod:`uvlab.gpu.blocks`: the CPU gridders call it between blocks of their
    work, so a cancel stops them within one block. None when nothing can cancel.
    """
    return None if cancelled is None else (lambda: check(cancelled))


class WorkCache:
    """The last observation, prediction and MS read, reused by later jobs.

    Used only from the worker thread (one I/O thread for casacore).

    The prediction is held with its key ``(observation, sky, smearing,
    precision, device)``. A job whose key differs from the held one only by a
    few components of the sky updates it in place
    (:func:`uvlab.app.lab.synthetic_source.iter_synthetic`; the Samples of an earlier
    job share those visibilities, so use them before the next job), and says
    so:

    Attributes
    ----------
    last_prediction_kind : {"full", "incremental", "cached"} or None
        How the last synthetic job got its visibilities: every component
        predicted (``"full"``), the held prediction plus the components added
        minus those removed (``"incremental"``), or the held one as it was
        (``"cached"``). None before the first synthetic job.
    last_prediction_delta : (int, int)
        (added, removed) components of the last incremental prediction.
    prediction_edits : int
        Incremental updates applied to the held prediction since it was last
        predicted in full (their rounding errors add up, so there is a limit).
    imaging : ImagingCache
        What the last CPU image left for the next one of the same samples
        (:mod:`uvlab.gpu.imaging.reuse`: the selected samples, weights,
        ``conv``'s gridding plan, the PSF), each kept by its own inputs.
    """

    def __init__(self):
        self._obs: tuple[object, object] = (None, None)
        self._vis: tuple[object, object] = (None, None)
        self.last_prediction_kind: str | None = None
        self.last_prediction_delta: tuple[int, int] = (0, 0)
        self.prediction_edits = 0
        self._ms_info: dict[tuple, object] = {}
        self._ms_data: tuple[object, object] = (None, None)
        self._derived: dict[str, tuple[object, object]] = {}
        self.imaging = ImagingCache()

    def observation(self, spec) -> tuple[object, float]:
        """(Observation, seconds spent): simulated unless ``spec`` is the last one."""
        if self._obs[0] == spec:
            return self._obs[1], 0.0
        from uvlab.app.observing.observation import simulate_observation

        t0 = time.perf_counter()
        obs = simulate_observation(spec)
        self._obs = (spec, obs)
        return obs, time.perf_counter() - t0

    def derived(self, kind: str, key, make):
        """``make()``, remembered for the last ``key`` of each ``kind``.

        For what the views need besides the image (the uv rows, the model
        image): an imaging-only change reuses them instead of rebuilding
        them (≈ 60 ms at 1024² on the default scene). A key that is None
        is never remembered.
        """
        if key is None:
            return make()
        last = self._derived.get(kind)
        if last is not None and last[0] == key:
            return last[1]
        value = make()
        self._derived[kind] = (key, value)
        return value

    def prediction(self, key):
        """The held visibilities when ``key`` is theirs, else None."""
        return self._vis[1] if self._vis[0] == key else None

    @property
    def prediction_key(self):
        """The key of the held prediction (None when none is held)."""
        return self._vis[0]

    def store_prediction(self, key, vis) -> None:
        self._vis = (key, vis)

    def take_prediction(self):
        """The held visibilities, no longer held (to change them in place; None if none)."""
        vis = self._vis[1]
        self._vis = (None, None)
        return vis

    def ms_info(self, path: str):
        """``open_ms(path)``, remembered per path and modification time."""
        key = (os.path.abspath(path), _mtime(path))
        if key not in self._ms_info:
            from uvlab.app.ms import open_ms

            self._ms_info = {key: open_ms(path)}
        return self._ms_info[key]

    def has_ms_data(self, sel: MSSelection) -> bool:
        """Whether :meth:`ms_data` has ``sel`` already (nothing would be read)."""
        return self._ms_data[0] == ms_key(sel)

    def ms_data(self, sel: MSSelection, progress=None, cancelled=None) -> tuple[object, float]:
        """(VisData, seconds spent) for a selection; read unless it is the last one."""
        key = ms_key(sel)
        if self._ms_data[0] == key:
            return self._ms_data[1], 0.0
        from uvlab.app.ms import read_visibilities

        t0 = time.perf_counter()
        data = read_visibilities(
            sel.path,
            field=sel.field,
            spw=sel.spw,
            column=sel.column,
            stokes=sel.stokes,
            channels=sel.channels,
            time_range=self.time_range(sel),
            progress=progress,
            cancelled=cancelled,
        )
        if sel.interval is not None or sel.antenna:
            from uvlab.app.ms.rowselect import select_rows

            names = self.ms_info(sel.path).antenna_names if sel.antenna else ()
            data = select_rows(data, antenna=sel.antenna, interval=sel.interval, names=names)
        if sel.phase_centre is not None:
            from uvlab.app.ms.phaseshift import shift_phase_centre

            data = shift_phase_centre(data, *sel.phase_centre)
        if sel.uvrange is not None:
            from uvlab.app.ms.rowselect import uv_range_flagged

            data = uv_range_flagged(data, *sel.uvrange)
        self._ms_data = (key, data)
        return data, time.perf_counter() - t0

    def time_range(self, sel: MSSelection):
        """The (start, end) MJD seconds of ``sel.timerange``, or None (MSError when malformed)."""
        if not sel.timerange:
            return None
        from uvlab.app.ms.errors import MSError
        from uvlab.app.ms.rowselect import parse_timerange

        try:
            return parse_timerange(sel.timerange, self.ms_info(sel.path).time_start_mjd_s)
        except ValueError as exc:
            raise MSError(f"{sel.path}: --timerange {exc}") from None


def ms_key(sel: MSSelection) -> tuple:
    """What an MS read depends on: the selection, the absolute path and its mtime."""
    return (sel, os.path.abspath(sel.path), _mtime(sel.path))


def _mtime(path: str) -> float:
    try:
        return os.path.getmtime(path)
    except OSError:
        return math.nan


@dataclass(frozen=True, eq=False)
class Samples:
    """Visibilities ready to image, with what the views need besides the image."""

    source: str
    uvw: np.ndarray  # (row, 3) m
    freq_hz: np.ndarray  # (chan,)
    vis: np.ndarray  # (row, chan); a CuPy array when predicted on the GPU (see on_host)
    weight: object  # (row, chan) or scalar
    flag: np.ndarray  # (row, chan) or (row, 1)
    spec: object
    ra0_rad: float
    dec0_rad: float
    uv: UvData
    antennas: Antennas | None
    sources: object  # SourceArrays of the sky model
    timing: dict
    info: object = None
    description: str = ""
    sky_key: object = None  # what ``sources`` came from: a key for caching the model image
    raw: object = None  # what they were read from: the simulated Observation, or the VisData
    # names of the content of (uvw, freq_hz, weight, flag) and of vis, for the imaging cache
    # (:func:`uvlab.gpu.imaging.imager.make_image`'s data_key and vis_key); None: unnamed
    data_key: object = None
    vis_key: object = None

    def on_host(self) -> Samples:
        """These samples with NumPy visibilities (a GPU prediction stays on the device)."""
        from uvlab.gpu.backend import to_numpy

        return self if isinstance(self.vis, np.ndarray) else replace(self, vis=to_numpy(self.vis))


def image_spec_for(request, uvw, freq_hz, cache=None, data_key=None):
    """The job's image geometry: the request's ``spec`` when given, else the imaging's.

    The imaging's is its npix at the cell of :func:`cell_rad_for`, which keeps
    an automatic cell inside the horizon
    (:func:`uvlab.gpu.image_spec.horizon_note` says when it had to). With a
    ``cache`` and a ``data_key`` that names ``uvw`` and ``freq_hz`` (the
    observation), the cell is remembered for the next job of the same data.
    """
    if request.spec is not None:
        return request.spec
    im = request.imaging
    cell = lambda: cell_rad_for(im, uvw, freq_hz)  # noqa: E731
    if cache is None:
        return im.image_spec(cell())
    key = None if data_key is None else (data_key, im.cell_arcsec, im.npix)
    return im.image_spec(cache.derived("cell", key, cell))  # a None key is never kept


def cell_rad_for(imaging, uvw, freq_hz) -> float:
    """The pixel size: the requested one, else 1/(3·u_max) of the data.

    The automatic cell is made finer where ``imaging.npix`` pixels of it would
    reach past the horizon (``npix·cell ≤ 2``); a requested one is kept as it is.
    """
    from uvlab.gpu.image_spec import cell_for_uvw

    return cell_for_uvw(uvw, freq_hz, imaging.cell_arcsec, npix=imaging.npix)


def uv_rows(uvw, time_s, ant1, ant2, nant: int, freq_hz, keep) -> UvData:
    """The uv view's rows: those with ``keep`` true (every row when all are: no selection)."""
    keep = np.asarray(keep, dtype=bool)
    rows = slice(None) if keep.all() else keep
    return UvData(
        u_m=np.ascontiguousarray(uvw[rows, 0]),
        v_m=np.ascontiguousarray(uvw[rows, 1]),
        freq_hz=np.asarray(freq_hz, dtype=np.float64),
        time=np.asarray(time_s, dtype=np.float64)[rows],
        baseline=(np.asarray(ant1, dtype=np.int64)[rows] * nant + np.asarray(ant2)[rows]),
    )


def antennas_from_ecef(ecef, names, diameter_m) -> Antennas:
    """East/north/up about the antennas' mean position (for an MS's ANTENNA table)."""
    from uvlab.app.observing.sites import ecef_to_geodetic, enu_matrix

    ecef = np.asarray(ecef, dtype=np.float64).reshape(-1, 3)
    centre = ecef.mean(axis=0)
    lon, lat, _ = ecef_to_geodetic(centre)
    enu = (ecef - centre) @ enu_matrix(float(lon), float(lat)).T
    return Antennas(enu, tuple(str(n) for n in names), np.asarray(diameter_m, dtype=np.float64))


#: A Gaussian of the model image is evaluated this many FWHM (major) from its centre.
GAUSS_REACH = 4.0


def model_image(sources, spec, freq_hz: float) -> np.ndarray:
    """The sky model on the image grid, Jy/pixel (Stokes I at ``freq_hz``).

    Points go to their nearest pixel; Gaussians are sampled at the pixel
    centres (FWHM major/minor, PA east of north) and scaled to their integrated
    flux (a Gaussian narrower than a pixel falls back to its nearest pixel).

    Parameters
    ----------
    sources : SourceArrays
    spec : ImageSpec
    freq_hz : float

    Returns
    -------
    (N, N) float64, ``img[j, i]`` as DESIGN §1.
    """
    n = spec.npix
    img = np.zeros((n, n))
    if sources.nsrc == 0:
        return img
    from uvlab.gpu.predict.terms import spectral_flux

    flux = spectral_flux(np.array([freq_hz], dtype=np.float64), sources, npol=1)[0, :, 0]
    l_ax, m_ax = spec.l_axis(), spec.m_axis()
    for k in range(sources.nsrc):
        l, m = sources.lmn[k, :2]
        maj, mnr, pa = sources.shape[k]
        jf, if_ = spec.pixel_of(l, m)
        if maj > 0:
            # pixels within GAUSS_REACH FWHM only: past it the profile is < 1e-19 of its peak
            reach = GAUSS_REACH * maj / spec.cell_rad + 1.0
            rows = slice(max(0, int(jf - reach)), max(0, int(np.ceil(jf + reach)) + 1))
            cols = slice(max(0, int(if_ - reach)), max(0, int(np.ceil(if_ + reach)) + 1))
            dl, dm = l_ax[None, cols] - l, m_ax[rows, None] - m
            along = dl * np.sin(pa) + dm * np.cos(pa)
            across = dl * np.cos(pa) - dm * np.sin(pa)
            mnr = max(mnr, 1e-3 * maj)
            g = np.exp(-4.0 * np.log(2.0) * ((along / maj) ** 2 + (across / mnr) ** 2))
            if g.sum() > 1e-3:
                img[rows, cols] += flux[k] * g / g.sum()
                continue
        j, i = int(np.floor(jf + 0.5)), int(np.floor(if_ + 0.5))
        if 0 <= j < n and 0 <= i < n:
            img[j, i] += flux[k]
    return img


def sky_image(
    request: JobRequest, sources, spec, ra0_rad: float, dec0_rad: float, freq_hz: float
) -> np.ndarray:
    """The sky on the image grid, Jy/pixel: the components, and the image sky if any.

    ``sources``: the sky's SourceArrays about the data's phase centre (``ra0_rad``,
    ``dec0_rad``); ``spec`` the image's geometry.

    The image sky (a picture, a FITS image) is resampled onto the grid about
    the data's phase centre (:meth:`~uvlab.app.skymodel.image_sky.ImageSky.on_grid`),
    scaled to ``freq_hz`` by its spectral index.
    """
    model = model_image(sources, spec, freq_hz)
    sky = request.image_sky
    if sky is not None:
        ra, dec = math.degrees(ra0_rad), math.degrees(dec0_rad)
        scale = (freq_hz / sky.ref_freq_hz) ** sky.spectral_index
        model = model + scale * sky.on_grid(spec, ra, dec)[0]
    return model
