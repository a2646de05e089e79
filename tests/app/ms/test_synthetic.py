"""Reading synthetic MSs of known contents: orders, fields, windows, weights, chunks."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.ms_factory import make_ms, tree_digest
from uvlab.app.ms import Cancelled, open_ms, read_visibilities

FIELDS = (("CAL", 1.0, -0.5), ("TARGET", 2.0, 0.3))
IQUV = ((1.0, 0.2, -0.3, 0.1), (2.0, -0.4, 0.25, -0.6))


def _expected(ms, field, spw, k):
    """Stokes k (0..3) of the field times each row's gain: (row, chan)."""
    rows = ms.rows(field, spw)
    return np.array([ms.gain[r] for r in rows]) * ms.field_iquv[field][k]


@pytest.mark.parametrize("corr_types", [(9, 12, 10, 11), (5, 8, 6, 7), (12, 11, 10, 9)])
def test_odd_correlation_orders_give_known_stokes(tmp_path, rng, corr_types):
    ms = make_ms(tmp_path / "odd.ms", rng, corr_types=corr_types, fields=FIELDS,
                 field_iquv=IQUV, spw_nchan=(3, 5))  # fmt: skip
    for field in (0, 1):
        for spw in (0, 1):
            for k, s in enumerate("IQUV"):
                vis = read_visibilities(ms.path, field=field, spw=spw, stokes=s)
                np.testing.assert_allclose(vis.vis, _expected(ms, field, spw, k), atol=2e-6)
                np.testing.assert_array_equal(vis.rows, ms.rows(field, spw))
                np.testing.assert_array_equal(vis.freq_hz, ms.freqs[spw])
                assert (vis.ra0_rad, vis.dec0_rad) == ms.field_dirs[field]


def test_fields_by_name_spws_and_summary(tmp_path, rng):
    ms = make_ms(tmp_path / "multi.ms", rng, fields=FIELDS, field_iquv=IQUV, spw_nchan=(2, 7),
                 ntime=4)  # fmt: skip
    vis = read_visibilities(ms.path, field="TARGET", spw=1, stokes="Q")
    rows = ms.rows(1, 1)
    assert vis.field == 1 and vis.field_name == "TARGET" and vis.spw == 1
    assert vis.vis.shape == (len(rows), 7)
    np.testing.assert_array_equal(vis.time, ms.time[rows])
    np.testing.assert_array_equal(vis.ant2, ms.ant2[rows])
    np.testing.assert_array_equal(vis.uvw, ms.uvw[rows])
    info = open_ms(ms.path)
    assert [f.name for f in info.fields] == ["CAL", "TARGET"]
    assert [f.nrows for f in info.fields] == [int((ms.field_id == k).sum()) for k in (0, 1)]
    assert [s.nchan for s in info.spws] == [2, 7]
    flags = np.concatenate([f.ravel() for f in ms.flag])
    assert info.flagged_fraction == pytest.approx(flags.mean())


def test_channels_and_time_range(tmp_path, rng):
    ms = make_ms(tmp_path / "chan.ms", rng, spw_nchan=(8,), ntime=3)
    full = read_visibilities(ms.path, stokes="U")
    part = read_visibilities(ms.path, stokes="U", channels=slice(1, 8, 3))
    np.testing.assert_array_equal(part.vis, full.vis[:, 1:8:3])
    np.testing.assert_array_equal(part.flag, full.flag[:, 1:8:3])
    np.testing.assert_array_equal(part.freq_hz, ms.freqs[0][[1, 4, 7]])
    late = read_visibilities(ms.path, stokes="U", time_range=(ms.time[0] + 5, ms.time.max()))
    np.testing.assert_array_equal(late.rows, full.rows[full.time >= ms.time[0] + 5])


def test_weight_sources(tmp_path, rng):
    spec = make_ms(tmp_path / "ws.ms", rng, weight_spectrum=True, corr_types=(9, 12))
    rows = spec.rows(0, 0)
    vis = read_visibilities(spec.path, stokes="I")
    ws = np.array([spec.weight_spectrum[r] for r in rows])
    assert vis.weight_source == "WEIGHT_SPECTRUM"
    np.testing.assert_allclose(vis.weight, 4 / (1 / ws[..., 0] + 1 / ws[..., 1]), rtol=1e-6)

    plain = make_ms(tmp_path / "w.ms", rng, corr_types=(9, 12))
    vis = read_visibilities(plain.path, stokes="YY")
    assert vis.weight_source == "WEIGHT"
    np.testing.assert_array_equal(vis.weight, np.repeat(plain.weight[rows, 1:2], 4, axis=1))

    sigma = make_ms(tmp_path / "s.ms", rng, corr_types=(9, 12), weight_zero=True)
    vis = read_visibilities(sigma.path, stokes="XX")
    assert vis.weight_source == "SIGMA"
    expected = 1.0 / sigma.sigma[rows, 0].astype(np.float64) ** 2
    np.testing.assert_allclose(vis.weight, np.repeat(expected[:, None], 4, axis=1), rtol=1e-6)


def test_flags_and_flag_row(tmp_path, rng):
    ms = make_ms(tmp_path / "f.ms", rng, flag_fraction=0.3, flag_rows=(1, 5))
    rows = ms.rows(0, 0)
    vis = read_visibilities(ms.path, stokes="V")  # from XY and YX
    expected = np.array([ms.flag[r][:, [1, 2]].any(-1) for r in rows])
    expected |= ms.flag_row[rows][:, None]
    np.testing.assert_array_equal(vis.flag, expected)
    assert np.isin(rows, (1, 5)).sum() == 2 and vis.flag[np.isin(rows, (1, 5))].all()


def test_chunked_read_equals_one_shot_with_progress_and_cancel(tmp_path, rng):
    ms = make_ms(tmp_path / "c.ms", rng, ntime=5)
    before = tree_digest(ms.path)
    whole = read_visibilities(ms.path, stokes="I", chunk_rows=10_000)
    fractions = []
    chunked = read_visibilities(ms.path, stokes="I", chunk_rows=7, progress=fractions.append)
    for name in ("vis", "weight", "flag", "uvw", "time", "ant1", "ant2", "rows"):
        np.testing.assert_array_equal(getattr(chunked, name), getattr(whole, name))
    n = whole.nrow
    assert fractions == [min(n, k) / n for k in range(7, n + 7, 7)]
    calls = []

    def cancel_after_two():
        calls.append(1)
        return len(calls) > 2

    with pytest.raises(Cancelled):
        read_visibilities(ms.path, chunk_rows=7, cancelled=cancel_after_two)
    assert len(calls) == 3
    assert tree_digest(ms.path) == before
