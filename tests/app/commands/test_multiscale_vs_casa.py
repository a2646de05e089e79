"""``uvlab image --multiscale`` against CASA tclean(deconvolver='multiscale') on the same MS.

Needs casatools, casatasks and casadata (measures configured in ``~/.casa/config.py``);
marked ``casa`` and left out of the default run (tclean takes 3–4 min per run on two
cores). Issue 29's field (``tests.support.casa_scenes.extended_ms``): a 2 Jy Gaussian of
150″ × 90″, points of 1 Jy, 0.5 Jy and 10 mJy, VLA C, 4 h, 2 channels, thermal noise
σ = 48.7 µJy/beam (the oracle: σ_vis/√(2N) over the MS's N visibilities); 256² at 4″,
natural weights, gain 0.1, niter 20000, scales 0, 8, 16, 32, 64 pixels in both (uvlab:
``--mgain 0.8``, Högbom minor cycles on the 2N PSF; tclean: ``gridder='standard'``, its
major cycles). Two stopping rules, each the same in both:

- S·σ with S = 3 (uvlab ``--auto-threshold 3``, its σ from the long spacings; tclean
  ``nsigma=3``, its σ the residual's robust RMS, per major cycle);
- an absolute 3σ_thermal (``--threshold-jy`` and ``threshold``).

What it showed (CASA 6.7.0; RMS of the whole residual in units of the thermal σ):

| stop | uvlab flux | uvlab RMS | tclean flux | tclean RMS |
| --- | --- | --- | --- | --- |
| S = 3 | 3.505 Jy (99.86 %) | 1.44 | 3.518 Jy (100.2 %) | 1.28 |
| 3σ_thermal | 3.505 Jy (99.87 %) | 1.20 | 3.517 Jy (100.2 %) | 1.14 |

Both recover ≥ 97 % of the 3.51 Jy and the 10 mJy source (9.8 mJy within 3 pixels). uvlab's
residual RMS is 12 % (S = 3) and 6 % (absolute) above tclean's: at S = 3 most of the gap is
where CLEAN stops (uvlab's σ on the last residual is 1.4σ_thermal, its last peak 4.2σ;
tclean's 3.85σ); the rest is in the Gaussian's region (2.8σ against 2.0σ RMS within 80″ of
its centre). ``test_residual_no_worse_than_tclean`` states the issue's criterion and fails
(strict xfail) until that is closed. At S = 1, uvlab reaches 0.72σ (10,700 iterations,
99.85 %); tclean at ``nsigma=1`` or 1σ_thermal ran past 10 min (its minor cycles stopped
again and again with "diverging due to large scale") and was not compared.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.casa_scenes import (
    CELL_ARCSEC,
    EXTENDED_NPIX,
    EXTENDED_POINTS,
    GAUSSIAN,
    extended_ms,
    source_pixel,
    thermal_sigma,
)
from tests.support.cli import run_cli

pytestmark = pytest.mark.casa

N = EXTENDED_NPIX
SCALES = [0, 8, 16, 32, 64]
TOTAL = GAUSSIAN[0] + sum(p[2] for p in EXTENDED_POINTS)
STOPS = ("auto", "absolute")


def _runs(folder):
    """{(who, stop): (model, residual)} and the thermal σ, on one MS in ``folder``."""
    import casatasks
    import casatools
    from astropy.io import fits

    ms = extended_ms(folder)
    sigma = thermal_sigma(ms)
    out = {}
    for stop in STOPS:
        flag = ("--auto-threshold", 3) if stop == "auto" else ("--threshold-jy", 3 * sigma)
        prefix = folder / f"u-{stop}"
        code, _, err = run_cli(
            "image", "--ms", ms, "--npix", N, "--cell-arcsec", CELL_ARCSEC, "--weighting",
            "natural", "--device", "cpu", "--no-png", "--niter", 20000, "--gain", 0.1,
            "--mgain", 0.8, "--multiscale", "--multiscale-scales", ",".join(map(str, SCALES)),
            *flag, "--out", prefix,
        )  # fmt: skip
        assert code == 0, err
        out["uvlab", stop] = tuple(
            fits.getdata(f"{prefix}-{kind}.fits").squeeze().astype(np.float64)
            for kind in ("model", "residual")
        )
        stop_kw = dict(nsigma=3.0, threshold="0Jy") if stop == "auto" else dict(
            threshold=f"{3 * sigma}Jy")  # fmt: skip
        name = str(folder / f"c-{stop}")
        casatasks.tclean(vis=str(ms), imagename=name, imsize=N, cell=f"{CELL_ARCSEC}arcsec",
                         specmode="mfs", gridder="standard", deconvolver="multiscale",
                         scales=SCALES, weighting="natural", gain=0.1, niter=20000,
                         **stop_kw)  # fmt: skip
        images = []
        for kind in ("model", "residual"):
            ia = casatools.image()
            ia.open(f"{name}.{kind}")
            images.append(ia.getchunk()[:, :, 0, 0].T.astype(np.float64))
            ia.close()
        out["tclean", stop] = tuple(images)
    return out, sigma


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    import os

    folder = tmp_path_factory.mktemp("ms")
    here = os.getcwd()
    os.chdir(folder)  # CASA writes its log to the working directory (from its import on)
    try:
        pytest.importorskip("casatasks")
        return _runs(folder)
    finally:
        os.chdir(here)


@pytest.mark.parametrize("stop", STOPS)
def test_both_recover_the_flux_near_the_thermal_noise(runs, stop):
    out, sigma = runs
    (ours, ours_res), (theirs, theirs_res) = out["uvlab", stop], out["tclean", stop]
    assert ours.sum() >= 0.97 * TOTAL and theirs.sum() >= 0.97 * TOTAL
    assert ours.sum() == pytest.approx(theirs.sum(), rel=0.01)
    assert ours_res.std() <= 1.5 * sigma  # 1.44σ (S = 3), 1.20σ (3σ_thermal)
    assert ours_res.std() <= 1.15 * theirs_res.std()  # 1.12 and 1.06 times tclean's
    di, dj, jy = EXTENDED_POINTS[2]  # the 10 mJy source
    j, i = source_pixel(N, di, dj)
    for model in (ours, theirs):
        assert model[j - 3 : j + 4, i - 3 : i + 4].sum() == pytest.approx(jy, rel=0.05)


@pytest.mark.xfail(strict=True, reason="uvlab's residual RMS is 1.12× (S = 3) and 1.06× "
                   "(3σ_thermal) tclean's: see the module docstring")  # fmt: skip
@pytest.mark.parametrize("stop", STOPS)
def test_residual_no_worse_than_tclean(runs, stop):
    out, _ = runs
    assert out["uvlab", stop][1].std() <= out["tclean", stop][1].std()
