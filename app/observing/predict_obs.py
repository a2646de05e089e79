"""Predict a simulated observation's visibilities, integration by integration.

The one place where a simulated :class:`~uvlab.app.observing.observation.Observation`
meets the measurement equation. Both ways from a simulation to visibilities
call :func:`predict_integrations` on their chunks of whole integrations:

- the lab's synthetic source (:func:`uvlab.app.lab.synthetic_source.iter_synthetic`),
  in Stokes I (``mode="scalar"``), time chunk after time chunk;
- ``uvlab simulate`` (:func:`uvlab.app.ms.simulate.simulate_ms`), in a feed
  basis (``"linear"`` or ``"circular"``), one written chunk after another.

The predict is the per-antenna one (:func:`uvlab.gpu.predict.predict_antennas`):
the factored product V = K·diag(B)·Kᴴ for point sources without smearing; on
the CPU in Stokes I with smearing or Gaussians, per-antenna phasors with the
per-baseline smearing and shape factors (``method="weighted"``); the direct sum
over rows otherwise (full polarisation, and the GPU with smearing). Smearing
(time and bandwidth, SDP Memo 076) takes the observation's channel width,
integration time and declination.

A Stokes-I (``"scalar"``) predict through a polarised (2×2 Jones) beam is the Stokes I
that WSClean or CASA form from the correlations, ``I = ½(V₀₀ + V₁₁)`` (½(XX + YY) or
½(RR + LL)), of the predict in the beam's own feed basis: the sky's Q, U and V included,
since the beam leaks them into I. For an unpolarised source through two alike antennas
that is A·I with A = ½·Σ|E_ij|² the power beam; for a diagonal beam xx = yy = E, exactly
the scalar beam's E_p·conj(E_q)·I.

This module sits beside :mod:`uvlab.app.observing.observation`, below both
:mod:`uvlab.app.ms` and :mod:`uvlab.app.lab`, so that each may import it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from uvlab.app.observing.observation import Observation
    from uvlab.gpu.predict import Smearing
    from uvlab.gpu.sources import SourceArrays


def observation_smearing(obs: Observation, smearing: bool = True) -> Smearing | None:
    """The time and bandwidth smearing of ``obs``'s correlator setup (None: without)."""
    if not smearing:
        return None
    from uvlab.gpu.predict import Smearing

    return Smearing(obs.chan_width_hz, obs.int_s, obs.dec0_rad)


def predict_integrations(
    obs: Observation,
    sources: SourceArrays,
    times: slice,
    *,
    mode: str = "scalar",
    smearing: bool = True,
    dtype=np.float64,
    device: str = "auto",
    host: bool = True,
    jones=None,
):
    """The visibilities of integrations ``times`` of ``obs`` (NumPy, or CuPy with ``host=False``).

    Parameters
    ----------
    obs : Observation
        Its per-antenna uvw ``ant_uvw`` (time, nant, 3) m, baselines
        ``ant1``, ``ant2`` (bl,) and channels ``freq_hz`` (chan,) Hz.
    sources : SourceArrays
        The sky about ``obs``'s phase centre (``SkyModel.to_source_arrays``).
    times : slice
        The integrations to predict.
    mode : {"scalar", "linear", "circular"}
        Stokes I, or the 2×2 brightness in a feed basis (DESIGN §1: XX = I + Q, …).
    smearing : bool
        Apply time and bandwidth smearing (:func:`observation_smearing`).
    dtype : float32 or float64
        Working precision.
    device : {"auto", "cpu", "gpu"}
    host : bool
        Return a NumPy array (default); ``False`` keeps the GPU's result on the
        device (a CuPy array; the CPU's is NumPy either way).
    jones : uvlab.app.instrument.jones.ObservationJones, optional
        Primary beams and antenna gains (E and G) for ``obs`` and ``sources``. A Jones
        beam in ``"scalar"`` mode: Stokes I of the polarised predict (module docstring).

    Returns
    -------
    (time, bl, chan) complex for ``"scalar"``, else (time, bl, chan, 2, 2).
    """
    from uvlab.gpu.predict import predict_antennas
    from uvlab.gpu.predict.beams import is_jones

    beam = None if jones is None else jones.beam(times)
    # Stokes I through a Jones beam: the trace's half of the polarised predict (scalar
    # gains commute with it, so they are applied there)
    through_jones = mode == "scalar" and is_jones(beam)
    vis = predict_antennas(
        obs.ant_uvw[times],
        obs.ant1,
        obs.ant2,
        obs.freq_hz,
        sources,
        mode=jones.beam_feeds if through_jones else mode,
        smearing=observation_smearing(obs, smearing),
        dtype=dtype,
        device=device,
        host=host,
        beam=beam,
        gains=None if jones is None else jones.gains(times),
    )
    return 0.5 * (vis[..., 0, 0] + vis[..., 1, 1]) if through_jones else vis


def predict_image_integrations(
    obs: Observation,
    model,
    spec,
    times: slice,
    *,
    mode: str = "scalar",
    ref_freq_hz: float = 1.4e9,
    spectral_index: float = 0.0,
    eps: float = 1e-7,
    device: str = "auto",
) -> np.ndarray:
    """The visibilities of an image sky (Stokes I, Jy/pixel on ``spec``) for ``times`` of ``obs``.

    Degridded, every channel in one call (:func:`degrid_image_rows`, ``conv``
    with the ES kernel at ``eps``; CUDA on the GPU), the model image scaled by
    (ν/ν0)^α. The sky is taken as flat (no w-term: ``w·(1 − n) ≪ 1`` over the
    image), and as unpolarised: ``"linear"`` and ``"circular"`` give
    ``B = I·[[1, 0], [0, 1]]``. No smearing.

    Returns
    -------
    (time, bl, chan) complex128 for ``"scalar"``, else (time, bl, chan, 2, 2).
    """
    rows = obs.uvw[times]  # (t, bl, 3) m
    out = degrid_image_rows(
        rows[..., 0].ravel(), rows[..., 1].ravel(), obs.freq_hz, model, spec,
        ref_freq_hz=ref_freq_hz, spectral_index=spectral_index, eps=eps, device=device,
    ).reshape(*rows.shape[:2], obs.freq_hz.size)  # fmt: skip
    return unpolarised(out, mode)


def unpolarised(vis, mode: str):
    """Stokes-I visibilities as ``mode`` asks: as they are for "scalar", else B = I·𝟙 (…, 2, 2)."""
    if mode == "scalar":
        return vis
    b = np.zeros((*np.shape(vis), 2, 2), dtype=np.result_type(vis, np.complex64))
    b[..., 0, 0] = b[..., 1, 1] = vis
    return b


def degrid_image_rows(
    u_m, v_m, freq_hz, model, spec, *, ref_freq_hz=1.4e9, spectral_index=0.0, eps=1e-7,
    device="auto",
) -> np.ndarray:  # fmt: skip
    """(nrow, nchan) complex128 visibilities of a model image at baselines (u, v) in metres.

    Every channel in one degridding call (``conv``, ES at ``eps``; the points are
    (u, v)·ν/c for each channel), the model image scaled by (ν/ν0)^α; ``model``
    may already be on the device (a CuPy array is used as it is).
    """
    from uvlab.gpu.backend import get_xp, resolve_device, to_numpy
    from uvlab.gpu.constants import C_LIGHT
    from uvlab.gpu.degridding import degrid
    from uvlab.gpu.gridders.params import GridParams

    xp = get_xp(device=resolve_device(device))
    freq = np.asarray(freq_hz, dtype=np.float64)
    k = xp.asarray(freq / C_LIGHT)
    u = (xp.asarray(np.asarray(u_m, dtype=np.float64))[:, None] * k).ravel()
    v = (xp.asarray(np.asarray(v_m, dtype=np.float64))[:, None] * k).ravel()
    img = xp.asarray(model, dtype=xp.float64)
    vis = degrid(img, u, v, spec, "conv", GridParams.from_eps(eps)).reshape(-1, freq.size)
    return to_numpy(vis * xp.asarray((freq / ref_freq_hz) ** spectral_index))
