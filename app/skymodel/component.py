"""One sky component: a point or elliptical Gaussian with full Stokes and a spectrum.

A :class:`Component` sits at a J2000 (RA, Dec) with flux densities (I, Q, U, V)
at a reference frequency and a power-law spectrum (or WSClean's spectral
terms). It is frozen and checked when made (:mod:`uvlab.app.skymodel.checks`);
a :class:`~uvlab.app.skymodel.sky_model.SkyModel` holds an ordered tuple of them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from uvlab.app.skymodel.checks import SkyModelError, capped, check_name, finite
from uvlab.app.skymodel.limits import MAX_FLUX_JY, MAX_LOG_TERM, MAX_SIZE_ARCSEC

#: Component kinds understood by the engine.
KINDS = ("point", "gaussian")


@dataclass(frozen=True)
class Component:
    """One sky component.

    Attributes
    ----------
    name : str
        Label; no whitespace or ``#`` (so every model can be written to a file).
    kind : {"point", "gaussian"}
    ra_deg, dec_deg : float
        J2000 position, degrees. RA is wrapped into [0, 360); Dec must lie in
        [−90, 90].
    stokes : tuple of 4 float
        I, Q, U, V in Jy at ``ref_freq_hz``. Any finite values (clean
        components may be negative; |P| ≤ I is not enforced).
    ref_freq_hz : float
        ν0 > 0, Hz.
    spectral_index : float
        α in S(ν) = S0·(ν/ν0)^α (DESIGN §1), applied to all four Stokes. With
        ``spectral_terms`` it is derived: the log-log slope at ν0 (for display).
    spectral_terms : tuple of float
        WSClean's spectral terms c_1 … c_K (empty: the power law). With x = ν/ν0,
        logarithmic (``log_si``) ``S(ν) = S0·exp(Σ c_k·(ln x)^k)``; ordinary
        ``I(ν) = I0 + Σ c_k·(x − 1)^k``, Q, U and V scaled as I.
    log_si : bool
        Whether ``spectral_terms`` are logarithmic (WSClean's LogarithmicSI).
    major_arcsec, minor_arcsec : float
        Gaussian FWHMs, arcsec, ``major ≥ minor ≥ 0`` and ``major > 0``; both
        0 for a point.
    pa_deg : float
        Position angle of the major axis, degrees east of north.
    """

    name: str
    kind: str
    ra_deg: float
    dec_deg: float
    stokes: tuple[float, float, float, float]
    ref_freq_hz: float
    spectral_index: float = 0.0
    major_arcsec: float = 0.0
    minor_arcsec: float = 0.0
    pa_deg: float = 0.0
    spectral_terms: tuple[float, ...] = ()
    log_si: bool = True

    def __post_init__(self):
        put = object.__setattr__
        put(self, "name", check_name(self.name))
        kind = self.kind.lower() if isinstance(self.kind, str) else self.kind
        if kind not in KINDS:
            raise SkyModelError(
                f"unknown component type {self.kind!r} (expected point or gaussian)"
            )
        put(self, "kind", kind)
        ra = finite(self.ra_deg, "RA") % 360.0
        put(self, "ra_deg", 0.0 if ra == 360.0 else ra)
        dec = finite(self.dec_deg, "Dec")
        if not -90.0 <= dec <= 90.0:
            raise SkyModelError(f"Dec {dec!r} deg is outside [-90, 90]")
        put(self, "dec_deg", dec)
        try:
            stokes = tuple(self.stokes)
        except TypeError:
            raise SkyModelError(f"stokes must be (I, Q, U, V), got {self.stokes!r}") from None
        if len(stokes) != 4:
            raise SkyModelError(f"stokes must have 4 values (I, Q, U, V), got {len(stokes)}")
        put(
            self,
            "stokes",
            tuple(capped(finite(s, p), p, MAX_FLUX_JY, "Jy") for s, p in zip(stokes, "IQUV")),
        )
        nu0 = finite(self.ref_freq_hz, "ref_freq_hz")
        if nu0 <= 0:
            raise SkyModelError(f"ref_freq_hz must be > 0, got {nu0!r}")
        put(self, "ref_freq_hz", nu0)
        put(
            self,
            "spectral_index",
            capped(finite(self.spectral_index, "spectral_index"), "spectral_index", MAX_LOG_TERM),
        )
        try:
            terms = tuple(finite(t, "spectral term") for t in self.spectral_terms)
        except TypeError:
            raise SkyModelError(
                f"spectral_terms must be numbers, got {self.spectral_terms!r}"
            ) from None
        put(self, "log_si", bool(self.log_si))
        cap, unit = (MAX_LOG_TERM, "") if self.log_si else (MAX_FLUX_JY, "Jy")
        for t in terms:
            capped(t, "spectral term", cap, unit)
        if not any(terms) or (self.log_si and len(terms) == 1):  # a power law, α its one term
            alpha = terms[0] if terms else self.spectral_index  # zero terms: flat
            put(self, "spectral_index", alpha)
            put(self, "log_si", True)
            terms = ()
        elif terms:  # the slope at ν0, d ln S / d ln ν, for tables and the power-law readers
            i0 = self.stokes[0]  # checked above: a tuple of 4
            slope = terms[0] if self.log_si else (terms[0] / i0 if i0 else 0.0)
            put(self, "spectral_index", float(slope))
        put(self, "spectral_terms", terms)
        major = finite(self.major_arcsec, "major_arcsec")
        minor = finite(self.minor_arcsec, "minor_arcsec")
        put(self, "pa_deg", finite(self.pa_deg, "pa_deg"))
        capped(major, "major axis", MAX_SIZE_ARCSEC, "arcsec (180°)")
        if major < 0 or minor < 0:
            raise SkyModelError(f"negative size: major {major!r}, minor {minor!r} arcsec")
        if minor > major:
            raise SkyModelError(f"minor axis {minor!r} exceeds major axis {major!r} arcsec")
        if kind == "point" and major != 0.0:
            raise SkyModelError(f"a point has zero size, got major {major!r} arcsec")
        if kind == "gaussian" and major == 0.0:
            raise SkyModelError("a gaussian needs major_arcsec > 0")
        put(self, "major_arcsec", major)
        put(self, "minor_arcsec", minor)

    def flux(self, freq_hz) -> np.ndarray:
        """(I, Q, U, V) at ``freq_hz``: shape ``np.shape(freq_hz) + (4,)``, Jy."""
        from uvlab.app.skymodel.source_arrays import source_arrays
        from uvlab.gpu.predict.terms import spectral_flux

        freq = np.asarray(freq_hz, dtype=np.float64)
        sources = source_arrays((self,), 0.0, 0.0)
        return spectral_flux(freq.reshape(-1), sources)[:, 0, :].reshape(*freq.shape, 4)
