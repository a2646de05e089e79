"""The window's instrument: primary beam, gain errors and thermal noise (no Qt).

A synthetic job's :class:`Corruptions` (frozen into the
:class:`~uvlab.app.lab.jobs.JobRequest`) holds a :class:`~uvlab.app.instrument.jones.JonesOptions`
(the beam and the random gains, as ``uvlab simulate`` takes them) and the SEFD of the
thermal noise. The lab's prediction (:func:`uvlab.app.lab.synthetic_source.iter_synthetic`)
passes an :class:`~uvlab.app.instrument.jones.ObservationJones` to
:func:`~uvlab.app.observing.predict_obs.predict_integrations` and adds the noise
(:func:`add_noise`): Stokes I has σ_I = σ/√2 per real and imaginary part, σ the
radiometer equation's (:func:`uvlab.gpu.predict.noise.radiometer_sigma`), drawn per
integration from the seed, so a result is reproducible whatever the chunks.

The image task reports the noise (:class:`NoiseReport`: the radiometer equation's
image RMS σ_I·√(Σw²)/Σw over the imaging weights, σ_I/√N for natural weighting, and the
dirty image's measured RMS, the MAD estimate) and the power beam over the field
(:class:`BeamMap`, for the primary-beam view).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np

from uvlab.app.instrument.jones import ANALYTIC, JonesOptions
from uvlab.app.outputs.quantities import format_jy

#: Pixels across the beam view's map.
BEAM_MAP_NPIX = 161
#: The beam map reaches at least this many power FWHMs from the centre (≈ the second null).
BEAM_MAP_FWHM = 2.2
#: A measured RMS this many times the expected one is said to be the sources' sidelobes.
SIDELOBES_DOMINATE = 1.5
#: The MAD σ is measured on at most this many pixels (every k-th one of a larger image): its
#: relative standard error is then ≈ 1.4/√MAD_PIXELS ≈ 0.6 %, and its two host medians cost
#: ~2 ms of each 1024² job (2¹⁸ pixels took ~10 ms of a ~19 ms GPU repeat on an H200).
MAD_PIXELS = 1 << 16


@dataclass(frozen=True)
class Corruptions:
    """Beam, gains and noise of a synthetic observation (all off by default).

    Attributes
    ----------
    jones : JonesOptions — primary beam and random gains
    sefd_jy : float — system-equivalent flux density of every antenna, Jy; 0: no noise
    noise_seed : int — the noise's seed
    """

    jones: JonesOptions = field(default_factory=JonesOptions)
    sefd_jy: float = 0.0
    noise_seed: int = 1

    def __post_init__(self):
        if isinstance(self.jones, dict):  # from a session file
            object.__setattr__(self, "jones", JonesOptions(**self.jones))
        s = self.sefd_jy
        if isinstance(s, bool) or not isinstance(s, (int, float)) or not 0 <= s < math.inf:
            raise ValueError(f"SEFD must be a finite number ≥ 0 Jy, got {s!r}")
        object.__setattr__(self, "sefd_jy", float(s))

    @property
    def has_noise(self) -> bool:
        return self.sefd_jy > 0

    @property
    def active(self) -> bool:
        return self.jones.active or self.has_noise

    def describe(self) -> str:
        """What is on, e.g. ``"airy beam, gain errors 5 % / 10°, SEFD 450 Jy"`` ("" if none)."""
        j, parts = self.jones, []
        if j.has_beam:
            name = j.primary_beam if j.primary_beam in ANALYTIC else "cube"
            dish = "" if j.dish_diameter_m is None else f" (D = {j.dish_diameter_m:g} m)"
            parts.append(f"{name} beam{dish}")
        if j.has_gains:
            parts.append(f"gain errors {100 * j.gain_amp_rms:g} % / {j.gain_phase_rms_deg:g}°")
        if self.has_noise:
            parts.append(f"SEFD {self.sefd_jy:g} Jy")
        return ", ".join(parts)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> Corruptions:
        """From a session's ``"corruptions"`` object; keys a newer uvlab wrote are skipped."""
        if not isinstance(d, dict):
            raise ValueError(f"corruptions must be a JSON object, got {type(d).__name__}")
        jones = d.get("jones", {})
        if not isinstance(jones, dict):
            raise ValueError("corruptions: jones must be a JSON object")
        jones = {k: v for k, v in jones.items() if k in JonesOptions.__dataclass_fields__}
        return cls(
            JonesOptions(**jones),
            d.get("sefd_jy", 0.0),
            int(d.get("noise_seed", 1)),
        )


def stokes_i_sigma(sefd_jy: float, chan_width_hz: float, int_s: float) -> float:
    """σ_I per real/imaginary part of one Stokes-I visibility: radiometer σ/√2, Jy."""
    from uvlab.gpu.predict.noise import radiometer_sigma

    return radiometer_sigma(sefd_jy, chan_width_hz, int_s) / math.sqrt(2.0)


def add_noise(vis, times: slice, sigma: float, seed: int, xp=np) -> None:
    """Add σ·(n₁ + i·n₂) to ``vis[t]`` (bl, chan) for each integration t of ``times``, in place.

    Each integration's noise comes from its own generator (``seed``, t): the same
    numbers however the integrations are chunked.
    """
    from uvlab.gpu.predict.noise import complex_noise

    if not sigma > 0:
        return
    for t in range(times.start, times.stop):
        rng = np.random.default_rng([int(seed), t])
        n = complex_noise(vis.shape[1:], sigma, rng, dtype=vis.dtype)
        vis[t] += xp.asarray(n)


def mad_sigma(image, xp=np) -> float:
    """Robust RMS of an image: 1.4826 × the median absolute deviation (≤ MAD_PIXELS used).

    ``xp``: the array module that takes the medians (CuPy on a GPU job: the
    sample goes over, ~0.1 ms, instead of two host selections, ~2 ms); the
    same pixels and the same value either way.
    """
    a = np.asarray(image).ravel()
    if a.size > MAD_PIXELS:
        a = a[:: math.ceil(a.size / MAD_PIXELS)]
    a = xp.asarray(a.astype(np.float64, copy=False))
    a = a[xp.isfinite(a)]
    if not a.size:
        return float("nan")
    from uvlab.gpu.deconvolution import auto_sigma

    return auto_sigma(a)


@dataclass(frozen=True)
class NoiseReport:
    """The image noise: expected (radiometer equation) and measured (MAD σ), Jy/beam.

    ``expected_jy`` is σ_I·√(Σw²)/Σw over the imaging weights w of the N gridded
    visibilities (σ_I/√N for natural weighting, σ_I = σ/√2 with σ the radiometer
    σ of one correlation: :func:`stokes_i_sigma`), None without thermal noise;
    ``weighting`` says which weights (``"natural"``, ``"uniform"``, ``"briggs 0.5"``, with
    any taper).
    """

    expected_jy: float | None
    measured_jy: float
    nvis: int = 0
    weighting: str = "natural"

    def describe(self) -> str:
        measured = f"measured RMS {format_jy(self.measured_jy)}/beam (MAD of the dirty image)"
        if self.expected_jy is None:
            return f"noise: {measured}; no thermal noise (SEFD 0)"
        # σ as the SEFD's tooltip and docs/conventions.md define it: per real and imaginary
        # part of one correlation; Stokes I averages two, hence the √2
        how = "σ/√(2N)" if self.weighting == "natural" else "σ·√Σw²/(√2·Σw)"
        text = (
            f"noise: expected {format_jy(self.expected_jy)}/beam (radiometer {how}, "
            f"{self.weighting} weighting, N = {self.nvis}), {measured}"
        )
        if self.measured_jy > SIDELOBES_DOMINATE * self.expected_jy:
            text += ": the sources' sidelobes dominate it (a blank field shows the noise)"
        return text


def weighting_label(imaging) -> str:
    """``"natural"``, ``"uniform"``, ``"briggs 0.5"``, with ``", taper 10″"`` when tapered."""
    w = imaging.weighting
    label = f"briggs {imaging.robust:g}" if w == "briggs" else w
    if imaging.taper_arcsec:
        label += f", taper {imaging.taper_arcsec:g}″"
    return label


def weight_factor(samples, spec, weighting) -> tuple[float, int]:
    """(√(Σw²)/Σw, N) of the imaging weights w of ``samples`` (uvw, freq_hz, weight, flag)."""
    from uvlab.gpu.imaging.reuse import select_samples
    from uvlab.gpu.imaging.weighting import imaging_weights

    s = select_samples(samples.uvw, samples.freq_hz, samples.weight, samples.flag)
    base = np.broadcast_to(np.asarray(s.weight, dtype=np.float64), s.u.shape)
    w = imaging_weights(s.u, s.v, base, spec, weighting)
    total = float(w.sum())
    return (math.sqrt(float((w * w).sum())) / total if total > 0 else math.nan), int(
        np.count_nonzero(w)
    )


def noise_report(corruptions: Corruptions | None, observation, imaging, dirty, nvis: int,
                 samples=None, xp=np) -> NoiseReport:  # fmt: skip
    """The :class:`NoiseReport` of a synthetic image (``observation`` its ObservationSpec).

    Natural weighting without a taper (unit data weights): σ_I/√N with N = ``nvis``.
    Otherwise the imaging weights of ``samples`` (the job's
    :class:`~uvlab.app.lab.samples.Samples`) are computed again for Σw²/(Σw)².
    ``xp`` takes the MAD's medians (:func:`mad_sigma`).
    """
    measured = mad_sigma(dirty, xp)
    label = weighting_label(imaging)
    if corruptions is None or not corruptions.has_noise or observation is None or nvis <= 0:
        return NoiseReport(None, measured, nvis=int(nvis), weighting=label)
    sigma = stokes_i_sigma(corruptions.sefd_jy, observation.chan_width_hz, observation.int_s)
    if label == "natural" or samples is None:
        factor = 1.0 / math.sqrt(nvis)
        label = "natural" if label == "natural" else f"natural (not {label})"
    else:
        factor, nvis = weight_factor(samples, samples.spec, imaging.weighting_spec())
    return NoiseReport(sigma * factor, measured, int(nvis), label)


@dataclass(frozen=True, eq=False)
class BeamMap:
    """The power beam |E|² about the pointing centre, for the primary-beam view.

    power : (n, n) — ``power[j, i]`` at l = (i − n//2)·step, m = (j − n//2)·step
    step_rad : float — the map's pixel, direction cosine
    freq_hz : float — the frequency it is computed at (the observation's centre)
    label : str — the model and dish, e.g. ``"airy, D = 13.5 m, 1.4 GHz"``
    image_half_rad : float — half the image's width (the view outlines it)
    sources_lm : (k, 2) — the sky's components
    flux_jy : (k,) — their Stokes I at ``freq_hz`` (true, not attenuated)
    gain : (k,) — the power beam at each component
    """

    power: np.ndarray
    step_rad: float
    freq_hz: float
    label: str
    image_half_rad: float
    sources_lm: np.ndarray
    flux_jy: np.ndarray
    gain: np.ndarray


def beam_dish(jones: JonesOptions, dish_m) -> float:
    """The dish diameter the beam map shows: the override, else the layout's median."""
    if jones.dish_diameter_m is not None:
        return float(jones.dish_diameter_m)
    d = np.asarray(dish_m, dtype=np.float64)
    d = d[np.isfinite(d) & (d > 0)]
    if not d.size:
        raise ValueError("the array's dish diameters are unknown: give a dish diameter")
    return float(np.median(d))


def power_at(jones: JonesOptions, l, m, freq_hz: float, dish_m: float, cube=None) -> np.ndarray:
    """|E|² of ``jones``'s beam at direction cosines (l, m) (any shape), one frequency.

    For a polarised (Jones) cube, the Stokes-I power ½·Σ|E_ij|².
    """
    from uvlab.gpu.predict.beams import voltage_pattern

    l, m = np.broadcast_arrays(np.asarray(l, dtype=np.float64), np.asarray(m, dtype=np.float64))
    if jones.primary_beam in ANALYTIC:
        e = voltage_pattern(
            jones.primary_beam, np.hypot(l, m), freq_hz, dish_m, gaussian_k=jones.gaussian_k
        )
    else:
        from uvlab.gpu.predict.beams import power_beam

        cube = cube if cube is not None else jones.load_cube()
        lmn = np.stack([l.ravel(), m.ravel(), np.zeros(l.size)], axis=-1)
        e = cube.sample(lmn, np.array([freq_hz]))[0, 0, 0]
        return power_beam(e, cube.jones).reshape(l.shape)
    return np.abs(e) ** 2


def beam_map(
    jones: JonesOptions, dish_m, freq_hz: float, image_half_rad: float, sources
) -> BeamMap:
    """The power beam over the image and at least :data:`BEAM_MAP_FWHM` FWHMs out."""
    from uvlab.gpu.constants import C_LIGHT

    cube = jones.load_cube()
    if cube is None:
        dish = beam_dish(jones, dish_m)
        half = max(image_half_rad, BEAM_MAP_FWHM * 1.03 * C_LIGHT / (freq_hz * dish))
        label = f"{jones.primary_beam}, D = {dish:.4g} m"
    else:
        dish = float("nan")
        (l0, dl, nl), (m0, dm, nm) = cube.l_axis, cube.m_axis
        edges = (abs(l0), abs(l0 + dl * (nl - 1)), abs(m0), abs(m0 + dm * (nm - 1)))
        half = max(image_half_rad, max(edges))
        label = f"cube {cube.source}"
    n = BEAM_MAP_NPIX
    step = half / (n // 2)
    x = (np.arange(n) - n // 2) * step
    power = power_at(jones, x[None, :], x[:, None], freq_hz, dish, cube)
    lmn = np.asarray(sources.lmn, dtype=np.float64)
    flux = np.asarray(sources.stokes[:, 0], dtype=np.float64) * (
        freq_hz / np.asarray(sources.ref_freq, dtype=np.float64)
    ) ** np.asarray(sources.spectral_index, dtype=np.float64)
    gain = power_at(jones, lmn[:, 0], lmn[:, 1], freq_hz, dish, cube)
    return BeamMap(
        power, step, float(freq_hz), f"{label}, {freq_hz / 1e9:.4g} GHz", float(image_half_rad),
        lmn[:, :2].copy(), flux, gain,
    )  # fmt: skip
