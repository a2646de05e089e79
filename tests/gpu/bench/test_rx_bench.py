"""Muscat's R(X) experiment (``uvlab bench aliasing --rx``) against independent computations.

Oracle: the float64 direct sum of the same unit point source at pixel (X, X),
written here, and the same records through the gridder called here; also
:func:`uvlab.gpu.aliasing.point_source_scan`. Setting: Muscat's (§8.2.2: PSWF
S = 6 table, σ = 1, β = 128, least-misfit pruners S_z = 14) on a 32² image so
that the NumPy pruned-nn fine grid (4096²) stays small.
"""

import numpy as np
import pytest

from uvlab.app.observing.layouts import load_layout
from uvlab.gpu.aliasing import point_source_scan
from uvlab.gpu.bench import grid_data, rx_bench
from uvlab.gpu.gridders.registry import get_gridder
from uvlab.gpu.image_spec import ImageSpec

NPIX, BETA, XS = 32, 128, (0, 7, 15)


@pytest.fixture(scope="module")
def report():
    ant = load_layout("meerkat").equatorial()
    return rx_bench.run_rx_bench(
        ant, device="cpu", npix=NPIX, beta=BETA, ntime=4, nchan=2, xs=XS, log=lambda _: None
    )


def dft_pixel(u, v, vis, l, m):
    """(1/Σw)·Re Σ V·exp(−2πi(u·l + v·m)), unit weights, float64 (DESIGN §1)."""
    return float(np.real(np.sum(vis * np.exp(-2j * np.pi * (u * l + v * m))))) / u.size


def test_rx_matches_the_dft_through_the_same_gridder(report):
    (scan,) = report["scans"]
    u, v = grid_data.make_uv(load_layout("meerkat").equatorial(), 4, 2)
    spec = ImageSpec(NPIX, grid_data.cell_for(u, v))
    assert scan["nvis"] == u.size and report["xs"] == list(XS)
    c = NPIX // 2
    for label, name, params in rx_bench.rx_columns(BETA):
        got = np.asarray(scan["r"][label])
        want = []
        for x in XS:
            l, m = -x * spec.cell_rad, x * spec.cell_rad
            vis = np.exp(2j * np.pi * (u * l + v * m))  # unit source at (l, m)
            ref = dft_pixel(u, v, vis, l, m)
            assert ref == pytest.approx(1.0, abs=1e-12)
            img = get_gridder(name)(u, v, vis, spec, params) / u.size
            want.append(abs(ref - img[c + x, c + x]))
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-13, err_msg=label)
        _, scan_r = point_source_scan(name, spec, params, u, v, xs=XS)
        np.testing.assert_allclose(got, scan_r, rtol=1e-6, atol=1e-13, err_msg=label)


def test_rx_setting_is_muscats():
    cols = {label: (name, p) for label, name, p in rx_bench.rx_columns(128)}
    assert set(cols) == {"pruned-nn", "hybrid", "conv", "conv exact"}
    for label, (_, p) in cols.items():
        assert (p.kernel, p.support, p.sigma, p.oversample) == ("pswf", 6, 1.0, 128)
        assert (p.prune_kernel, p.prune_support) == ("lm", 14)
        assert p.exact == (label == "conv exact")


def test_ranking_counts_each_x():
    r = {"pruned-nn": [0.0, 1e-6, 3.0], "hybrid": [1e-9, 2e-6, 2.0], "conv": [1e-8, 3e-6, 1.0]}
    rk = rx_bench.ranking(r)
    assert (rk["holds"], rk["of"], rk["fails_at"]) == (2, 3, [2])


def test_format_rx_table_shows_every_column(report):
    text = rx_bench.format_rx_table(report, show=XS)
    assert "| algorithm | X = 0 | X = 7 | X = 15 |" in text
    for label in ("pruned-nn", "hybrid", "conv", "conv exact"):
        assert f"| {label} | " in text
