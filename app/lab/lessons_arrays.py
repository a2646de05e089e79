"""The tour and Lessons 1–2 (the array and the PSF, earth-rotation synthesis) as scenes.

Each scene starts from :data:`~uvlab.app.lab.session.DEFAULT_SESSION`, the window's
starting state, and changes only what the lesson tells the reader to change.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from uvlab.app.lab.lesson_moves import switch_layout, with_declination
from uvlab.app.lab.lesson_records import Lesson, Scene
from uvlab.app.lab.session import DEFAULT_SESSION, NamedSky, SessionState


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


#: The tour, Lesson 1 and Lesson 2.
ARRAY_LESSONS: tuple[Lesson, ...] = (
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
)
