"""uvlab's PSF with ``--density-frame lsrk`` against tclean's, at every pixel.

Needs casatools, casatasks and casadata; marked ``casa`` and left out of the default run.
tclean (6.7.0, ``specmode='mfs'``, ``gridder='standard'``, padding 1.2) counts uniform and
Briggs densities on the image's N² uv cells, both halves, as the imager tool does, but with
each row's frequency in LSRK (its ``outframe``): the uv are 1 + 6.7e-5 longer on this track.
What it showed, in units of the peak, over the whole 128² image:

| weighting | --density-frame topo | --density-frame lsrk |
|---|---|---|
| natural | 2.2e-4 | 2.2e-4 |
| uniform | 2.8e-3 | 3.9e-4 |
| Briggs −1 | 2.8e-3 | 3.9e-4 |
| Briggs 0 | 1.6e-3 | 3.7e-4 |
| Briggs +1 | 2.4e-4 | 2.2e-4 |

(what remains is the gridding: tclean's prolate spheroidal against ducc's kernel). The scale
is pinned in tests/gpu/imaging/test_weighting.py, the ratio in tests/app/observing/test_lsrk.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.cli import run_cli

pytestmark = pytest.mark.casa


@pytest.fixture(scope="module")
def track(tmp_path_factory):
    ms = tmp_path_factory.mktemp("tclean") / "w.ms"
    code, _, err = run_cli(
        "simulate", "--array", "vla.c", "--ra", 150, "--dec", 30, "--ha-start", -2,
        "--ha-stop", 2, "--int-s", 300, "--sky", "point", "--out", ms,
    )  # fmt: skip
    assert code == 0, err
    return ms


def _tclean_psf(ms, tmp_path, scheme, robust):
    casatasks = pytest.importorskip("casatasks")
    casatools = pytest.importorskip("casatools")
    name = str(tmp_path / "tc")
    casatasks.tclean(
        vis=str(ms), imagename=name, imsize=128, cell="4arcsec", specmode="mfs",
        gridder="standard", weighting=scheme, robust=float(robust), niter=0, stokes="I",
    )  # fmt: skip
    ia = casatools.image()
    ia.open(name + ".psf")
    psf = ia.getchunk().squeeze().T  # CASA's (x, y) is uvlab's [j, i] transposed
    ia.close()
    return psf


def _uvlab_psf(ms, tmp_path, scheme, robust, frame):
    from astropy.io import fits

    out = tmp_path / f"uv-{frame}"
    code, _, err = run_cli(
        "image", "--ms", ms, "--npix", 128, "--cell-arcsec", 4, "--weighting", scheme,
        "--robust", robust, "--density-frame", frame, "--no-png", "--out", out,
    )  # fmt: skip
    assert code == 0, err
    return fits.getdata(f"{out}-psf.fits").squeeze()


@pytest.mark.parametrize(("scheme", "robust"), [("natural", 0), ("uniform", 0), ("briggs", -1),
                                                ("briggs", 0), ("briggs", 1)])  # fmt: skip
def test_psf_equals_tcleans_at_every_pixel(track, tmp_path, monkeypatch, scheme, robust):
    monkeypatch.chdir(tmp_path)  # CASA writes its log to the working directory
    theirs = _tclean_psf(track, tmp_path, scheme, robust)
    ours = _uvlab_psf(track, tmp_path, scheme, robust, "lsrk")
    assert np.abs(ours - theirs).max() < 1e-3  # the bar: 2e-3
    if scheme == "uniform":  # the data's own frequencies: the cells tclean does not use
        topo = _uvlab_psf(track, tmp_path, scheme, robust, "topo")
        assert np.abs(topo - theirs).max() > 2e-3
