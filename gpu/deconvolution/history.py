"""The CLEAN so far: the record the driver yields, and the history it is made from.

:class:`CleanCycle` is what :func:`~uvlab.gpu.deconvolution.driver.iter_clean` yields at
the start and after each cycle (and chunk). :class:`CleanHistory` gathers it: the
components in CLEAN's order (and their sums on the pixels holding one, so a minor cycle in
chunks or on a GPU adds up to the same model bits), the residual's peak and RMS after each
iteration, the cycles' ends and the major cycles' peaks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from uvlab.gpu.backend import get_xp
from uvlab.gpu.deconvolution.levels import image_stats
from uvlab.gpu.deconvolution.multiscale import MultiscaleResult


@dataclass(frozen=True, eq=False)
class CleanCycle:
    """The CLEAN after a cycle (or a chunk of one); ``done``: the last.

    Attributes
    ----------
    model : (N, N) float64, or (P, N, N) with joined planes
        Jy/pixel, the inputs' namespace (never changed after it is yielded).
    residual : (N, N) float64, or (P, N, N)
        Jy/beam; after a Cotton–Schwab cycle, the image of the residual visibilities.
    comp_j, comp_i, comp_flux : (iterations,) NumPy; comp_flux (iterations, P) when joined
        The components in CLEAN's order (row, column, Jy).
    peak, rms : (iterations + 1,) float64 NumPy
        Residual |peak| (inside the mask) and RMS at the start and after each iteration
        (joined: the search image's);
        at the end of a major cycle, those of the major cycle's residual (the RMS is NaN
        inside a sub-minor loop).
    cycle_ends : tuple of int
        The iteration count at the end of each cycle.
    majors : int
        Major cycles run (0 for Högbom).
    major_peaks : tuple of float
        Cotton–Schwab: the residual's |peak| at the start and after each major cycle.
    stop_reason : str
        Why CLEAN stopped (``niter``, ``threshold``, ``auto-threshold``, ``zero``,
        ``converged``, or ``mgain`` where the major-cycle limit ended it); "" while it runs.
    done : bool
    """

    model: object
    residual: object
    comp_j: np.ndarray
    comp_i: np.ndarray
    comp_flux: np.ndarray
    peak: np.ndarray
    rms: np.ndarray
    cycle_ends: tuple[int, ...]
    majors: int
    major_peaks: tuple[float, ...]
    stop_reason: str = ""
    done: bool = False

    @property
    def iterations(self) -> int:
        return int(self.comp_j.size)

    @property
    def cycles(self) -> int:
        return len(self.cycle_ends)


class CleanHistory:
    """The components, peaks, RMS and cycle ends so far.

    ``mean``: the image the peaks are taken on, of a residual (joined: the search image).
    """

    def __init__(self, residual, maskf, mean=lambda r: r):
        self.mean = mean
        # the components' sums on the pixels holding one (sorted), one row per plane
        self.pix = np.zeros(0, dtype=np.int64)
        self.sums = np.zeros((residual.shape[0] if residual.ndim == 3 else 1, 0))
        self.j, self.i, self.flux = [], [], []
        self.peak, self.rms = [], []
        self.cycle_ends: list[int] = []
        self.major_peaks: list[float] = []
        self.majors = 0
        self.iterations = 0
        self.set_last(residual, maskf, append=True)

    def set_last(self, residual, maskf, append: bool = False) -> None:
        """The state after the last iteration is ``residual``'s (a major cycle's)."""
        peak, top, rms = image_stats(self.mean(residual), maskf)
        self.last = (residual, maskf, peak, top)
        if append:
            self.peak.append(peak)
            self.rms.append(rms)
        else:
            self.peak[-1], self.rms[-1] = peak, rms

    def known_peak(self, residual, maskf=None, masked: bool = True) -> float | None:
        """|peak| of ``residual`` (of its mean; in ``maskf``, or anywhere) if :meth:`set_last`
        measured this very array (with this very mask), else None."""
        last, last_mask, peak, top = self.last
        if last is not residual:
            return None
        if not masked:
            return top
        return peak if last_mask is maskf else None

    def add(self, res, model):
        """A hogbom call's components and the states after each (its first: the one before).

        Returns the model with them added, a new array in ``model``'s namespace. The sum
        is the host's, component after component in CLEAN's order (``np.add.at``), so a
        minor cycle split into chunks, or run on a GPU, sums to the same bits. It is kept
        on the pixels holding components only (adding into a dense 4096² host image took
        0.5–0.8 ms a cycle on an H200's host), and only the pixels these components
        touched are copied into the model. A multiscale cycle's components are kernels:
        its model (them convolved) is added whole.
        """
        if isinstance(res, MultiscaleResult):
            self._record(res)
            return model + res.model
        n = model.shape[-1]
        pos = res.comp_j * n + res.comp_i
        planes = self.sums.shape[0]
        flux = np.asarray(res.comp_flux).reshape(pos.size, planes)  # none: (0, C)
        pix = np.union1d(self.pix, pos)
        if pix.size != self.pix.size:  # new pixels: the sums move to their sorted places
            sums = np.zeros((planes, pix.size))
            sums[:, np.searchsorted(pix, self.pix)] = self.sums
            self.pix, self.sums = pix, sums
        at = np.searchsorted(self.pix, pos)
        for c in range(planes):
            np.add.at(self.sums[c], at, flux[:, c])
        xp = get_xp(model)
        touched = np.unique(pos)
        model = model.copy()
        model.reshape(-1, n * n)[:, xp.asarray(touched)] = xp.asarray(
            self.sums[:, np.searchsorted(self.pix, touched)]
        )
        self._record(res)
        return model

    def _record(self, res) -> None:
        self.j.append(res.comp_j)
        self.i.append(res.comp_i)
        self.flux.append(res.comp_flux)
        self.peak.extend(np.asarray(res.peak[1:], float).tolist())
        self.rms.extend(np.asarray(res.rms[1:], float).tolist())
        self.iterations += res.iterations

    def state(self, model, residual, reason: str = "", done: bool = False) -> CleanCycle:
        cat = lambda parts, t: np.concatenate(parts).astype(t) if parts else np.zeros(0, t)  # noqa: E731
        return CleanCycle(
            model, residual, cat(self.j, np.int64), cat(self.i, np.int64),
            cat(self.flux, np.float64), np.asarray(self.peak), np.asarray(self.rms),
            tuple(self.cycle_ends), self.majors, tuple(self.major_peaks), reason, done,
        )  # fmt: skip
