"""The docs' lessons as scenes the window loads in one click (Help → Lessons; no Qt).

Each :class:`Lesson` names its page in ``docs/`` and holds the scenes its
"In the window" steps set up, in order; each :class:`Scene` makes the
:class:`~uvlab.app.lab.session.SessionState` that step describes (array,
phase centre, hour angles, channels, sky, imaging) from
:data:`~uvlab.app.lab.session.DEFAULT_SESSION`, the window's starting state,
changing only what the lesson tells the reader to change.

Two helpers do what the window does when the array or the declination is
changed by hand, so a scene and the window agree:

- :func:`switch_layout`: another array; when its site cannot see the field
  above the elevation limit, the declination moves to the nearest one it sees
  (:func:`uvlab.app.observing.elevation.with_visible_declination`);
- :func:`with_declination`: the field moved to another declination (the
  one-click "Use Dec X" fix).

A relative sky (a demo sky: :attr:`~uvlab.app.skymodel.SkyModel.centre_deg`
set) moves with the phase centre, each component keeping its direction
cosines about it (:meth:`~uvlab.app.skymodel.SkyModel.moved_to`); an absolute
one (a sky file) stays where it is on the sky; a sky given by name is placed
about the new centre when resolved.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from uvlab.app.instrument.jones import JonesOptions
from uvlab.app.lab.corruptions import Corruptions
from uvlab.app.lab.imaging import ImagingOptions
from uvlab.app.lab.session import DEFAULT_SESSION, NamedSky, SessionState
from uvlab.app.observing.elevation import with_visible_declination
from uvlab.app.observing.observation import ObservationSpec
from uvlab.app.skymodel import Component, SkyModel

#: The docs folder of a source checkout (absent from an installed wheel).
DOCS = Path(__file__).resolve().parents[2] / "docs"


@dataclass(frozen=True)
class Scene:
    """One step of a lesson: a label, what to try, and the state it loads.

    Attributes
    ----------
    title : str
        The menu entry.
    try_this : str
        A few sentences: what to look at or change once it is loaded.
    make : callable() -> SessionState
        Builds the state (its sky may be a :class:`NamedSky`, placed when resolved).
    """

    title: str
    try_this: str
    make: Callable[[], SessionState]

    def state(self) -> SessionState:
        """The scene's state, its sky resolved (what the window shows)."""
        return self.make().resolved()


@dataclass(frozen=True)
class Lesson:
    """A docs page and the scenes of its "In the window" steps.

    Attributes
    ----------
    title : str
    page : str
        The page's file name in ``docs/`` (e.g. ``"lesson-aliasing.md"``).
    try_this : str
        What the lesson is about, in one or two sentences.
    scenes : tuple of Scene
    """

    title: str
    page: str
    try_this: str
    scenes: tuple[Scene, ...]

    def page_path(self) -> Path | None:
        """The page in a source checkout's ``docs/``, or None when it is not there."""
        path = DOCS / self.page
        return path if path.is_file() else None


# ----------------------------------------------------------------- the two moves
def _moved_sky(sky, centre: ObservationSpec):
    """The sky as the window keeps it for a new phase centre: a relative sky moved there."""
    move = getattr(sky, "moved_to", None)  # a SkyModel; a NamedSky is placed when resolved
    return sky if move is None else move(centre.ra_deg, centre.dec_deg)


def with_declination(state: SessionState, dec_deg: float) -> SessionState:
    """``state`` with the phase centre at ``dec_deg`` (a relative sky moved with it).

    The one-click fix that goes with :func:`uvlab.app.observing.elevation.field_visibility`:
    ``with_declination(state, visible_declination_for(state.observation))``.
    """
    obs = replace(state.observation, dec_deg=float(dec_deg))
    return replace(state, observation=obs, sky=_moved_sky(state.sky, obs))


def switch_layout(state: SessionState, layout: str) -> tuple[SessionState, str | None]:
    """``state`` observed with another array; the declination moved if the site cannot see it.

    Antennas moved by hand are dropped (they belonged to the old array). When
    the new site sees the field below the elevation limit for all or most of
    the hour-angle range (:func:`uvlab.app.observing.elevation.field_visibility`), the
    declination becomes the nearest one it sees for the whole range, and the
    line returned says so (for the status bar and the log); else None.
    """
    obs = replace(state.observation, layout=str(layout))
    moved, note = with_visible_declination(obs)
    new = replace(state, observation=obs, modified_antennas_enu=None)
    if moved.dec_deg != obs.dec_deg:
        new = with_declination(new, moved.dec_deg)
    return new, note


# ------------------------------------------------------------------- the scenes
def _default() -> SessionState:
    return DEFAULT_SESSION


#: KAT-7's image in Lessons 1 and 2: 256 pixels of 25″, its ~4′ beam about ten pixels
#: across (the automatic cell, 1/3 of the finest fringe, is 80″: a 3-pixel main lobe).
KAT7_IMAGE = (256, 25.0)
#: MeerKAT's automatic cell (arcsec) on the default scene: MeerKAT+ and SKA-Mid are shown
#: on it, their main lobes compared at one scale (their own automatic cells, 0.85″ and
#: 0.09″ from 17.6 and 160 km baselines, make images smaller than their natural main lobes).
MEERKAT_CELL = 1.9
#: One channel of 600 s integrations: SKA-Mid's 19 306 baselines imaged in seconds.
QUICK = {"nchan": 1, "int_s": 600.0}


def _array(
    layout: str, dec_deg: float | None = None, quick: bool = False, **imaging
) -> Callable[[], SessionState]:
    """The default scene with another array (and then, if given, another declination).

    ``imaging`` replaces imaging options (e.g. ``cell_arcsec``: the automatic cell
    follows the longest baseline, far finer than a naturally weighted main lobe on
    arrays with a dense core); ``quick`` observes 1 channel of 600 s integrations
    (:data:`QUICK`), for arrays of many thousand baselines.
    """

    def make() -> SessionState:
        state = switch_layout(DEFAULT_SESSION, layout)[0]
        if quick:
            state = replace(state, observation=replace(state.observation, **QUICK))
        state = replace(state, imaging=replace(state.imaging, **imaging))
        return state if dec_deg is None else with_declination(state, dec_deg)

    return make


def _meerkat_weighting(weighting: str) -> Callable[[], SessionState]:
    def make() -> SessionState:
        imaging = replace(DEFAULT_SESSION.imaging, weighting=weighting)
        return replace(DEFAULT_SESSION, imaging=imaging)

    return make


#: Lesson 2's window steps: KAT-7, 1 channel, the teaching sky over KAT-7's field,
#: 256 pixels of 25″.
def _kat7(ha_start_h: float, ha_stop_h: float, dec_deg: float | None = None):
    def make() -> SessionState:
        state, _ = switch_layout(DEFAULT_SESSION, "kat-7")
        obs = replace(state.observation, ha_start_h=ha_start_h, ha_stop_h=ha_stop_h, nchan=1)
        imaging = replace(state.imaging, npix=KAT7_IMAGE[0], cell_arcsec=KAT7_IMAGE[1])
        state = replace(state, observation=obs, imaging=imaging, sky=NamedSky("teaching", 0.6))
        return state if dec_deg is None else with_declination(state, dec_deg)

    return make


#: Lesson 3's sky (``alias.sky``): 1 Jy at the phase centre, 5 Jy 15′ east of it.
ALIAS_SKY = SkyModel(
    (
        Component("inside", "point", 150.0, 30.0, (1.0, 0.0, 0.0, 0.0), 1.4e9),
        Component("outside", "point", 150.2887, 30.0, (5.0, 0.0, 0.0, 0.0), 1.4e9),
    ),
    "one source in the field, a brighter one outside it",
)
#: Lesson 3's compare entries (its step 5).
ALIAS_COMPARE = tuple(ImagingOptions(npix=128, cell_arcsec=10.0, algorithm=a)
                      for a in ("nn", "nn-oversampled", "conv"))  # fmt: skip


def _aliasing(**imaging) -> Callable[[], SessionState]:
    """Lesson 3's window steps: VLA D at (150°, +30°), HA ±1 h, 120 s, 1 channel, alias.sky."""

    def make() -> SessionState:
        obs = replace(
            DEFAULT_SESSION.observation,
            layout="vla.d",
            ra_deg=150.0,
            dec_deg=30.0,
            ha_start_h=-1.0,
            ha_stop_h=1.0,
            int_s=120.0,
            nchan=1,
        )
        options = replace(DEFAULT_SESSION.imaging, npix=128, cell_arcsec=10.0, **imaging)
        return replace(
            DEFAULT_SESSION, observation=obs, sky=ALIAS_SKY, imaging=options, compare=ALIAS_COMPARE
        )

    return make


#: Lesson 4's sky (``row.sky``): four 1 Jy points 0, 10, 20 and 30′ east of (150°, +40°).
ROW_SKY = SkyModel(
    tuple(
        Component(name, "point", ra, 40.0, (1.0, 0.0, 0.0, 0.0), 1.4e9)
        for name, ra in (
            ("c0", 150.0), ("e10", 150.217566), ("e20", 150.435131), ("e30", 150.652695),
        )
    ),
    "four 1 Jy points in a row",
)  # fmt: skip
#: Lesson 4's beam and gain errors (its ``beam`` and ``gains`` images).
ROW_BEAM = Corruptions(JonesOptions("airy"))
ROW_GAINS = Corruptions(
    JonesOptions(
        "airy", gain_amp_rms=0.1, gain_phase_rms_deg=30.0, gain_corr_time_s=1800.0, gain_seed=1
    )
)


def _beams(corruptions: Corruptions | None, sky: SkyModel = ROW_SKY):
    """Lesson 4's window steps: VLA D at (150°, +40°), HA ±3 h, 300 s, no smearing, 256² × 20″."""

    def make() -> SessionState:
        obs = replace(
            DEFAULT_SESSION.observation,
            layout="vla.d",
            ra_deg=150.0,
            dec_deg=40.0,
            ha_start_h=-3.0,
            ha_stop_h=3.0,
            int_s=300.0,
        )
        options = replace(DEFAULT_SESSION.imaging, npix=256, cell_arcsec=20.0)
        return replace(
            DEFAULT_SESSION, observation=obs, sky=sky, imaging=options, smearing=False,
            corruptions=corruptions,
        )  # fmt: skip

    return make


LESSONS: tuple[Lesson, ...] = (
    Lesson(
        "A tour of the window",
        "tour.md",
        "The default scene: MeerKAT observing the teaching sky at 1.4 GHz for six hours "
        "around transit. Change anything in the Controls and the views follow.",
        (
            Scene(
                "The default scene",
                "Drag an antenna in the Array layout view, click on the dirty image to add a "
                "source, or press ▶ Play to build up the synthesis hour by hour.",
                _default,
            ),
        ),
    ),
    Lesson(
        "Lesson 1: how the array shapes the PSF",
        "lesson-array-psf.md",
        "The longest baselines set the resolution; the number and arrangement of the "
        "baselines set the sidelobes.",
        (
            Scene(
                "MeerKAT (the default scene)",
                "Look at the PSF and the uv coverage: 2016 baselines, low sidelobes.",
                _default,
            ),
            Scene(
                "KAT-7",
                "21 elliptical arcs and a broad PSF (about 4′) with strong sidelobes, on 256 "
                "pixels of 25″ as on the command line. Set the Cell back to auto: 80″ cells, "
                "an 11° image, and the main lobe only 3 pixels wide.",
                _array("kat-7", npix=KAT7_IMAGE[0], cell_arcsec=KAT7_IMAGE[1]),
            ),
            Scene(
                "VLA D",
                "The VLA (latitude +34°) never sees the default Dec -43° above 15°, so the "
                "declination moves to -27°, the nearest it sees for the whole ±3 h.",
                _array("vla.d"),
            ),
            Scene(
                "VLA D at Dec +30°",
                "Near the zenith, as on the command line: a round beam. Compare with VLA A.",
                _array("vla.d", 30.0),
            ),
            Scene(
                "VLA A at Dec +30°",
                "The same Y-shaped pattern 35 times larger: the same PSF, 35 times smaller.",
                _array("vla.a", 30.0),
            ),
            Scene(
                "MeerKAT+",
                "MeerKAT with 14 more dishes out to 17.6 km, on MeerKAT's 1.9″ cell: the main "
                "lobe narrows to about 6″ at half power (MeerKAT's: 13–17″), on a broad "
                "plateau of the short baselines.",
                _array("meerkat-plus", cell_arcsec=MEERKAT_CELL),
            ),
            Scene(
                "SKA-Mid",
                "197 dishes out to 160 km, on MeerKAT's 1.9″ cell: a main lobe of about 6″ at "
                "half power on a plateau from its dense core. 1 channel of 600 s integrations "
                "keep its 19 306 baselines quick.",
                _array("skamid", quick=True, cell_arcsec=MEERKAT_CELL),
            ),
            Scene(
                "MeerKAT, uniform weighting",
                "Uniform weighting: the main lobe shrinks and its plateau goes; switch "
                "Weighting back to natural or briggs to compare.",
                _meerkat_weighting("uniform"),
            ),
        ),
    ),
    Lesson(
        "Lesson 2: earth-rotation synthesis",
        "lesson-earth-rotation.md",
        "As the Earth turns, each baseline traces an ellipse in the uv plane: a few antennas "
        "and some patience fill it.",
        (
            Scene(
                "KAT-7, a 15-minute snapshot",
                "21 short dashes in the uv plane and a dirty image full of grating lobes. "
                "Set the hour angles to -6 … +6 h and press ▶ Play.",
                _kat7(0.0, 0.25),
            ),
            Scene(
                "KAT-7, 12 hours",
                "21 elliptical tracks; the sidelobes fade, the main lobe does not narrow.",
                _kat7(-6.0, 6.0),
            ),
            Scene(
                "KAT-7, 12 hours at Dec -80°",
                "Almost circular tracks, the roundest beam; the field never sets.",
                _kat7(-6.0, 6.0, -80.0),
            ),
            Scene(
                "KAT-7, 12 hours at Dec +40°",
                "Flattened ellipses and a beam stretched north-south; the field is below "
                "15° for most of the 12 h and those rows are flagged.",
                _kat7(-6.0, 6.0, 40.0),
            ),
        ),
    ),
    Lesson(
        "Lesson 3: why gridding needs an anti-aliasing kernel",
        "lesson-aliasing.md",
        "A 5 Jy source 15′ east of a 21.3′ image: nearest-cell gridding wraps it back in, "
        "a convolution kernel with padding removes it.",
        (
            Scene(
                "nn: a false source",
                "The 5 Jy source outside the image comes back in at l ≈ -6.3′. Open the "
                "Aliasing view and press Compute.",
                _aliasing(algorithm="nn"),
            ),
            Scene(
                "nn-oversampled",
                "The wrap-around is gone; what is left is the displacement of each record.",
                _aliasing(algorithm="nn-oversampled"),
            ),
            Scene(
                "conv (ES kernel, σ = 2)",
                "The outside source is suppressed below the window's ε = 1e-5: the Aliasing "
                "view's largest error is 6.5e-6 of the peak.",
                _aliasing(algorithm="conv"),
            ),
            Scene(
                "conv, Gaussian kernel S = 2, σ = 1",
                "A kernel with little aliasing suppression and no padding: the outside "
                "source creeps back in. Try S = 4, then S = 6 with σ = 2.",
                _aliasing(
                    algorithm="conv", kernel="gauss", kernel_size="support", support=2, sigma=1.0
                ),
            ),
        ),
    ),
    Lesson(
        "Lesson 4: primary beams, gain errors and noise",
        "lesson-beams-gains.md",
        "A source far from the pointing centre fades by the power beam; gain errors take a "
        "fraction of every source and scatter it; thermal noise sets the image RMS.",
        (
            Scene(
                "Four sources in a row, no beam",
                "Four 1 Jy points 0, 10, 20 and 30′ east, all at 1 Jy/beam. Open the "
                "Instrument tab and choose Primary beam → Airy disk.",
                _beams(None),
            ),
            Scene(
                "The Airy beam of the VLA's 25 m dishes",
                "The sources fade as |E|² says (×0.75, ×0.28, ×0.03): see the Primary beam "
                "view. Set the dish diameter to 12 m and the 30′ source comes back.",
                _beams(ROW_BEAM),
            ),
            Scene(
                "Beam and gain errors (10 %, 30°, 30 min)",
                "Every source loses about e^(−σ_φ²) ≈ 0.76 of its peak and ripples spread "
                "over the image; change the gains' seed for another draw.",
                _beams(ROW_GAINS),
            ),
            Scene(
                "A blank field with thermal noise (SEFD 420 Jy)",
                "No sources, only noise: the Instrument tab reads the expected image RMS "
                "and the measured one. Double the SEFD, or halve the hour angles.",
                _beams(Corruptions(sefd_jy=420.0), SkyModel()),
            ),
        ),
    ),
)
