"""Non-finite UVW and visibilities in a real MS are flagged when read, never imaged.

The oracle is the same imaging of the same MS with those samples flagged in
FLAG instead (finite values): the images must be identical and free of NaN.
"""

from __future__ import annotations

import shutil

import numpy as np
from astropy.io import fits
from casacore import tables

from tests.support.cli import run_cli
from tests.support.nonfinite import cross_rows, flag_instead, pick, spoil
from uvlab.app.ms import open_ms, read_visibilities
from uvlab.gpu.image_spec import ImageSpec
from uvlab.gpu.imaging.imager import make_image


def test_nonfinite_uvw_and_data_are_flagged_and_counted(ms_copy):
    spoilt = ms_copy("paper_xy.ms")
    rows, cells = pick(spoilt)
    spoil(spoilt, rows, cells)
    vd = read_visibilities(spoilt, stokes="XY")
    for a in (vd.uvw, vd.vis, vd.weight):
        assert np.isfinite(a).all()
    at = {int(r): i for i, r in enumerate(vd.rows)}
    for r in rows:
        assert vd.flag[at[r]].all() and (vd.weight[at[r]] == 0).all()
        np.testing.assert_array_equal(vd.uvw[at[r]], 0.0)
    for r, c in cells:
        assert vd.flag[at[r], c] and vd.weight[at[r], c] == 0 and vd.vis[at[r], c] == 0
    assert vd.nonfinite_uvw_rows == 3 and vd.nonfinite_vis_samples == 4
    assert vd.bad_values_note == (
        f"{vd.path}: flagged 3 rows with non-finite UVW and 4 samples with non-finite DATA "
        f"(of {vd.nrow} rows × 11 channels read)"
    )
    assert "\n" not in vd.bad_values_note


def test_image_equals_image_of_the_flagged_subset(ms_copy, tmp_path):
    spoilt = ms_copy("paper_xy.ms")
    oracle = tmp_path / "oracle" / "paper_xy.ms"
    oracle.parent.mkdir()
    shutil.copytree(spoilt, oracle)
    rows, cells = pick(spoilt)
    spoil(spoilt, rows, cells)
    flag_instead(oracle, rows, cells)
    a = read_visibilities(spoilt, stokes="XY")
    b = read_visibilities(oracle, stokes="XY")
    np.testing.assert_array_equal(a.flag, b.flag)
    assert b.bad_values_note is None
    spec = ImageSpec(64, np.radians(0.5))
    kw = dict(algorithm="conv", device="cpu")
    ia = make_image(a.uvw, a.freq_hz, a.vis, a.weight, spec, flag=a.flag, **kw)
    ib = make_image(b.uvw, b.freq_hz, b.vis, b.weight, spec, flag=b.flag, **kw)
    assert np.isfinite(ia.dirty).all() and np.isfinite(ia.psf).all()
    assert ia.nvis == ib.nvis == np.count_nonzero(~b.flag)
    np.testing.assert_allclose(ia.dirty, ib.dirty, rtol=0, atol=1e-12 * np.abs(ib.dirty).max())
    np.testing.assert_allclose(ia.psf, ib.psf, rtol=0, atol=1e-12)


def test_flags_only_the_correlations_used(ms_copy):
    """lwasv (XX XY YX YY): a NaN in XY spoils Stokes U, not Stokes I."""
    path = ms_copy("lwasv_4ant.ms")
    row = int(cross_rows(path)[2])
    t = tables.table(str(path), readonly=False, ack=False)
    try:
        data = t.getcol("DATA")
        data[row, 1, 1] = np.nan  # channel 1, XY
        t.putcol("DATA", data)
    finally:
        t.close()
    i = read_visibilities(path, stokes="I")
    assert not i.flag.any() and i.bad_values_note is None
    u = read_visibilities(path, stokes="U")
    assert u.flag.sum() == 1 and u.flag[2, 1] and u.nonfinite_vis_samples == 1
    assert u.nonfinite_uvw_rows == 0 and np.isfinite(u.vis).all()


def test_already_flagged_samples_are_not_counted(ms_copy):
    path = ms_copy("paper_xy.ms")
    rows, cells = pick(path)
    spoil(path, rows, cells)
    flag_instead(path, rows[:1], cells[:2])
    vd = read_visibilities(path, stokes="XY")
    assert (vd.nonfinite_uvw_rows, vd.nonfinite_vis_samples) == (2, 2)


def test_cli_image_and_info_warn_on_one_line(ms_copy, tmp_path):
    spoilt = ms_copy("paper_xy.ms")
    oracle = tmp_path / "oracle.ms"
    shutil.copytree(spoilt, oracle)
    rows, cells = pick(spoilt)
    spoil(spoilt, rows, cells)
    flag_instead(oracle, rows, cells)
    args = ("--stokes", "XY", "--npix", 64, "--device", "cpu", "--algorithm", "conv")
    code, _, err = run_cli("image", "--ms", spoilt, *args, "--out", tmp_path / "a")
    assert code == 0, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert lines == [
        f"uvlab image: warning: {spoilt}: flagged 3 rows with non-finite UVW and 4 samples "
        "with non-finite DATA (of 285 rows × 11 channels read)"
    ]
    code, _, err = run_cli("image", "--ms", oracle, *args, "--out", tmp_path / "b")
    assert code == 0 and not err.strip(), err
    dirty_a = fits.getdata(tmp_path / "a-dirty.fits")
    dirty_b = fits.getdata(tmp_path / "b-dirty.fits")
    assert np.isfinite(dirty_a).all()
    np.testing.assert_allclose(dirty_a, dirty_b, rtol=0, atol=1e-6 * np.abs(dirty_b).max())

    assert open_ms(spoilt).nonfinite_uvw_rows == 3
    code, out, err = run_cli("info", spoilt)
    assert code == 0 and "PAPER" in out
    assert err.strip() == (
        f"uvlab info: warning: {spoilt}: 3 of 285 rows have non-finite UVW; "
        "they are flagged when imaged"
    )
