"""Sky components and sky models: the editable, file-facing side of a sky.

A :class:`Component` is one point or elliptical Gaussian at a J2000 (RA, Dec)
with full Stokes flux densities and a power-law spectrum. A :class:`SkyModel`
is an immutable tuple of components; :meth:`SkyModel.to_source_arrays` turns
it into the engine's :class:`uvlab.gpu.sources.SourceArrays` about a phase
centre (DESIGN §1 direction cosines).

A model is *absolute* (``centre_deg`` None: the components are where their
RA/Dec say, as in a sky file or catalogue) or *relative* (``centre_deg`` the
phase centre it was laid out about, as for the demo skies): a relative model
keeps its components' offsets (l, m) from whatever phase centre observes it.
:meth:`SkyModel.moved_to` moves it to a new phase centre (the components'
RA/Dec change, their (l, m) do not); :meth:`SkyModel.sources_for` gives the
engine's arrays for an observation at any phase centre, moving a relative
model there first.

Both classes are frozen: editing returns a new object (``with_component``,
``without``, ``replace``), which is what the GUI's table editor and the
request/worker pattern (STYLE §3) want.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from uvlab.app.skymodel.limits import MAX_FLUX_JY, MAX_LOG_TERM, MAX_SIZE_ARCSEC

if TYPE_CHECKING:
    from uvlab.gpu.sources import SourceArrays

#: Component kinds understood by the engine.
KINDS = ("point", "gaussian")

_ARCSEC_TO_RAD = math.pi / (180.0 * 3600.0)


class SkyModelError(ValueError):
    """A sky model that cannot be built or read, with where it went wrong.

    Parameters
    ----------
    reason : str
        What was wrong, e.g. ``"expected 13 columns, got 9"``.
    path : str or os.PathLike, optional
        The file (or a label such as ``"<string>"``) being read.
    line : int, optional
        1-based line number in that file.

    The message reads ``"sky.txt, line 7: expected 13 columns, got 9"``: the
    file's base name, then the line, then the reason. ``path`` keeps the full
    path.
    """

    def __init__(self, reason: str, path: str | os.PathLike | None = None, line: int | None = None):
        self.reason = str(reason)
        self.path = None if path is None else os.fspath(path)
        self.line = line
        super().__init__(self._format())

    def _format(self) -> str:
        where = ""
        if self.path is not None:
            where = os.path.basename(self.path) or self.path
        if self.line is not None:
            where = f"{where}, line {self.line}" if where else f"line {self.line}"
        return f"{where}: {self.reason}" if where else self.reason

    def __reduce__(self):
        return (type(self), (self.reason, self.path, self.line))


def _finite(value, what: str) -> float:
    if isinstance(value, bool):
        raise SkyModelError(f"{what} must be a number, got {value!r}")
    try:
        out = float(value)
    except (TypeError, ValueError):
        raise SkyModelError(f"{what} must be a number, got {value!r}") from None
    if not math.isfinite(out):
        raise SkyModelError(f"{what} must be finite, got {out!r}")
    return out


def _capped(value: float, what: str, cap: float, unit: str = "") -> float:
    """``value`` when ``|value| ≤ cap`` (:mod:`uvlab.app.skymodel.limits`), else SkyModelError."""
    if abs(value) > cap:
        unit = f" {unit}" if unit else ""
        raise SkyModelError(f"{what} {value:g} is beyond the physical limit of ±{cap:g}{unit}")
    return value


def check_name(name) -> str:
    """Validate a component name: non-empty, no whitespace, no ``#``."""
    if not isinstance(name, str) or not name:
        raise SkyModelError(f"component name must be a non-empty string, got {name!r}")
    if any(ch.isspace() for ch in name) or "#" in name or not name.isprintable():
        raise SkyModelError(
            f"component name {name!r} must not contain whitespace, '#' or control characters"
        )
    return name


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
        ra = _finite(self.ra_deg, "RA") % 360.0
        put(self, "ra_deg", 0.0 if ra == 360.0 else ra)
        dec = _finite(self.dec_deg, "Dec")
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
            tuple(_capped(_finite(s, p), p, MAX_FLUX_JY, "Jy") for s, p in zip(stokes, "IQUV")),
        )
        nu0 = _finite(self.ref_freq_hz, "ref_freq_hz")
        if nu0 <= 0:
            raise SkyModelError(f"ref_freq_hz must be > 0, got {nu0!r}")
        put(self, "ref_freq_hz", nu0)
        put(
            self,
            "spectral_index",
            _capped(_finite(self.spectral_index, "spectral_index"), "spectral_index", MAX_LOG_TERM),
        )
        try:
            terms = tuple(_finite(t, "spectral term") for t in self.spectral_terms)
        except TypeError:
            raise SkyModelError(
                f"spectral_terms must be numbers, got {self.spectral_terms!r}"
            ) from None
        put(self, "log_si", bool(self.log_si))
        cap, unit = (MAX_LOG_TERM, "") if self.log_si else (MAX_FLUX_JY, "Jy")
        for t in terms:
            _capped(t, "spectral term", cap, unit)
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
        major = _finite(self.major_arcsec, "major_arcsec")
        minor = _finite(self.minor_arcsec, "minor_arcsec")
        put(self, "pa_deg", _finite(self.pa_deg, "pa_deg"))
        _capped(major, "major axis", MAX_SIZE_ARCSEC, "arcsec (180°)")
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
        from uvlab.gpu.predict.terms import spectral_flux

        freq = np.asarray(freq_hz, dtype=np.float64)
        sources = SkyModel((self,)).to_source_arrays(0.0, 0.0)
        return spectral_flux(freq.reshape(-1), sources)[:, 0, :].reshape(*freq.shape, 4)


def check_centre(centre) -> tuple[float, float]:
    """A phase centre ``(ra_deg, dec_deg)`` checked: finite, RA wrapped into [0, 360)."""
    try:
        ra, dec = centre
    except (TypeError, ValueError):
        raise SkyModelError(f"centre must be (RA, Dec) in degrees, got {centre!r}") from None
    ra = _finite(ra, "centre RA") % 360.0
    dec = _finite(dec, "centre Dec")
    if not -90.0 <= dec <= 90.0:
        raise SkyModelError(f"centre Dec {dec!r} deg is outside [-90, 90]")
    return (0.0 if ra == 360.0 else ra, dec)


def _frame(ra0_deg: float, dec0_deg: float) -> np.ndarray:
    """Rows e_l, e_m, e_n of the phase centre's frame (DESIGN §1): ``(l, m, n) = F @ d``."""
    a, d = math.radians(ra0_deg), math.radians(dec0_deg)
    sa, ca, sd, cd = math.sin(a), math.cos(a), math.sin(d), math.cos(d)
    return np.array([[-sa, ca, 0.0], [-sd * ca, -sd * sa, cd], [cd * ca, cd * sa, sd]])


def _repositioned(c: Component, ra_deg: float, dec_deg: float) -> Component:
    """``c`` at a new position, without re-validating the rest (RA in [0, 360), Dec valid)."""
    new = object.__new__(Component)
    new.__dict__.update(c.__dict__, ra_deg=0.0 if ra_deg >= 360.0 else ra_deg, dec_deg=dec_deg)
    return new


@dataclass(frozen=True)
class SkyModel:
    """An ordered, immutable collection of :class:`Component`.

    Attributes
    ----------
    components : tuple of Component
    name : str
        Free text shown in the GUI and written to files (one printable line;
        surrounding whitespace is stripped).
    centre_deg : (float, float) or None
        None: an *absolute* model, its components where their RA/Dec say (a
        sky file, a catalogue). Else the phase centre (RA, Dec), degrees, that
        the components were laid out about (a demo sky): a *relative* model,
        whose components keep their offsets (l, m) from whatever phase centre
        observes it (:meth:`moved_to`, :meth:`sources_for`). Editing
        (:meth:`with_component`, :meth:`without`, :meth:`replace`) keeps it.
    """

    components: tuple[Component, ...] = ()
    name: str = ""
    centre_deg: tuple[float, float] | None = None

    def __post_init__(self):
        comps = tuple(self.components)
        for c in comps:
            if not isinstance(c, Component):
                raise SkyModelError(f"SkyModel holds Component objects, got {type(c).__name__}")
        object.__setattr__(self, "components", comps)
        if not isinstance(self.name, str) or not self.name.isprintable():
            raise SkyModelError(f"sky model name must be one line of text, got {self.name!r}")
        object.__setattr__(self, "name", self.name.strip())
        if self.centre_deg is not None:
            object.__setattr__(self, "centre_deg", check_centre(self.centre_deg))

    @property
    def relative(self) -> bool:
        """True when the components follow the phase centre (``centre_deg`` is set)."""
        return self.centre_deg is not None

    def __len__(self) -> int:
        return len(self.components)

    def __iter__(self) -> Iterator[Component]:
        return iter(self.components)

    def __getitem__(self, index: int) -> Component:
        return self.components[index]

    def with_component(self, component: Component) -> SkyModel:
        """A new model with ``component`` appended (a relative model stays relative)."""
        return SkyModel((*self.components, component), self.name, self.centre_deg)

    def without(self, index: int) -> SkyModel:
        """A new model with the component at ``index`` removed (IndexError if absent)."""
        comps = list(self.components)
        del comps[index]
        return SkyModel(tuple(comps), self.name, self.centre_deg)

    def replace(self, index: int, component: Component) -> SkyModel:
        """A new model with the component at ``index`` replaced (IndexError if absent)."""
        comps = list(self.components)
        comps[index] = component
        return SkyModel(tuple(comps), self.name, self.centre_deg)

    def moved_to(self, ra0_deg: float, dec0_deg: float) -> SkyModel:
        """This sky as seen from the phase centre (``ra0_deg``, ``dec0_deg``).

        A relative model comes back with ``centre_deg`` the new centre and
        every component at the same direction cosines (l, m, n) about it as it
        had about the old one: the rotation of the sphere that takes the old
        centre's (l, m, n) frame to the new one's, which is the exact SIN
        projection inverse (:func:`uvlab.gpu.geometry.lmn_to_radec`) of the
        old offsets (and keeps a component behind the old centre's horizon,
        n < 0, behind the new one's). Sizes and position angles are unchanged
        (they are measured in the l, m frame). An absolute model, or a move
        to the centre it has, returns ``self``.
        """
        if self.centre_deg is None:
            return self
        target = check_centre((ra0_deg, dec0_deg))
        if target == self.centre_deg:
            return self
        if not self.components:
            return SkyModel((), self.name, target)
        d = self.lmn_about(*self.centre_deg) @ _frame(*target)  # offsets about old → new
        new_ra = np.rad2deg(np.arctan2(d[:, 1], d[:, 0])) % 360.0
        new_dec = np.rad2deg(np.arctan2(d[:, 2], np.hypot(d[:, 0], d[:, 1])))
        comps = tuple(
            _repositioned(c, r, de)
            for c, r, de in zip(self.components, new_ra.tolist(), new_dec.tolist(), strict=True)
        )
        return SkyModel(comps, self.name, target)

    def lmn_about(self, ra0_deg: float, dec0_deg: float) -> np.ndarray:
        """(ncomp, 3) direction cosines (l, m, n) of the components about (α0, δ0), degrees.

        The rotation into the phase centre's frame (DESIGN §1), so n keeps its
        sign: n ≤ 0 on or behind that centre's horizon (where
        :func:`uvlab.gpu.geometry.radec_to_lmn`, for sources in front, takes
        n = √(1 − l² − m²)).
        """
        ra = np.deg2rad([c.ra_deg for c in self.components])
        dec = np.deg2rad([c.dec_deg for c in self.components])
        d = np.stack([np.cos(dec) * np.cos(ra), np.cos(dec) * np.sin(ra), np.sin(dec)], axis=-1)
        return d.reshape(-1, 3) @ _frame(ra0_deg, dec0_deg).T

    def total_flux(self, freq_hz=None):
        """Summed Stokes I at ``freq_hz`` (each at its own ν0 when None), Jy.

        Returns a float for scalar input, else an array of ``np.shape(freq_hz)``.
        """
        if freq_hz is None:
            return float(sum(c.stokes[0] for c in self.components))
        total = np.zeros(np.shape(freq_hz))
        for c in self.components:
            total = total + c.flux(freq_hz)[..., 0]
        return float(total) if total.ndim == 0 else total

    def sources_for(self, ra0_rad: float, dec0_rad: float) -> SourceArrays:
        """The engine's arrays for an observation at the phase centre (α0, δ0), radians.

        An absolute model: :meth:`to_source_arrays` about (α0, δ0). A relative
        model: its components at their offsets about ``centre_deg``, which is
        where :meth:`moved_to` would put them about (α0, δ0), without building
        the moved components (the same arrays to rounding, ~1e-16).
        """
        if self.centre_deg is None:
            return self.to_source_arrays(ra0_rad, dec0_rad)
        ra, dec = self.centre_deg
        return self.to_source_arrays(math.radians(ra), math.radians(dec))

    def to_source_arrays(self, ra0_rad: float, dec0_rad: float) -> SourceArrays:
        """The engine's flat arrays about the phase centre (α0, δ0).

        The components where their RA/Dec say, relative model or not (see
        :meth:`sources_for`, which moves a relative model first).

        Parameters
        ----------
        ra0_rad, dec0_rad : float
            Phase centre, radians.

        Returns
        -------
        SourceArrays
            ``lmn`` from :func:`uvlab.gpu.geometry.radec_to_lmn`; ``shape`` in
            radians (FWHM major, FWHM minor, PA east of north).
        """
        from uvlab.gpu.geometry import radec_to_lmn
        from uvlab.gpu.sources import SourceArrays

        comps = self.components
        n = len(comps)
        ra = np.deg2rad(np.array([c.ra_deg for c in comps], dtype=np.float64))
        dec = np.deg2rad(np.array([c.dec_deg for c in comps], dtype=np.float64))
        lmn = radec_to_lmn(ra, dec, ra0_rad, dec0_rad).reshape(n, 3)
        stokes = np.array([c.stokes for c in comps], dtype=np.float64).reshape(n, 4)
        shape = np.array(
            [
                (
                    c.major_arcsec * _ARCSEC_TO_RAD,
                    c.minor_arcsec * _ARCSEC_TO_RAD,
                    math.radians(c.pa_deg),
                )
                for c in comps
            ],
            dtype=np.float64,
        ).reshape(n, 3)
        terms = log_si = None
        nterm = max((len(c.spectral_terms) for c in comps), default=0)
        if nterm:  # some component has more than a power law: every one as terms
            terms = np.zeros((n, nterm))
            for k, c in enumerate(comps):
                row = c.spectral_terms or (c.spectral_index,)
                terms[k, : len(row)] = row
            log_si = np.array([c.log_si for c in comps], dtype=bool)
        return SourceArrays(
            lmn=lmn,
            stokes=stokes,
            spectral_index=np.array([c.spectral_index for c in comps], dtype=np.float64),
            ref_freq=np.array([c.ref_freq_hz for c in comps], dtype=np.float64),
            shape=shape,
            spectral_terms=terms,
            log_si=log_si,
        )
