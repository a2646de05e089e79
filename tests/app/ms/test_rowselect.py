"""Time-range, timestep and antenna selection on a real MS, against casacore's own selection."""

from __future__ import annotations

import numpy as np
import pytest
from astropy.io import fits
from astropy.time import Time
from casacore import tables

from tests.support.cli import run_cli
from uvlab.app.lab.jobs import MSSelection
from uvlab.app.lab.samples import WorkCache
from uvlab.app.ms import MSError

MS = "paper_xy.ms"  # PAPER: 19 timesteps, 6 antennas named '1' … '6' (and 58 more unused)


def _taql_rows(path, where: str) -> np.ndarray:
    t = tables.table(str(path), ack=False)
    try:
        q = t.query(f"FIELD_ID==0 AND ANTENNA1!=ANTENNA2 AND ({where})")
        return np.asarray(q.rownumbers())
    finally:
        t.close()


def _read(path, **kw):
    data, _ = WorkCache().ms_data(MSSelection(str(path), stokes="XY", **kw))
    return data


def _mjd_s(iso: str) -> float:
    return float(Time(iso, scale="utc").mjd * 86400.0)


def test_timerange_rows_are_casacores(ms_copy):
    path = ms_copy(MS)
    # the MS runs 2014-07-27 02:31:43.6 … 02:41:13.2 UTC, one integration every 31.6 s
    t0, t1 = _mjd_s("2014-07-27 02:33:00"), _mjd_s("2014-07-27 02:36:30")
    want = _taql_rows(path, f"TIME>={t0!r} AND TIME<={t1!r}")
    assert 0 < want.size < 285
    texts = ("02:33~02:36:30", "2014/07/27/02:33:00~02:36:30",
             "2014/07/27/02:33~2014/07/27/02:36:30.0")  # fmt: skip
    for text in texts:
        np.testing.assert_array_equal(_read(path, timerange=text).rows, want)
    np.testing.assert_array_equal(_read(path, timerange=">02:36:30").rows,
                                  _taql_rows(path, f"TIME>={t1!r}"))  # fmt: skip
    np.testing.assert_array_equal(_read(path, timerange="<02:33").rows,
                                  _taql_rows(path, f"TIME<={t0!r}"))  # fmt: skip


def test_interval_and_antenna_rows_are_numpys(ms_copy):
    path = ms_copy(MS)
    t = tables.table(str(path), ack=False)
    time, a1, a2 = (t.getcol(c) for c in ("TIME", "ANTENNA1", "ANTENNA2"))
    t.close()
    steps = np.unique(time)
    rows = np.arange(time.size)
    in_steps = np.isin(time, steps[4:9])
    np.testing.assert_array_equal(_read(path, interval=(4, 9)).rows, rows[in_steps])
    # indices from 0; names ('3' is antenna 2) with wildcards; baselines; negation
    cases = {
        "0,4": np.isin(a1, [0, 4]) | np.isin(a2, [0, 4]),
        "!2": (a1 != 2) & (a2 != 2),
        "0&1,3&5": ((a1 == 0) & (a2 == 1)) | ((a1 == 3) & (a2 == 5)),
        "[3]&*": (a1 == 2) | (a2 == 2),  # a name pattern: the antenna named '3'
        "0,1,!0&1": (np.isin(a1, [0, 1]) | np.isin(a2, [0, 1])) & ~((a1 == 0) & (a2 == 1)),
    }
    for text, mask in cases.items():
        got = _read(path, antenna=text).rows
        np.testing.assert_array_equal(got, rows[mask & (a1 != a2)], err_msg=text)
    both = _read(path, interval=(4, 9), antenna="!2").rows
    np.testing.assert_array_equal(both, rows[in_steps & (a1 != 2) & (a2 != 2)])


def test_image_equals_image_of_hand_selected_subset(ms_copy, tmp_path):
    path = ms_copy(MS)
    t = tables.table(str(path), ack=False)
    t0 = float(np.unique(t.getcol("TIME"))[3])
    sub = t.query(f"ANTENNA1!=2 AND ANTENNA2!=2 AND TIME>={t0!r}")  # casacore's selection
    sub.copy(str(tmp_path / "sub.ms"), deep=True)
    sub.close()
    t.close()
    day_s = np.floor(t0 % 86400.0 * 1e3) / 1e3  # a time of day just before timestep 3
    start = f"{int(day_s // 3600):02d}:{int(day_s % 3600 // 60):02d}:{day_s % 60:06.3f}"
    common = ("--npix", 64, "--cell-arcsec", 600, "--device", "cpu", "--no-png")
    code, _out, err = run_cli("image", "--ms", path, "--antenna", "!2", "--timerange",
                             f">{start}", *common, "--out", tmp_path / "sel")  # fmt: skip
    assert code == 0, err
    assert "selected 160 rows" in err  # 16 timesteps × the 10 baselines without antenna 2
    code, _, err = run_cli("image", "--ms", tmp_path / "sub.ms", *common, "--out", tmp_path / "sub")
    assert code == 0, err
    for kind in ("dirty", "psf"):
        a = fits.getdata(tmp_path / f"sel-{kind}.fits")
        b = fits.getdata(tmp_path / f"sub-{kind}.fits")
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    ("flags", "code", "words"),
    [  # usage errors (exit 2) before anything is read; data errors (exit 1) after
        (("--timerange", "02:99~03:00"), 2, "--timerange"),
        (("--timerange", "03:00~02:00"), 2, "before the start"),
        (("--timerange", "yesterday"), 2, "--timerange"),
        (("--interval", "5", "5"), 2, "A < B"),
        (("--interval", "-1", "5"), 2, "--interval"),
        (("--interval", "0", "3", "--timerange", ">02:33"), 2, "not allowed with"),
        (("--timerange", "2014/07/28/00:00~00:10"), 1, "no cross-correlation rows"),
        (("--interval", "30", "40"), 1, "19 timesteps"),
        (("--antenna", "70"), 1, "no antenna 70"),
        (("--antenna", "7"), 1, "no cross-correlation rows with antenna"),  # in ANTENNA, no rows
        (("--antenna", "ea*"), 1, "no antenna named"),
        (("--antenna", "0&1", "--interval", "0", "1"), 0, None),  # one baseline, one timestep
    ],
)
def test_bad_selections_say_which_flag(ms_copy, tmp_path, flags, code, words):
    path = ms_copy(MS)
    got, _, err = run_cli("image", "--ms", path, *flags, "--npix", 32, "--cell-arcsec", 600,
                          "--device", "cpu", "--no-png", "--out", tmp_path / "x")  # fmt: skip
    assert got == code, err
    if code:
        assert len(err.strip().splitlines()) == 1 and words in err, err
        assert not list(tmp_path.glob("x*"))


def test_selection_errors_are_ms_errors(ms_copy):
    with pytest.raises(MSError, match="no cross-correlation rows with antenna"):
        _read(ms_copy(MS), antenna="!0,!1,!2,!3,!4,!5")
