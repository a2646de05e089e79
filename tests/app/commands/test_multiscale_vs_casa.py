"""``uvlab image --multiscale`` against CASA tclean(deconvolver='multiscale') on the same MS.

Needs casatools, casatasks and casadata (measures configured in ``~/.casa/config.py``; and
``six``, which casatasks imports); marked ``casa`` and left out of the default run (tclean
takes about 30 s per run here). Issue 29's field (``tests.support.casa_scenes.extended_ms``):
a 2 Jy Gaussian of 150″ × 90″, points of 1 Jy, 0.5 Jy and 10 mJy, VLA C, 4 h, 2 channels,
thermal noise σ = 48.7 µJy/beam (the oracle: σ_vis/√(2N) over the MS's N visibilities);
256² at 4″, natural weights, gain 0.1, niter 20000, scales 0, 8, 16, 32, 64 pixels in both
(uvlab: ``--mgain 0.8``, Högbom minor cycles on the 2N PSF; tclean: ``gridder='standard'``,
its major cycles). uvlab runs tclean's rule of choosing scales and stopping
(``--multiscale-small-scale-bias 0``, tclean's ``smallscalebias`` default) and, for the
record, WSClean's (the default). Two stopping rules, each the same in both:

- S·σ with S = 3 (uvlab ``--auto-threshold 3``, its σ from the long spacings; tclean
  ``nsigma=3``, its σ the residual's robust RMS, per major cycle);
- an absolute 3σ_thermal (``--threshold-jy`` and ``threshold``).

What it showed (CASA 6.7.0; RMS of the whole residual in units of the thermal σ):

| stop | uvlab, tclean's rule | uvlab, WSClean's rule | tclean |
| --- | --- | --- | --- |
| S = 3 | 3.512 Jy (100.07 %), 1.24 | 3.505 Jy (99.86 %), 1.44 | 3.518 Jy (100.24 %), 1.28 |
| 3σ_thermal | 3.513 Jy (100.09 %), 1.10 | 3.505 Jy (99.87 %), 1.20 | 3.517 Jy (100.19 %), 1.14 |

All recover ≥ 97 % of the 3.51 Jy and the 10 mJy source (9.8–10.0 mJy within 3 pixels).
With tclean's rule uvlab's residual is 3 % below tclean's at both stops
(``test_residual_no_worse_than_tclean``); within 80″ of the Gaussian's centre its RMS is
1.7σ (S = 3) and 1.3σ (absolute) against tclean's 2.0σ and 1.6σ. WSClean's rule stops on
R's point peak and leaves broad flux under it (2.7σ and 1.9σ there): 12 % (S = 3) and 6 %
above tclean's RMS. At S = 1, WSClean's rule reaches 0.72σ (10,700 iterations, 99.85 %);
tclean at ``nsigma=1`` or 1σ_thermal ran past 10 min (its minor cycles stopped again and
again with "diverging due to large scale") and was not compared.
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
#: uvlab's rules of choosing scales and stopping: tclean's (smallscalebias 0) and WSClean's.
RULES = {"uvlab": ("--multiscale-small-scale-bias", 0), "uvlab-wsclean": ()}


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
        for who, rule in RULES.items():
            prefix = folder / f"{who}-{stop}"
            code, _, err = run_cli(
                "image", "--ms", ms, "--npix", N, "--cell-arcsec", CELL_ARCSEC, "--weighting",
                "natural", "--device", "cpu", "--no-png", "--niter", 20000, "--gain", 0.1,
                "--mgain", 0.8, "--multiscale", "--multiscale-scales", ",".join(map(str, SCALES)),
                *rule, *flag, "--out", prefix,
            )  # fmt: skip
            assert code == 0, err
            out[who, stop] = tuple(
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


@pytest.mark.parametrize("who", list(RULES))
@pytest.mark.parametrize("stop", STOPS)
def test_both_recover_the_flux_near_the_thermal_noise(runs, stop, who):
    out, sigma = runs
    (ours, ours_res), (theirs, theirs_res) = out[who, stop], out["tclean", stop]
    assert ours.sum() >= 0.97 * TOTAL and theirs.sum() >= 0.97 * TOTAL
    assert ours.sum() == pytest.approx(theirs.sum(), rel=0.01)
    assert ours_res.std() <= 1.5 * sigma  # 1.24σ, 1.44σ (S = 3); 1.10σ, 1.20σ (3σ_thermal)
    assert ours_res.std() <= 1.15 * theirs_res.std()  # WSClean's rule: 1.12 and 1.06 times
    di, dj, jy = EXTENDED_POINTS[2]  # the 10 mJy source
    j, i = source_pixel(N, di, dj)
    for model in (ours, theirs):
        assert model[j - 3 : j + 4, i - 3 : i + 4].sum() == pytest.approx(jy, rel=0.05)


@pytest.mark.parametrize("stop", STOPS)
def test_residual_no_worse_than_tclean(runs, stop):
    """Issue 29's criterion, with tclean's rule: 0.97× tclean's RMS at both stops."""
    out, _ = runs
    assert out["uvlab", stop][1].std() <= out["tclean", stop][1].std()
