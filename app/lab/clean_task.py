"""The ``clean`` task: CLEAN in the worker, one partial per cycle (issue 15; no Qt).

:func:`iter_clean` makes the dirty image and PSF of the samples as the
``image`` task does (the same imaging cache), fits the restoring beam, and
cleans in cycles, yielding a :class:`~uvlab.app.lab.jobs.Partial` whose
``clean`` is a :class:`CleanState` after each one (urgent: every complete
cycle reaches the window, so a cancel leaves the last complete one on screen):

- ``hogbom``: image-plane minor cycles (:func:`~uvlab.gpu.deconvolution.hogbom`),
  a cycle ending at ``(1 − mgain)·peak`` as ``uvlab image`` ends it
  (:func:`uvlab.app.deconvolve.deconvolve`), each cut into chunks of at most
  :func:`chunk_size` iterations so that the window sees the CLEAN progress;
- ``cotton-schwab``: the same minor cycles between major cycles that subtract
  the model from the visibilities by degridding and grid the residual anew
  (:func:`~uvlab.gpu.deconvolution.cotton_schwab.residual_image`, the grid and
  degrid pair of :func:`uvlab.gpu.deconvolution.cotton_schwab.major_cycle_pair`): one state per
  major cycle.

Each state carries the components in CLEAN's order, so that the window can
replay the CLEAN to any iteration (:mod:`uvlab.gpu.deconvolution.replay`).
The stop levels of a cycle are taken once, at its start (threshold,
auto-threshold from the residual's MAD, mgain), as
:func:`~uvlab.gpu.deconvolution.hogbom` takes them.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from uvlab.app.lab.jobs import Done, JobRequest, Partial, Progress
from uvlab.app.lab.samples import Samples, WorkCache, check

DECONVOLVERS = ("hogbom", "cotton-schwab")
#: A Högbom cycle is cut into about this many chunks (one partial each).
CHUNKS = 20
#: ... of at least this many iterations.
MIN_CHUNK = 10


@dataclass(frozen=True)
class CleanOptions:
    """How to CLEAN (the Deconvolution view's controls).

    Attributes
    ----------
    deconvolver : {"hogbom", "cotton-schwab"}
    niter : int
        Minor iterations at most, ≥ 0.
    gain : float
        Loop gain in (0, 1].
    mgain : float
        A (minor) cycle ends at ``(1 − mgain)·peak``, in (0, 1]; 1: one cycle.
    threshold_jy : float
        Stop at this residual peak, Jy/beam (≥ 0).
    auto_threshold : float or None
        Stop at this many σ of the residual (MAD), or None.
    """

    deconvolver: str = "hogbom"
    niter: int = 500
    gain: float = 0.1
    mgain: float = 0.8
    threshold_jy: float = 0.0
    auto_threshold: float | None = None

    def __post_init__(self):
        if self.deconvolver not in DECONVOLVERS:
            raise ValueError(
                f"deconvolver {self.deconvolver!r} is not one of {', '.join(DECONVOLVERS)}"
            )
        if isinstance(self.niter, bool) or int(self.niter) != self.niter or self.niter < 0:
            raise ValueError(f"niter must be a whole number ≥ 0, got {self.niter!r}")
        if not 0.0 < self.gain <= 1.0:
            raise ValueError(f"gain must be in (0, 1], got {self.gain}")
        if not 0.0 < self.mgain <= 1.0:
            raise ValueError(f"mgain must be in (0, 1], got {self.mgain}")
        if not (self.threshold_jy >= 0.0 and math.isfinite(self.threshold_jy)):
            raise ValueError(f"threshold must be ≥ 0 Jy/beam, got {self.threshold_jy}")
        a = self.auto_threshold
        if a is not None and not (a >= 0.0 and math.isfinite(a)):
            raise ValueError(f"auto-threshold must be ≥ 0 σ, got {a}")


@dataclass(frozen=True, eq=False)
class CleanState:
    """A CLEAN after a complete cycle (``done``: the last one); all arrays NumPy.

    Attributes
    ----------
    spec : ImageSpec
    ra0_rad, dec0_rad : float
    dirty, psf : (N, N) float64
        What CLEAN started from (Jy/beam; PSF peak 1).
    model : (N, N) float64
        Jy/pixel.
    residual, restored : (N, N) float64
        Jy/beam (``restored = model ⊛ beam + residual``).
    beam : Beam
        The restoring beam fitted to the PSF.
    comp_j, comp_i, comp_flux : (iterations,)
        The components in CLEAN's order (row, column, Jy).
    peak, rms : (iterations + 1,) float64
        Residual |peak| and RMS after k iterations, k = 0 … iterations (Jy/beam);
        at the end of a Cotton–Schwab major cycle, those of the major cycle's residual.
    cycle_ends : tuple of int
        The iteration count at the end of each cycle.
    deconvolver : str
    stop_reason : str
        Why the last cycle ended; "" while CLEAN runs.
    done : bool
        The CLEAN has ended (a job's output); False for a partial.
    """

    spec: object
    ra0_rad: float
    dec0_rad: float
    dirty: np.ndarray
    psf: np.ndarray
    model: np.ndarray
    residual: np.ndarray
    restored: np.ndarray
    beam: object
    comp_j: np.ndarray
    comp_i: np.ndarray
    comp_flux: np.ndarray
    peak: np.ndarray
    rms: np.ndarray
    cycle_ends: tuple[int, ...]
    deconvolver: str
    stop_reason: str = ""
    done: bool = False
    niter: int = 0

    @property
    def iterations(self) -> int:
        return int(self.comp_flux.size)

    @property
    def cycles(self) -> int:
        return len(self.cycle_ends)

    def describe(self) -> str:
        """One line: deconvolver, iterations, cycles, why it stopped, the residual and the beam."""
        name = "Högbom" if self.deconvolver == "hogbom" else "Cotton–Schwab"
        kind = "major cycles" if self.deconvolver == "cotton-schwab" else "cycles"
        b = self.beam
        beam = f"{b.bmaj_rad / ARCSEC:.3g}″ × {b.bmin_rad / ARCSEC:.3g}″ at {b.bpa_deg:.0f}°"
        end = f", stopped: {self.stop_reason}" if self.stop_reason else ", running"
        return (
            f"{name}: {self.iterations} of {self.niter} iterations in {self.cycles} {kind}{end}; "
            f"residual peak {self.peak[-1]:.3g}, RMS {self.rms[-1]:.3g} Jy/beam; beam {beam}"
        )


ARCSEC = math.pi / (180.0 * 3600.0)


def chunk_size(niter: int) -> int:
    """Iterations per Högbom chunk: about ``niter / CHUNKS``, at least :data:`MIN_CHUNK`."""
    return max(MIN_CHUNK, math.ceil(niter / CHUNKS))


def stop_level(residual: np.ndarray, opts: CleanOptions) -> tuple[float, str]:
    """(level, name) a cycle starting on ``residual`` stops at: the largest of its levels."""
    from uvlab.gpu.deconvolution import auto_sigma

    levels = {"threshold": float(opts.threshold_jy)}
    if opts.auto_threshold:
        levels["auto-threshold"] = float(opts.auto_threshold) * auto_sigma(residual)
    if opts.mgain < 1.0:
        levels["mgain"] = (1.0 - opts.mgain) * float(np.abs(residual).max())
    name, level = max(levels.items(), key=lambda kv: kv[1])
    return level, name


class _Record:
    """The components, peaks and cycles so far, and the state's arrays."""

    def __init__(self, dirty, psf, spec, beam, s: Samples, opts: CleanOptions):
        self.dirty, self.psf, self.spec, self.beam = dirty, psf, spec, beam
        self.ra0, self.dec0 = float(s.ra0_rad), float(s.dec0_rad)
        self.opts = opts
        self.j, self.i, self.flux = [], [], []
        self.peak = [float(np.abs(dirty).max())]
        self.rms = [float(np.sqrt(np.mean(dirty * dirty)))]
        self.cycle_ends: list[int] = []

    @property
    def iterations(self) -> int:
        return sum(len(f) for f in self.flux)

    def add(self, res) -> None:
        """A hogbom call's components and the peaks after each (its first: the state before)."""
        self.j.append(res.comp_j)
        self.i.append(res.comp_i)
        self.flux.append(res.comp_flux)
        self.peak.extend(np.asarray(res.peak[1:], float).tolist())
        self.rms.extend(np.asarray(res.rms[1:], float).tolist())

    def replace_last(self, residual: np.ndarray) -> None:
        """The state after the last iteration is ``residual`` (a major cycle's)."""
        self.peak[-1] = float(np.abs(residual).max())
        self.rms[-1] = float(np.sqrt(np.mean(residual * residual)))

    def state(self, model, residual, reason: str = "", done: bool = False) -> CleanState:
        from uvlab.gpu.deconvolution import restore

        cat = lambda parts, t: np.concatenate(parts).astype(t) if parts else np.zeros(0, t)  # noqa: E731
        return CleanState(
            self.spec, self.ra0, self.dec0, self.dirty, self.psf, model.copy(), residual.copy(),
            np.asarray(restore(model, residual, self.beam, self.spec.cell_rad)), self.beam,
            cat(self.j, np.int64), cat(self.i, np.int64), cat(self.flux, np.float64),
            np.asarray(self.peak), np.asarray(self.rms), tuple(self.cycle_ends),
            self.opts.deconvolver, reason, done, int(self.opts.niter),
        )  # fmt: skip


def iter_clean(request: JobRequest, s: Samples, cancelled, cache: WorkCache) -> Iterator:
    """The ``clean`` task's events: dirty image and PSF, a state per cycle, the last as Done."""
    from uvlab.gpu.backend import to_numpy
    from uvlab.gpu.deconvolution import fit_beam
    from uvlab.gpu.imaging.imager import make_image

    opts = request.clean or CleanOptions()
    im = request.imaging
    yield Progress(0.72, f"dirty image and PSF ({im.algorithm})")
    params = request.grid_params()
    res = make_image(
        s.uvw, s.freq_hz, s.vis, s.weight, s.spec, flag=s.flag, weighting=im.weighting_spec(),
        algorithm=im.algorithm, params=params, device=request.device, cache=cache.imaging,
        data_key=s.data_key, vis_key=s.vis_key,
    )  # fmt: skip
    check(cancelled)
    dirty = np.asarray(to_numpy(res.dirty), dtype=np.float64)
    psf = np.asarray(to_numpy(res.psf), dtype=np.float64)
    beam = fit_beam(psf, s.spec.cell_rad)
    rec = _Record(dirty, psf, s.spec, beam, s, opts)
    model = np.zeros_like(dirty)
    residual = dirty
    major = None
    if opts.deconvolver == "cotton-schwab":
        major = _major_cycles(request, s, params)
        residual = major(None)  # the gridder's own dirty image: the major cycles' reference
        rec.replace_last(residual)
    yield Partial("clean", 0.75, clean=rec.state(model, residual), urgent=True)
    left, reason = int(opts.niter), "niter"
    while left > 0:
        level, reason = stop_level(residual, opts)
        start = rec.iterations
        model, residual, left, reason = yield from _minor_cycle(
            rec, model, residual, left, level, reason, opts, cancelled, chunked=major is None
        )
        if rec.iterations == start:  # nothing above the stop level
            reason = "converged" if reason == "mgain" else reason
            break
        if major is not None:  # the major cycle: what the data still hold, exactly
            residual = major(model)
            rec.replace_last(residual)
            check(cancelled)
        rec.cycle_ends.append(rec.iterations)
        yield Partial("clean", _fraction(opts, left), clean=rec.state(model, residual),
                      urgent=True)  # fmt: skip
        if reason != "mgain" or (major is not None and len(rec.cycle_ends) >= _max_major()):
            break
    yield Done(rec.state(model, residual, reason, done=True))


def _fraction(opts: CleanOptions, left: int) -> float:
    return 0.75 + 0.25 * (1.0 - left / max(1, opts.niter))


def _max_major() -> int:
    from uvlab.gpu.deconvolution.cotton_schwab import MAX_MAJOR

    return MAX_MAJOR


def _minor_cycle(rec, model, residual, left, level, reason, opts, cancelled, chunked):
    """One minor cycle down to ``level``; Högbom's in chunks, with a partial between them.

    Returns (model, residual, iterations left, stop reason) (``yield from``);
    the reason is ``reason`` (the level's name) when the level was reached.
    """
    from uvlab.gpu.deconvolution import hogbom

    step = chunk_size(opts.niter) if chunked else left
    while True:
        res = hogbom(residual, rec.psf, gain=opts.gain, niter=min(step, left), threshold=level)
        rec.add(res)
        model = model + res.model
        residual = res.residual
        left -= res.iterations
        check(cancelled)
        if res.stop_reason != "niter" or left == 0:
            return model, residual, left, reason if res.stop_reason == "threshold" else (
                res.stop_reason
            )  # fmt: skip
        yield Partial("clean", _fraction(opts, left), clean=rec.state(model, residual),
                      urgent=True)  # fmt: skip


def _major_cycles(request: JobRequest, s: Samples, params):
    """``major(model)``: the residual image of the visibilities minus ``model``'s (N, N).

    On the request's device: the samples, weights and visibilities go there once, the
    gridder and degridder are that device's (CUDA on a GPU), and each residual comes back
    to the host for the minor cycles and the window.
    """
    from uvlab.gpu.backend import get_xp, resolve_device, to_numpy
    from uvlab.gpu.deconvolution.cotton_schwab import major_cycle_pair, residual_image
    from uvlab.gpu.imaging.reuse import select_samples
    from uvlab.gpu.imaging.weighting import imaging_weights

    vis_all = np.asarray(to_numpy(s.vis))
    flag = np.broadcast_to(s.flag, vis_all.shape)
    weight = s.weight if np.ndim(s.weight) else np.full(vis_all.shape, float(s.weight))
    fs = select_samples(s.uvw, s.freq_hz, weight, flag, vis=vis_all)
    vis = np.asarray(fs.take(vis_all), dtype=np.complex128)
    w = imaging_weights(fs.u, fs.v, fs.weight, s.spec, request.imaging.weighting_spec())
    wsum = float(np.sum(w))
    if not wsum > 0:
        raise ValueError("the imaging weights sum to zero: nothing to clean")
    xp = get_xp(device=resolve_device(request.device))
    u, v, vis, w = (xp.asarray(a) for a in (fs.u, fs.v, vis, w))
    w_lambda = xp.asarray(fs.w) if params is not None and params.wstack else None
    grid, degrid_fn = major_cycle_pair(request.imaging.algorithm, params, xp)

    def major(model):
        m = None if model is None else xp.asarray(model)
        img = residual_image(u, v, vis, w, m, s.spec, grid, degrid_fn, wsum, w=w_lambda)
        return np.asarray(to_numpy(img), dtype=np.float64)

    return major
