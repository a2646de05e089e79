"""Reading the two real MeasurementSets, checked against direct casacore reads."""

from __future__ import annotations

import numpy as np
import pytest
from casacore import tables

from tests.support.ms_factory import tree_digest
from uvlab.app.ms import MSError, open_ms, read_visibilities


def _raw(path, *cols):
    t = tables.table(str(path), readonly=True, ack=False)
    try:
        return [t.getcol(c) for c in cols]
    finally:
        t.close()


def _sub(path, name, col):
    t = tables.table(f"{path}/{name}", readonly=True, ack=False)
    try:
        return t.getcol(col)
    finally:
        t.close()


def test_lwasv_summary(ms_copy):
    path = ms_copy("lwasv_4ant.ms")
    info = open_ms(path)
    assert info.telescope == "LWASV"
    assert info.antenna_names == ("LWA001", "LWA002", "LWA003", "LWA004")
    assert info.correlations == {0: ("XX", "XY", "YX", "YY")}
    assert info.nrows == 10 and info.nbaselines == 6 and info.has_autocorrelations
    assert info.data_columns == ("DATA",)
    np.testing.assert_array_equal(
        info.spws[0].freq_hz, _sub(path, "SPECTRAL_WINDOW", "CHAN_FREQ")[0]
    )
    np.testing.assert_allclose(info.antenna_positions, _sub(path, "ANTENNA", "POSITION"))
    (time,) = _raw(path, "TIME")
    assert info.time_start_mjd_s == time.min() and info.nintegrations == len(np.unique(time))
    assert info.flagged_fraction == 0.0


def test_lwasv_stokes_i_matches_raw_columns(ms_copy):
    path = ms_copy("lwasv_4ant.ms")
    before = tree_digest(path)
    vis = read_visibilities(path, stokes="I")
    assert tree_digest(path) == before  # nothing written, no lock file left behind
    data, flag, uvw, a1, a2, weight = _raw(path, "DATA", "FLAG", "UVW", "ANTENNA1", "ANTENNA2",
                                           "WEIGHT")  # fmt: skip
    cross = a1 != a2
    assert cross.sum() == 6 and (~cross).sum() == 4  # four autocorrelations dropped
    assert vis.vis.shape == (6, 4) and vis.weight.shape == (6, 4) and vis.flag.shape == (6, 4)
    np.testing.assert_array_equal(vis.rows, np.flatnonzero(cross))
    np.testing.assert_allclose(vis.freq_hz, 40e6 + 25e3 * np.arange(4))
    np.testing.assert_array_equal(vis.uvw, uvw[cross])
    np.testing.assert_array_equal(vis.ant1, a1[cross])
    i_expected = (data[cross, :, 0].astype(complex) + data[cross, :, 3]) / 2
    np.testing.assert_allclose(vis.vis, i_expected, rtol=1e-6)
    np.testing.assert_array_equal(vis.flag, flag[cross][..., [0, 3]].any(-1))
    w = weight[cross]
    np.testing.assert_allclose(vis.weight, np.repeat(4 / (1 / w[:, :1] + 1 / w[:, 3:]), 4, 1))
    assert vis.weight_source == "WEIGHT" and vis.corr_names == ("XX", "XY", "YX", "YY")
    ra, dec = _sub(path, "FIELD", "PHASE_DIR")[0, 0]
    assert (vis.ra0_rad, vis.dec0_rad) == (ra, dec)
    assert vis.chan_width_hz == 25e3


def test_lwasv_raw_yx_correlation(ms_copy):
    path = ms_copy("lwasv_4ant.ms")
    vis = read_visibilities(path, stokes="YX", channels=(1, 3))
    data, a1, a2 = _raw(path, "DATA", "ANTENNA1", "ANTENNA2")
    np.testing.assert_array_equal(vis.vis, data[a1 != a2][:, 1:3, 2])
    np.testing.assert_allclose(vis.freq_hz, [40.025e6, 40.05e6])


def test_paper_xy_only(ms_copy):
    path = ms_copy("paper_xy.ms")
    before = tree_digest(path)
    with pytest.raises(MSError) as e:
        read_visibilities(path, stokes="I")
    assert str(e.value) == (
        f"{path}: cannot form Stokes I: this MS holds XY only; choose Stokes XY"
    )
    vis = read_visibilities(path, stokes="XY")
    info = open_ms(path)
    assert tree_digest(path) == before
    data, uvw, ws, a1, a2 = _raw(path, "DATA", "UVW", "WEIGHT_SPECTRUM", "ANTENNA1", "ANTENNA2")
    cross = a1 != a2
    assert vis.vis.shape == (cross.sum(), 11)
    np.testing.assert_array_equal(vis.vis, data[cross][..., 0])
    np.testing.assert_array_equal(vis.uvw, uvw[cross])
    np.testing.assert_array_equal(vis.weight, ws[cross][..., 0])
    np.testing.assert_array_equal(vis.freq_hz, _sub(path, "SPECTRAL_WINDOW", "CHAN_FREQ")[0])
    assert vis.weight_source == "WEIGHT_SPECTRUM"
    assert info.telescope == "PAPER" and info.correlations == {0: ("XY",)}
    assert info.nrows == 285 and info.antennas_with_data == 6
