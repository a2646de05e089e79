"""uvlab's restoring beam against CASA's own fit (tclean's) on the same PSF FITS file.

Needs casatools and casadata (``pip install casatools casadata``, measures configured in
``~/.casa/config.py``); marked ``casa`` and left out of the default run. What it showed is
pinned in tests/gpu/deconvolution/test_beam.py (``CASA_MEERKAT_BEAM``).
"""

from __future__ import annotations

import pytest

from tests.support.clean_scenes import meerkat_psf_and_dirty

pytestmark = pytest.mark.casa


def test_fitted_beam_matches_casa(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # CASA writes its log to the working directory
    casatools = pytest.importorskip("casatools")
    from uvlab.app.outputs.fits_io import write_image_fits
    from uvlab.gpu.deconvolution import fit_beam
    from uvlab.gpu.image_spec import ImageSpec

    psf, _, spec = meerkat_psf_and_dirty()
    fits = write_image_fits(
        tmp_path / "mk-psf.fits", psf, ImageSpec(psf.shape[0], spec.cell_rad), 150.0, -45.0,
        freq_hz=1.4e9,
    )  # fmt: skip
    ia = casatools.image()
    ia.fromfits(str(tmp_path / "mk.psf"), str(fits), overwrite=True)
    ia.close()
    casatools.synthesisutils().fitPsfBeam(imagename=str(tmp_path / "mk"), nterms=1, psfcutoff=0.35)
    ia.open(str(tmp_path / "mk.psf"))
    beam = ia.restoringbeam()
    ia.close()
    fit = fit_beam(psf, spec.cell_rad)
    assert fit.bmaj_arcsec == pytest.approx(beam["major"]["value"], rel=1e-5)
    assert fit.bmin_arcsec == pytest.approx(beam["minor"]["value"], rel=1e-5)
    assert fit.bpa_deg == pytest.approx(beam["positionangle"]["value"], abs=1e-3)
