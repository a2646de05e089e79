"""Joined CLEAN of several planes: WSClean's ``-join-channels`` and ``-join-polarizations``.

P planes (output channels, polarisations, or both), each with its own residual image and
its own PSF, are CLEANed together by one minor loop (Radler's joined Högbom; Offringa &
Smirnov 2017, §2). Each iteration:

1. the peak is found on the *search image* of the planes, inside the mask — the one
   thing that differs between the kinds (:meth:`JoinedChannels.search`,
   :meth:`JoinedPolarizations.search`):

   - channels: the MFS residual, the channels' weighted mean
     ``R = Σ_c W_c·R_c / Σ_c W_c`` (W_c: each channel's Σ of imaging weights, the
     weights of WSClean's MFS image), its |value|;
   - polarisations: the root of the sum of squares ``√(f·Σ_p R_p²)``, f = ½ for two
     or four correlations of one feed type (XX,YY; RR,LL; XX,XY,YX,YY …: so an
     unpolarised source reads its Stokes I) and 1 otherwise (Stokes parameters), as
     Radler's ``ImageSet::GetSquareIntegrated`` normalises it;
   - both (``-join-channels -join-polarizations``, :class:`JoinedChannelsPolarizations`,
     planes indexed by (channel, polarisation)): each channel's root sum of squares,
     their MFS mean, times √f;

2. at that pixel every plane's residual value ``R_p(x)`` is taken; for channels with
   ``-fit-spectral-pol K`` they are replaced by the K-term polynomial fitted to them
   (:class:`~uvlab.gpu.deconvolution.spectral_fit.SpectralFit`, as Radler fits at each
   iteration);
3. plane p gets the component ``gain·R_p(x)`` at x, and its own PSF, shifted there
   and scaled alike, is subtracted from its own residual.

So components sit at the same pixels in every plane, each with that plane's own value
(a source's spectrum, its I, Q, U, V, or each channel's I, Q, U, V), while the peaks are
found where the planes together are brightest. The stop level and the peaks recorded
are the search image's; the noise σ of ``--auto-threshold`` is taken from the planes'
*linear* combination (:meth:`JoinedChannels.linear`: the MFS image;
:meth:`JoinedPolarizations.linear`: ``f·Σ_p R_p``, Radler's ``GetLinearIntegrated``;
:meth:`JoinedChannelsPolarizations.linear`: both), since a sum of squares has no zero
mean to measure a σ about. Arrays are NumPy or CuPy alike (one ``xp`` body); the driver
(:func:`~uvlab.gpu.deconvolution.driver.iter_clean` with ``joined``) runs the cycles,
Cotton–Schwab's major cycles per plane (:class:`JoinedMajor`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from uvlab.gpu.backend import get_xp
from uvlab.gpu.deconvolution.hogbom import (
    DIVERGENCE_FACTOR,
    CleanDivergedError,
    CleanResult,
    psf_window,
)


@dataclass(frozen=True, eq=False)
class JoinedChannels:
    """The channels CLEANed jointly.

    Attributes
    ----------
    weights : (C,) float
        Each channel's weight in the MFS mean (its Σ of imaging weights), ≥ 0, not all 0.
    fit : SpectralFit or None
        ``-fit-spectral-pol``: each component's channel values replaced by the fit.
    """

    weights: tuple
    fit: object = None

    def __post_init__(self):
        w = np.asarray(self.weights, dtype=np.float64).ravel()
        if not (w.size and np.isfinite(w).all() and (w >= 0).all() and w.sum() > 0):
            raise ValueError(f"joined channels need weights ≥ 0, not all 0, got {w.tolist()}")
        if self.fit is not None and len(self.fit.weights) != w.size:
            raise ValueError(f"a spectral fit over {len(self.fit.weights)} of {w.size} channels")
        object.__setattr__(self, "weights", tuple(w.tolist()))

    @property
    def nchan(self) -> int:
        return len(self.weights)

    def normalised(self, xp):
        """(C,) W_c / Σ W, on ``xp``."""
        w = np.asarray(self.weights)
        return xp.asarray(w / w.sum())

    @property
    def nplanes(self) -> int:
        return self.nchan

    def mean(self, stack):
        """The MFS image Σ_c W_c·stack_c / Σ W of a (C, ...) stack, in its namespace."""
        xp = get_xp(stack)
        return xp.tensordot(_on(self, xp, "wn", lambda: self.normalised(xp)), stack, axes=1)

    search = mean  # the peaks are the MFS image's
    linear = mean  # and so is the noise

    def values(self, values):
        """The (C,) values a component takes: the fit's (``-fit-spectral-pol``) or as found."""
        if self.fit is None:
            return values
        xp = get_xp(values)
        return _on(self, xp, "proj", lambda: xp.asarray(self.fit.projection())) @ values


#: Correlations of one feed type, two or four of them: Radler normalises their squares by ½.
_FEED_SETS = ({"XX", "YY"}, {"RR", "LL"}, {"XX", "XY", "YX", "YY"}, {"RR", "RL", "LR", "LL"})


@dataclass(frozen=True, eq=False)
class JoinedPolarizations:
    """The polarisations CLEANed jointly (WSClean's ``-join-polarizations``).

    Attributes
    ----------
    names : tuple of str
        The polarisations in plane order (``I``, ``Q``, ``XX`` …), two or more, none twice.
    """

    names: tuple

    def __post_init__(self):
        names = tuple(str(n).upper() for n in self.names)
        if len(names) < 2 or len(set(names)) != len(names):
            raise ValueError(f"joined polarisations need two or more, none twice, got {names}")
        object.__setattr__(self, "names", names)

    @property
    def nplanes(self) -> int:
        return len(self.names)

    @property
    def factor(self) -> float:
        """f: ½ for dual or full correlations of one feed type, else 1 (Radler's)."""
        return pol_factor(self.names)

    def search(self, stack):
        """The search image √(f·Σ_p stack_p²) of a (P, ...) stack, in its namespace."""
        xp = get_xp(stack)
        return xp.sqrt(self.factor * (stack * stack).sum(axis=0))

    def linear(self, stack):
        """``f·Σ_p stack_p``: the image σ is measured on (Radler's linear integration)."""
        return self.factor * stack.sum(axis=0)

    def values(self, values):
        """Each polarisation's component is its own residual value."""
        return values


def pol_factor(names) -> float:
    """f of the polarisations ``names``: ½ for two or four correlations of one feed type
    (an unpolarised source's root sum of squares then reads its Stokes I), else 1."""
    return 0.5 if {str(n).upper() for n in names} in _FEED_SETS else 1.0


@dataclass(frozen=True, eq=False)
class JoinedChannelsPolarizations:
    """Output channels × polarisations CLEANed jointly (``-join-channels -join-polarizations``).

    The C·P planes are channel-major, as Radler's ``ImageSet`` orders them: plane
    ``c·P + p`` is channel c's polarisation p, with its own residual and its own PSF.

    - search image (Radler's ``GetSquareIntegratedWithNormalChannels``): each channel's
      root sum of squares of its polarisations, their mean weighted as the MFS image's,
      times √f: ``S = √f·Σ_c W_c·√(Σ_p R_cp²) / Σ_c W_c``; a channel of one polarisation
      is its signed value there (Radler's), so one polarisation is
      :class:`JoinedChannels` exactly, and one channel :class:`JoinedPolarizations` to
      rounding;
    - linear combination (the σ of ``--auto-threshold``, the multiscale PSF units):
      ``f·Σ_c W_c·Σ_p R_cp / Σ_c W_c``;
    - component values: each plane's residual at the peak; with ``-fit-spectral-pol``
      each polarisation's C channel values are fitted on their own (Radler's
      ``PerformSpectralFit``: "different polarizations are fitted independently").

    Attributes
    ----------
    channels : JoinedChannels
        The channels' MFS weights W_c and spectral fit (Radler takes both from the first
        polarisation's images).
    names : tuple of str
        The polarisations in plane order within a channel, one or more, none twice.
    """

    channels: JoinedChannels
    names: tuple

    def __post_init__(self):
        names = tuple(str(n).upper() for n in self.names)
        if not names or len(set(names)) != len(names):
            raise ValueError(f"joined polarisations need one or more, none twice, got {names}")
        object.__setattr__(self, "names", names)

    @property
    def nchan(self) -> int:
        return self.channels.nchan

    @property
    def npol(self) -> int:
        return len(self.names)

    @property
    def nplanes(self) -> int:
        return self.nchan * self.npol

    @property
    def factor(self) -> float:
        """f of the polarisations (:func:`pol_factor`)."""
        return pol_factor(self.names)

    def _split(self, stack):
        """(C, P, ...) view of a (C·P, ...) stack."""
        return stack.reshape((self.nchan, self.npol, *stack.shape[1:]))

    def search(self, stack):
        """The search image of a (C·P, ...) stack, in its namespace (class docstring)."""
        if self.npol == 1:
            return self.channels.search(stack)
        xp = get_xp(stack)
        s = self._split(stack)
        return math.sqrt(self.factor) * self.channels.mean(xp.sqrt((s * s).sum(axis=1)))

    def linear(self, stack):
        """``f·Σ_c W_c·Σ_p stack_cp / Σ W``: the image σ is measured on."""
        return self.factor * self.channels.mean(self._split(stack).sum(axis=1))

    def values(self, values):
        """The (C·P,) values a component takes: each polarisation's channels fitted alone."""
        return self.channels.values(values.reshape(self.nchan, self.npol)).reshape(-1)


def _on(obj, xp, key: str, make):
    """``make()``, kept on ``obj`` per namespace (a planes' weights or projection on ``xp``)."""
    cache = obj.__dict__.setdefault("_xp_cache", {})
    k = (key, xp.__name__)
    if k not in cache:
        cache[k] = make()
    return cache[k]


def checked_stacks(residuals, psfs, planes):
    """(residuals, PSFs) as C-ordered float64 stacks (a copy of the residuals) of ``planes``.

    Raises
    ------
    ValueError
        Unless the residuals are (P, N, N) and the PSFs (P, Q, Q), Q = N or 2N (one line).
    """
    xp = get_xp(residuals)
    res = xp.array(residuals, dtype=xp.float64, order="C")
    psf = xp.ascontiguousarray(xp.asarray(psfs, dtype=xp.float64))
    c, n = planes.nplanes, res.shape[-1]
    if res.shape != (c, n, n) or psf.ndim != 3 or psf.shape[0] != c:
        raise ValueError(f"{c} planes need residuals (P, N, N) and PSFs (P, Q, Q), got "
                         f"{tuple(res.shape)} and {tuple(psf.shape)}")  # fmt: skip
    p = psf.shape[-1]
    if psf.shape[1] != p or p not in (n, 2 * n):
        raise ValueError(f"the PSFs must be ({c}, {n}, {n}) or ({c}, {2 * n}, {2 * n})")
    return res, psf


def joined_hogbom(
    residuals, psfs, planes, *, gain: float = 0.1, niter: int = 1000, threshold: float = 0.0,
    mask=None,
) -> CleanResult:  # fmt: skip
    """Högbom's joined minor cycle (module docstring) down to ``threshold`` on the search image.

    Parameters
    ----------
    residuals : (P, N, N) float
        Each plane's residual, Jy/beam (NumPy or CuPy; kept, a copy is cleaned).
    psfs : (P, Q, Q) float, Q = N or 2N
        Each plane's PSF, peak 1 at ``[Q//2, Q//2]``.
    planes : JoinedChannels, JoinedPolarizations or JoinedChannelsPolarizations
        What the planes are: their search image and component values.
    gain, niter, threshold, mask
        As :func:`~uvlab.gpu.deconvolution.hogbom.hogbom`'s; the threshold is the search
        image's.

    Raises
    ------
    ValueError
        On shapes that do not match (one line).
    CleanDivergedError
        When the search image's peak grows past 1.5× its start or is not finite.
    """
    res, psf = checked_stacks(residuals, psfs, planes)
    xp = get_xp(res)
    c, n, p = planes.nplanes, res.shape[-1], psf.shape[-1]
    maskf = None if mask is None else xp.asarray(mask, dtype=xp.float64)
    search = planes.search(res)
    pos, flux, peaks, rms = [], [], [], []
    stop, limit = float(threshold), None
    for _ in range(int(niter) + 1):
        a = xp.abs(search) if maskf is None else xp.abs(search) * maskf
        k = int(xp.argmax(a))
        peaks.append(float(a.reshape(-1)[k]))
        rms.append(float(xp.sqrt(xp.mean(search * search))))
        peak = peaks[-1]
        limit = DIVERGENCE_FACTOR * peak if limit is None else limit
        if len(pos) == niter or not (peak > stop) or not peak <= limit:
            break
        j, i = divmod(k, n)
        f = gain * planes.values(res[:, j, i])
        rows, cols, prow, pcol = psf_window(n, p, j, i)
        res[:, rows, cols] -= f[:, None, None] * psf[:, prow, pcol]
        search[rows, cols] = planes.search(res[:, rows, cols])
        pos.append(k)
        flux.append(f)
    peak = np.asarray(peaks)
    if not np.isfinite(peak).all() or (peak > limit).any():
        raise CleanDivergedError(
            f"joined CLEAN diverged: the residual peak {peak[-1]:.4g} Jy/beam grew past "
            f"{DIVERGENCE_FACTOR:g}× the starting {peak[0]:.4g} Jy/beam"
        )
    if len(pos) == niter and peak[-1] > stop:
        reason = "niter"
    else:
        reason = "zero" if peak[-1] == 0.0 else "threshold"
    comp = xp.stack(flux) if flux else xp.zeros((0, c), dtype=xp.float64)
    comp = np.asarray(comp.get() if xp is not np else comp, dtype=np.float64)
    j, i = np.divmod(np.asarray(pos, dtype=np.int64), n)
    model = xp.zeros((c, n * n), dtype=xp.float64)
    if pos:
        for ch in range(c):  # repeated pixels add up, in CLEAN's order
            xp.add.at(model[ch], xp.asarray(pos), xp.asarray(comp[:, ch]))
    return CleanResult(  # model and residual (P, N, N), comp_flux (m, P); no mgain level
        model.reshape(c, n, n), res, j, i, comp, peak, np.asarray(rms), stop, 0.0, reason
    )


class JoinedMajor:
    """Cotton–Schwab's major cycle of each plane: ``residual(models)`` → (P, N, N).

    ``majors``: one :class:`~uvlab.gpu.deconvolution.cotton_schwab.MajorCycle` per plane,
    each on that plane's visibilities (a channel's, or a polarisation's product); plane p's
    residual is made from its model p.
    """

    def __init__(self, majors):
        self.majors = list(majors)

    def residual(self, model):
        """Each plane's residual image of its visibilities minus its model (None: dirty)."""
        images = [m.residual(None if model is None else model[c]) for c, m in
                  enumerate(self.majors)]  # fmt: skip
        xp = get_xp(images[0])
        return xp.stack(images)
