"""What the window's CLEAN job gives after each cycle: :class:`CleanState` (no Qt), made by
the one-image CLEAN (:mod:`uvlab.app.lab.clean_task`) and the joined-channel CLEAN
(:mod:`uvlab.app.lab.joined_task`) alike."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from uvlab.gpu.image_spec import ARCSEC


@dataclass(frozen=True, eq=False)
class CleanState:
    """A CLEAN after a complete cycle (``done``: the last one); all arrays NumPy.

    Attributes
    ----------
    spec : ImageSpec
    ra0_rad, dec0_rad : float
    dirty : (N, N) float64
        What CLEAN started from (Jy/beam).
    psf : (2N, 2N) float64
        The CLEAN PSF (peak 1 at ``[N, N]``), the one ``uvlab image --niter`` uses.
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
    niter : int
    channel_restored : (C, N, N) float64 or None
        Joined-channel CLEAN (``channels_out`` C > 1, :mod:`uvlab.app.lab.joined_task`):
        each output channel's restored image; ``model``, ``residual`` and ``restored`` are
        then the MFS images (the channels' weighted means, WSClean's ``PREFIX-MFS-*``),
        ``dirty`` and ``psf`` the channels' weighted means, ``comp_flux`` the components'
        MFS flux. None for one channel.
    channel_freq_hz : tuple of float
        The output channels' centre frequencies (Hz); empty for one channel.
    spectral_terms : (K, N, N) float64 or None
        With ``fit_spectral_pol`` K, the MFS model's pixels' terms (the final state only).
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
    channel_restored: np.ndarray | None = None
    channel_freq_hz: tuple = ()
    spectral_terms: np.ndarray | None = None

    @property
    def iterations(self) -> int:
        return int(self.comp_flux.size)

    @property
    def cycles(self) -> int:
        return len(self.cycle_ends)

    def describe(self) -> str:
        """One line: deconvolver, iterations, cycles, why it stopped, the residual and the beam."""
        name = "Högbom" if self.deconvolver == "hogbom" else "Cotton–Schwab"
        if self.channel_restored is not None:
            name += f", joined {len(self.channel_restored)} channels (MFS)"
        kind = "major cycles" if self.deconvolver == "cotton-schwab" else "cycles"
        b = self.beam
        beam = f"{b.bmaj_rad / ARCSEC:.3g}″ × {b.bmin_rad / ARCSEC:.3g}″ at {b.bpa_deg:.0f}°"
        end = f", stopped: {self.stop_reason}" if self.stop_reason else ", running"
        return (
            f"{name}: {self.iterations} of {self.niter} iterations in {self.cycles} {kind}{end}; "
            f"residual peak {self.peak[-1]:.3g}, RMS {self.rms[-1]:.3g} Jy/beam; beam {beam}"
        )
