"""The default Stokes product comes from what the MS holds (an XY-only MS images XY).

Oracles: the raw columns read with casacore, and the direct DFT of them
(tests.support.oracles.dft_image).
"""

from __future__ import annotations

import numpy as np
import pytest
from casacore import tables

from tests.support.cli import run_cli
from tests.support.oracles import C_LIGHT, dft_image
from uvlab.app.lab.imaging import ImagingOptions
from uvlab.app.lab.jobs import JobRequest, MSSelection
from uvlab.app.lab.live import run_job
from uvlab.app.ms import MSError, open_ms, read_visibilities
from uvlab.app.ms.stokes import AUTO, default_stokes, recipe


def _raw(path, *cols, sub=None):
    t = tables.table(f"{path}/{sub}" if sub else str(path), readonly=True, ack=False)
    try:
        return [t.getcol(c) for c in cols]
    finally:
        t.close()


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (("XX", "XY", "YX", "YY"), "I"),
        (("YY", "XX"), "I"),
        (("RR", "RL", "LR", "LL"), "I"),
        (("I", "Q", "U", "V"), "I"),
        (("I",), "I"),
        (("XY",), "XY"),
        (("YX", "XY"), "YX"),
        (("XX", "XY"), "XX"),  # I needs YY too
        (("RR", "YY"), "RR"),  # mixed feeds form no I
        (("Q", "U"), "Q"),
    ],
)
def test_default_is_stokes_i_when_it_can_be_formed(names, expected):
    assert default_stokes(names) == expected
    assert recipe(names, AUTO).name == expected
    assert recipe(names, "Auto").name == expected  # case-insensitive, as every product


def test_no_correlations_is_an_error():
    with pytest.raises(MSError, match="holds no correlations"):
        default_stokes(())


def test_real_ms_defaults(ms_copy):
    paper, lwa = ms_copy("paper_xy.ms"), ms_copy("lwasv_4ant.ms")
    (types,) = _raw(paper, "CORR_TYPE", sub="POLARIZATION")
    assert list(types[0]) == [10]  # XY alone
    assert default_stokes(open_ms(paper)) == "XY"
    assert default_stokes(open_ms(lwa)) == "I"  # XX XY YX YY
    assert read_visibilities(lwa).stokes == "I"
    vis = read_visibilities(paper)  # the reader's default is the MS's own product
    assert vis.stokes == "XY"
    data, a1, a2 = _raw(paper, "DATA", "ANTENNA1", "ANTENNA2")
    np.testing.assert_array_equal(vis.vis, data[a1 != a2][..., 0])


def test_paper_xy_images_its_correlation_through_the_lab(ms_copy):
    """The lab's MS job with the default product gives the DFT of the raw XY column."""
    path = ms_copy("paper_xy.ms")
    request = JobRequest(
        "ms",
        ImagingOptions(npix=32, algorithm="dft"),
        "cpu",
        ms=MSSelection(str(path), stokes=AUTO),
        preview=False,
    )
    out = run_job(request)
    assert "DATA XY" in out.description
    assert np.isfinite(out.dirty).all() and out.psf.max() == pytest.approx(1.0)
    data, flag, flag_row, ws, uvw, a1, a2 = _raw(
        path, "DATA", "FLAG", "FLAG_ROW", "WEIGHT_SPECTRUM", "UVW", "ANTENNA1", "ANTENNA2"
    )
    (freq,) = _raw(path, "CHAN_FREQ", sub="SPECTRAL_WINDOW")
    cross = a1 != a2
    keep = ~(flag[cross][..., 0] | flag_row[cross][:, None])
    w = ws[cross][..., 0] * keep
    scale = freq[0][None, :] / C_LIGHT
    u, v = (np.broadcast_to(uvw[cross][:, k, None] * scale, w.shape) for k in range(2))
    # uvlab's dft reference has no w-term (gpu/gridders/dft.py), nor has this sum
    ref = dft_image(u[keep], v[keep], (w * data[cross][..., 0])[keep], out.spec) / w.sum()
    peak = np.abs(ref).max()
    assert peak > 0
    # the column is complex64: the weighted products are single precision
    np.testing.assert_allclose(out.dirty, ref, rtol=0, atol=1e-6 * peak)


def test_lwasv_default_is_stokes_i_and_stays_inside_the_horizon(ms_copy):
    """lwasv's 40 MHz, 4-station baselines would give a 5.8° automatic cell: 512 of it is 52 rad."""
    path = ms_copy("lwasv_4ant.ms")
    out = run_job(
        JobRequest("ms", ImagingOptions(npix=512), "cpu", ms=MSSelection(str(path), stokes=AUTO))
    )
    assert "DATA I" in out.description
    assert out.spec.npix * out.spec.cell_rad <= 2.0
    assert np.isfinite(out.dirty).all() and out.psf.max() == pytest.approx(1.0, abs=1e-6)


def test_cli_stokes_default_is_auto(ms_copy, tmp_path):
    from astropy.io import fits

    path = ms_copy("paper_xy.ms")
    code, out, err = run_cli("image", "--help")
    assert code == 0 and "default auto" in " ".join(out.split())
    code, out, err = run_cli("image", "--ms", path, "--npix", 32, "--device", "cpu",
                             "--out", tmp_path / "p")  # fmt: skip
    assert code == 0, err
    assert "Stokes XY" in out
    assert fits.getheader(tmp_path / "p-dirty.fits")["CRVAL4"] == -7  # FITS code of XY
    code, out, err = run_cli("image", "--ms", path, "--stokes", "I", "--out", tmp_path / "q")
    assert code == 1
    assert err.strip().endswith("cannot form Stokes I: this MS holds XY only; choose Stokes XY")
