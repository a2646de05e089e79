"""The reader's parts (``read_visibilities(row_range=…)``, what every Dask chunk reads).

Oracles: the MS's known contents (tests/support/ms_factory.py: each row holds its field's
brightness times a known gain) and the whole selection read at once, itself checked against
those contents in test_synthetic.py. Parts of any split, joined, must be the whole read to
the bit — rows interleaved with autocorrelations and another window (runs of rows), rows
consecutive in the main table, every Stokes product, a channel selection, WEIGHT_SPECTRUM,
non-finite values — and a part read after the MS changed must see the change.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from tests.support.ms_factory import make_ms
from uvlab.app.ms import read_visibilities
from uvlab.app.ms.reader import count_rows
from uvlab.app.ms.row_chunk import corrs_for

FIELDS = (("CAL", 1.0, -0.5), ("TARGET", 2.0, 0.3))
IQUV = ((1.0, 0.2, -0.3, 0.1), (2.0, -0.4, 0.25, -0.6))
ARRAYS = ("uvw", "vis", "weight", "flag", "time", "ant1", "ant2", "rows")


@pytest.fixture(scope="module")
def ms(tmp_path_factory):
    from casacore import tables

    path = tmp_path_factory.mktemp("parts") / "parts.ms"
    made = make_ms(path, np.random.default_rng(3), fields=FIELDS, field_iquv=IQUV,
                   spw_nchan=(6, 3), ntime=4, nant=5, weight_spectrum=True,
                   flag_rows=(4, 17))  # fmt: skip
    with tables.table(str(path), readonly=False, ack=False) as t:  # non-finite values
        for r, c, k in ((5, 1, 0), (12, 4, 3), (30, 0, 1)):
            if t.getcell("DATA_DESC_ID", r) == 0:
                cell = t.getcell("DATA", r)
                cell[c, k] = np.nan
                t.putcell("DATA", r, cell)
    return made


def split(n: int, cuts) -> list[tuple[int, int]]:
    edges = [0, *cuts, n]
    return list(itertools.pairwise(edges))


def joined(parts):
    return {a: np.concatenate([getattr(p, a) for p in parts]) for a in ARRAYS}


@pytest.mark.parametrize("stokes", ["I", "Q", "U", "V", "XY", "YY"])
@pytest.mark.parametrize("channels", [None, (1, 5)])
def test_parts_joined_are_the_whole_read(ms, stokes, channels):
    kw = dict(field=1, spw=0, stokes=stokes, channels=channels)
    whole = read_visibilities(ms.path, **kw)
    n = count_rows(ms.path, **kw)
    assert n == whole.nrow and np.any(np.diff(whole.rows) > 1)  # rows in runs
    for cuts in ([], [1], [3, 4, 11], list(range(1, n))):
        parts = [read_visibilities(ms.path, **kw, row_range=r) for r in split(n, cuts)]
        for a, got in joined(parts).items():
            np.testing.assert_array_equal(got, getattr(whole, a), err_msg=f"{a} {cuts}")
            assert got.dtype == getattr(whole, a).dtype
        assert {p.weight_source for p in parts} == {"WEIGHT_SPECTRUM"}
        assert sum(p.nonfinite_vis_samples for p in parts) == whole.nonfinite_vis_samples


def test_a_part_holds_the_known_visibilities(ms):
    rows = ms.rows(0, 1)
    for k, s in enumerate("IQUV"):
        part = read_visibilities(ms.path, field=0, spw=1, stokes=s, row_range=(2, 9))
        np.testing.assert_array_equal(part.rows, rows[2:9])
        want = np.array([ms.gain[r] for r in rows[2:9]]) * ms.field_iquv[0][k]
        np.testing.assert_allclose(part.vis, want, atol=2e-6)


def test_parts_of_consecutive_rows_and_a_changed_ms(tmp_path):
    from casacore import tables

    made = make_ms(tmp_path / "one.ms", np.random.default_rng(5), autocorr=False, ntime=3,
                   nant=4)  # fmt: skip
    n = count_rows(made.path)
    part = read_visibilities(made.path, row_range=(2, 7))
    np.testing.assert_array_equal(part.rows, np.arange(2, 7))  # read from the main table
    np.testing.assert_array_equal(part.vis, read_visibilities(made.path).vis[2:7])
    with tables.table(str(made.path), readonly=False, ack=False) as t:  # the MS grows
        t.addrows(2)
        for col in ("UVW", "ANTENNA1", "ANTENNA2", "TIME", "DATA", "FLAG", "WEIGHT", "SIGMA"):
            t.putcell(col, n, t.getcell(col, 0))
            t.putcell(col, n + 1, t.getcell(col, 1))
        t.putcell("DATA", n + 1, t.getcell("DATA", 1) * 3)
    assert count_rows(made.path) == n + 2
    last = read_visibilities(made.path, row_range=(n, n + 2))  # not an old plan's rows
    np.testing.assert_array_equal(last.rows, [n, n + 1])
    first = read_visibilities(made.path, row_range=(0, 2))
    np.testing.assert_allclose(last.vis, first.vis * np.array([[1], [3]]), rtol=1e-6)
    with pytest.raises(ValueError, match="not within"):
        read_visibilities(made.path, row_range=(n, n + 3))


@pytest.mark.parametrize(
    ("used", "want"),
    [((0, 3), (0, 3, 3)), ((3, 0), (0, 3, 3)), ((1, 2), (1, 2, 1)), ((2,), (2, 2, 1)),
     ((0, 2, 3), (0, 3, 1))],
)  # fmt: skip
def test_only_the_correlations_used_are_taken(used, want):
    c = corrs_for(used, 4)
    assert (c.first, c.last, c.step) == want
    taken = list(range(c.first, c.last + 1, c.step))
    assert [taken[i] for i in c.local(used)] == list(used)
