"""CASA component lists: read from a table written with casacore, checked value by value."""

from __future__ import annotations

import math

import numpy as np
import pytest
from astropy.coordinates import SkyCoord

from tests.support.cli import run_cli
from tests.support.component_lists import write_component_list
from uvlab.app.skymodel import SkyModelError, load_sky
from uvlab.app.skymodel.casa_cl import DISK_FWHM_PER_DIAMETER, read_component_list

AS = math.pi / 648000  # radians per arcsec
ROWS = [
    dict(Label="bright src", Shape="Point",
         Reference_Direction=[math.radians(150.1), math.radians(30.05)],
         Flux=[2.5 + 0j, 0.1, -0.2, 0.05], Spectrum_Shape="Spectral Index",
         Spectral_Parameters=[-0.7, 0.0, 0.0, 0.0], Reference_Frequency=1.5e9),
    dict(Label="", Shape="Gaussian",
         Reference_Direction=[math.radians(149.9), math.radians(29.97)],
         Flux=[300.0 + 0j, 0, 0, 0], Flux_Unit="mJy",
         Shape_Parameters=[20 * AS, 8 * AS, math.radians(35.0)],
         Spectrum_Shape="Constant", Reference_Frequency=1.4e9),
    dict(Label="gal", Shape="Point", Reference_Direction=[math.radians(200.0), math.radians(45.0)],
         Direction_Frame="GALACTIC", Flux=[1.0 + 0j, 0, 0, 0], Reference_Frequency=1.0e9),
]  # fmt: skip


def test_components_are_the_table_rows(tmp_path):
    cl = write_component_list(tmp_path / "model.cl", ROWS)
    sky = load_sky(cl)  # a .cl folder, as --sky takes it
    assert [c.name for c in sky] == ["bright_src", "cl1", "gal"]
    a, b, g = sky.components
    assert (a.kind, a.ra_deg, a.dec_deg) == ("point", pytest.approx(150.1, abs=1e-12),
                                             pytest.approx(30.05, abs=1e-12))  # fmt: skip
    assert a.stokes == pytest.approx((2.5, 0.1, -0.2, 0.05))
    assert (a.spectral_index, a.ref_freq_hz) == (-0.7, 1.5e9)
    assert b.kind == "gaussian" and b.stokes == pytest.approx((0.3, 0, 0, 0))
    assert (b.major_arcsec, b.minor_arcsec, b.pa_deg) == pytest.approx((20.0, 8.0, 35.0))
    assert b.spectral_index == 0.0
    j2000 = SkyCoord(l=200.0, b=45.0, unit="deg", frame="galactic").fk5
    assert (g.ra_deg, g.dec_deg) == pytest.approx((j2000.ra.deg, j2000.dec.deg), abs=1e-10)


def test_disk_is_approximated_with_a_warning_and_refused_when_strict(tmp_path):
    rows = [dict(Shape="Disk", Reference_Direction=[1.0, 0.5], Flux=[1.0 + 0j, 0, 0, 0],
                 Shape_Parameters=[10 * AS, 10 * AS, 0.0], Reference_Frequency=1e9)]  # fmt: skip
    cl = write_component_list(tmp_path / "disk.cl", rows)
    lines = []
    (c,) = read_component_list(cl, report=lines.append).components
    assert c.kind == "gaussian" and c.major_arcsec == pytest.approx(10 * DISK_FWHM_PER_DIAMETER)
    # a uniform disk of radius R has variance R²/4 per axis; the Gaussian's FWHM is 2√(2 ln 2)·σ
    assert DISK_FWHM_PER_DIAMETER == pytest.approx(2 * math.sqrt(2 * math.log(2)) * 0.5 / 2)
    assert len(lines) == 1 and "disk" in lines[0] and "disk.cl" in lines[0]
    with pytest.raises(SkyModelError, match="--strict"):
        read_component_list(cl, strict=True)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"Shape": "LimbDarkenedDisk"}, "shape"),
        ({"Flux_Polarisation": "Linear"}, "only Stokes"),
        ({"Flux_Unit": "W/m2"}, "flux unit"),
        ({"Spectrum_Shape": "Tabular Spectrum"}, "spectrum"),
        ({"Direction_Frame": "AZEL"}, "direction frame"),
    ],
)
def test_unsupported_features_are_one_line_errors(tmp_path, change, words):
    cl = write_component_list(tmp_path / "bad.cl", [{**ROWS[0], **change}])
    code, _, err = run_cli("sky", "convert", cl, tmp_path / "out.txt")
    assert code == 1 and len(err.strip().splitlines()) == 1, err
    assert words in err and "bad.cl" in err and "row 0" in err
    assert not (tmp_path / "out.txt").exists()


def test_simulated_cl_equals_the_same_sky_written_by_hand(tmp_path):
    cl = write_component_list(tmp_path / "model.cl", ROWS[:2])
    text = tmp_path / "same.txt"
    text.write_text(
        "# uvlab sky model v1\n"
        f"a point {math.degrees(math.radians(150.1))!r} {math.degrees(math.radians(30.05))!r} "
        "2.5 0.1 -0.2 0.05 -0.7 1.5e9 0 0 0\n"
        f"b gaussian {math.degrees(math.radians(149.9))!r} {math.degrees(math.radians(29.97))!r} "
        "0.3 0 0 0 0 1.4e9 20 8 35\n"
    )
    vis = []
    for sky in (cl, text):
        out = tmp_path / f"{sky.stem}.ms"
        code, _, err = run_cli("simulate", "--array", "vla.d", "--ra", 150, "--dec", 30,
                               "--start", "2025-03-01T06:00:00", "--duration-h", 1,
                               "--int-s", 900, "--nchan", 2, "--sky", sky, "--device", "cpu",
                               "--out", out)  # fmt: skip
        assert code == 0, err
        from casacore.tables import table

        vis.append(table(str(out), ack=False).getcol("DATA"))
    assert np.abs(vis[0]).max() > 0.1
    np.testing.assert_allclose(vis[0], vis[1], rtol=0, atol=1e-6)


def test_without_a_report_an_approximation_is_a_python_warning(tmp_path):
    rows = [dict(Shape="Point", Reference_Direction=[1.0, 0.5], Flux=[1.0 + 0.5j, 0, 0, 0],
                 Reference_Frequency=1e9)]  # fmt: skip
    cl = write_component_list(tmp_path / "imag.cl", rows)
    (cl / "table.lock").unlink()  # the writer's
    with pytest.warns(UserWarning, match="imaginary"):
        (c,) = load_sky(cl).components
    assert c.stokes == (1.0, 0.0, 0.0, 0.0)
    assert not (cl / "table.lock").exists()  # the lock file casacore made when reading is gone
