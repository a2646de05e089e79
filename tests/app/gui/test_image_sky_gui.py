"""Image skies in the window: a drawn picture or a file as the sky, the Fourier plane, bad files."""

from __future__ import annotations

import numpy as np
import pytest

C = 299792458.0


def test_picture_is_the_sky_and_its_fourier_plane(make_window, small_state, wait_result):
    from uvlab.app.skymodel.demo_pictures import demo_picture

    w = make_window(small_state)
    first = wait_result(w).output
    assert w.sky_panel.use_picture("ring")
    out = wait_result(w).output
    sky = w.sky_panel.image_sky()
    assert sky.name == "ring" and len(w.sky_panel.sky_model()) == 0  # it replaced the components
    fov_arcmin = np.degrees(first.spec.npix * first.spec.cell_rad) * 60
    ref = demo_picture("ring", 0.5 * fov_arcmin, 1.0)  # auto width: half the field
    np.testing.assert_allclose(sky.image, ref.image)
    assert sky.pixel_rad == pytest.approx(ref.pixel_rad)
    model = w.views.sky_view.image()
    ra, dec = small_state.observation.ra_deg, small_state.observation.dec_deg
    np.testing.assert_allclose(model, sky.on_grid(out.spec, ra, dec)[0], atol=1e-7)
    assert model.sum() == pytest.approx(1.0, rel=1e-3)
    # the Fourier plane: |V| of the model, written out at a few (u, v) of the uv grid
    amp, n, cell = w.views.fourier_view.amplitude(), out.spec.npix, out.spec.cell_rad
    du = w.views.fourier_view.du()
    assert du == pytest.approx(1.0 / (n * cell))
    l = -(np.arange(n) - n // 2) * cell
    m = (np.arange(n) - n // 2) * cell
    for q, k in [(n // 2, n // 2), (n // 2 + 3, n // 2 - 5), (10, 100)]:
        u, v = (k - n // 2) * du, (q - n // 2) * du
        vis = np.sum(out.model * np.exp(2j * np.pi * (u * l[None, :] + v * m[:, None])))
        assert amp[q, k] == pytest.approx(abs(vis), rel=1e-5, abs=1e-7)  # float32
    u_pts, v_pts = w.views.fourier_view.uv_points()
    np.testing.assert_allclose(u_pts, (out.uv.u_m[:, None] * out.freq_hz[None, :] / C).ravel())
    np.testing.assert_allclose(v_pts, (out.uv.v_m[:, None] * out.freq_hz[None, :] / C).ravel())
    assert "'ring'" in out.description
    # a click adds a point on top of the picture; a demo sky replaces it
    w.sky_panel.add_point_at(0.0, 0.0, out.ra0_rad, out.dec0_rad)
    assert w.sky_panel.image_sky() is sky and len(w.sky_panel.sky_model()) == 1
    wait_result(w)
    w.edits.use_demo_sky("teaching")
    assert w.sky_panel.image_sky() is None
    wait_result(w)


def test_bad_image_files_say_so_in_one_line(make_window, small_state, wait_result, tmp_path):
    from astropy.io import fits

    w = make_window(small_state)
    wait_result(w)
    no_wcs = tmp_path / "plain.fits"
    fits.PrimaryHDU(np.ones((8, 8))).writeto(no_wcs)
    not_png = tmp_path / "notes.png"
    not_png.write_text("not a picture\n")
    other = tmp_path / "table.csv"
    other.write_text("a,b\n1,2\n")
    before = w.sky_panel.sky_model()
    for path, words in (
        (no_wcs, "no celestial WCS"),
        (not_png, "not a picture uvlab can read"),
        (other, "not an image sky"),
        (tmp_path / "missing.fits", "no such file"),
    ):
        assert not w.sky_panel.load_image_file(path)
        message = w.statusBar().currentMessage()
        assert words in message and path.name in message and "\n" not in message
        assert w.views.log_view.lines()[-1].endswith(message)
        assert w.sky_panel.image_sky() is None and w.sky_panel.sky_model() is before


def test_fits_image_sky_loads(make_window, small_state, wait_result, tmp_path):
    from astropy.io import fits
    from astropy.wcs import WCS

    w = make_window(small_state)
    wait_result(w)
    wcs = WCS(naxis=2)
    wcs.wcs.ctype = ["RA---SIN", "DEC--SIN"]
    wcs.wcs.crval = [small_state.observation.ra_deg, small_state.observation.dec_deg]
    wcs.wcs.crpix = [9.0, 9.0]
    wcs.wcs.cdelt = [-0.02, 0.02]
    data = np.zeros((16, 16))
    data[8, 8], data[4, 10] = 1.0, 0.5
    path = tmp_path / "model.fits"
    header = wcs.to_header()
    header["BUNIT"] = "Jy/pixel"
    fits.PrimaryHDU(data, header=header).writeto(path)
    assert w.sky_panel.load_image_file(path)
    out = wait_result(w).output
    sky = w.sky_panel.image_sky()
    assert not sky.relative and sky.total_jy == pytest.approx(1.5)
    ra, dec = small_state.observation.ra_deg, small_state.observation.dec_deg
    np.testing.assert_allclose(w.views.sky_view.image(), sky.on_grid(out.spec, ra, dec)[0])
    assert "16×16 pixels" in w.sky_panel.picture_box.image_label.text()
    assert out.dirty.max() > 0.5


def test_session_keeps_the_image_sky_and_clean_options(
    make_window, small_state, wait_result, tmp_path
):
    from uvlab.app.lab.clean_task import CleanOptions
    from uvlab.app.lab.session import ImageSkySource, load_session, save_session

    w = make_window(small_state)
    wait_result(w)
    w.sky_panel.picture_box.width_spin.setValue(6.0)
    assert w.sky_panel.use_picture("spiral")
    wait_result(w)
    w.sky_panel.add_point_at(0.001, 0.0, *np.radians([201.365, -43.019]))  # on top of it
    wait_result(w)
    opts = CleanOptions("cotton-schwab", niter=77, gain=0.2, mgain=0.6, threshold_jy=0.003)
    w.views.deconv_view.set_options(opts)
    path = save_session(w.model.state.session(), tmp_path / "s.json")
    state = load_session(path)
    assert state.image_sky == ImageSkySource("picture:spiral", 6.0, 1.0)
    assert state.clean == opts and len(state.sky) == 1
    w2 = make_window(state, run_on_start=False)
    sky = w2.sky_panel.image_sky()
    np.testing.assert_array_equal(sky.image, w.sky_panel.image_sky().image)
    assert len(w2.sky_panel.sky_model()) == 1  # the clicked point is kept with the picture
    assert w2.views.deconv_view.options() == opts
