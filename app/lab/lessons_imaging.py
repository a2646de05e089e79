"""Lessons 3–4 (anti-aliasing kernels; primary beams, gain errors and noise) as scenes.

Each scene starts from :data:`~uvlab.app.lab.session.DEFAULT_SESSION`, the window's
starting state, and changes only what the lesson tells the reader to change.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from uvlab.app.instrument.jones import JonesOptions
from uvlab.app.lab.corruptions import Corruptions
from uvlab.app.lab.imaging import ImagingOptions
from uvlab.app.lab.lesson_records import Lesson, Scene
from uvlab.app.lab.session import DEFAULT_SESSION, SessionState
from uvlab.app.observing.observation import ObservationSpec
from uvlab.app.skymodel import Component, SkyModel

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


def _vla_d(dec_deg: float, ha_h: float, int_s: float, **more) -> ObservationSpec:
    """The default observation made VLA D's at (150°, ``dec_deg``), HA ±``ha_h`` h."""
    return replace(
        DEFAULT_SESSION.observation, layout="vla.d", ra_deg=150.0, dec_deg=dec_deg,
        ha_start_h=-ha_h, ha_stop_h=ha_h, int_s=int_s, **more,
    )  # fmt: skip


def _aliasing(**imaging) -> Callable[[], SessionState]:
    """Lesson 3's window steps: VLA D at (150°, +30°), HA ±1 h, 120 s, 1 channel, alias.sky."""

    def make() -> SessionState:
        obs = _vla_d(30.0, 1.0, 120.0, nchan=1)
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
        obs = _vla_d(40.0, 3.0, 300.0)
        options = replace(DEFAULT_SESSION.imaging, npix=256, cell_arcsec=20.0)
        return replace(
            DEFAULT_SESSION, observation=obs, sky=sky, imaging=options, smearing=False,
            corruptions=corruptions,
        )  # fmt: skip

    return make


#: Lesson 3 and Lesson 4.
IMAGING_LESSONS: tuple[Lesson, ...] = (
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
