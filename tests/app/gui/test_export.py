"""Every image view exports what it shows as FITS, with the result's WCS."""

import numpy as np
import pytest
from astropy.io import fits
from astropy.wcs import WCS


@pytest.mark.parametrize("view_name", ["dirty_view", "psf_view", "sky_view"])
def test_views_export_fits_with_wcs(make_window, small_state, wait_result, tmp_path, view_name):
    w = make_window(small_state)
    out = wait_result(w).output
    view = getattr(w.views, view_name)
    path = tmp_path / f"{view_name}.fits"
    w.files.export_view_fits(view, path)
    with fits.open(path) as h:
        data = h[0].data[0, 0].astype(float)
        header = h[0].header
    np.testing.assert_allclose(data, view.image().astype(np.float32), rtol=1e-6)
    wcs = WCS(header).celestial
    n = out.spec.npix
    ra, dec = wcs.pixel_to_world_values(n // 2, n // 2)
    assert ra == pytest.approx(np.degrees(out.ra0_rad) % 360, abs=1e-9)
    assert dec == pytest.approx(np.degrees(out.dec0_rad), abs=1e-9)
    assert header["CDELT1"] == pytest.approx(-np.degrees(out.spec.cell_rad))


def test_export_before_any_result_says_so(make_window, small_state, tmp_path):
    w = make_window(small_state, run_on_start=False)
    errors = []
    w.report_error = errors.append
    w.files.export_view_fits(w.views.dirty_view, tmp_path / "x.fits")
    assert errors and "no result" in errors[0]
    assert not (tmp_path / "x.fits").exists()


def test_png_exports_are_atomic_and_refused_on_a_full_disk(
    make_window, small_state, tmp_path, monkeypatch
):
    from uvlab.app.outputs.atomic import save_qimage
    from uvlab.widgets import _save

    monkeypatch.setattr(_save, "_saver", _save._saver)  # restored after the test
    w = make_window(small_state, run_on_start=False)
    assert _save._saver is save_qimage  # the window makes the views' exports atomic
    errors = []
    w.report_error = errors.append
    shot, view_png = tmp_path / "window.png", tmp_path / "view.png"
    assert w.files.save_screenshot(shot) and shot.stat().st_size > 1000
    old = b"old png bytes"
    for p in (shot, view_png):
        p.write_bytes(old)
    monkeypatch.setenv("UVLAB_FAKE_FREE_BYTES", "1000")
    assert not w.files.save_screenshot(shot)
    assert len(errors) == 1 and f"{shot}: not enough disk space" in errors[0]
    with pytest.raises(OSError, match=r"view\.png: not enough disk space"):
        w.views.dirty_view.export_png(view_png)
    assert shot.read_bytes() == old and view_png.read_bytes() == old
    assert sorted(p.name for p in tmp_path.iterdir() if "png" in p.name) == [
        "view.png",
        "window.png",
    ]
