"""Sky models: the editable, file-facing side of a sky.

A :class:`SkyModel` is an immutable tuple of
:class:`~uvlab.app.skymodel.component.Component`;
:meth:`SkyModel.to_source_arrays` turns it into the engine's
:class:`uvlab.gpu.sources.SourceArrays` about a phase centre (DESIGN §1
direction cosines).

A model is *absolute* (``centre_deg`` None: the components are where their
RA/Dec say, as in a sky file or catalogue) or *relative* (``centre_deg`` the
phase centre it was laid out about, as for the demo skies): a relative model
keeps its components' offsets (l, m) from whatever phase centre observes it.
:meth:`SkyModel.moved_to` moves it to a new phase centre (the components'
RA/Dec change, their (l, m) do not); :meth:`SkyModel.sources_for` gives the
engine's arrays for an observation at any phase centre, moving a relative
model there first.

Components and models are frozen: editing returns a new object (``with_component``,
``without``, ``replace``), which is what the GUI's table editor and the
request/worker pattern (STYLE §3) want.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from uvlab.app.skymodel.checks import SkyModelError, check_centre
from uvlab.app.skymodel.component import Component
from uvlab.app.skymodel.source_arrays import source_arrays

if TYPE_CHECKING:
    from uvlab.gpu.sources import SourceArrays


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
        """The engine's flat arrays about the phase centre (α0, δ0, radians) of the
        components where their RA/Dec say, relative model or not (:meth:`sources_for`
        moves a relative model first): :func:`~uvlab.app.skymodel.source_arrays.
        source_arrays`."""
        return source_arrays(self.components, ra0_rad, dec0_rad)
