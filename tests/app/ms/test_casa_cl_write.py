"""CASA component lists written by uvlab: the columns read directly with casacore, and CASA."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.support.cli import error_line, run_cli
from uvlab.app.ms.casa_cl_write import write_casa_cl
from uvlab.app.skymodel import SkyModelError
from uvlab.app.skymodel.casa_cl import read_component_list
from uvlab.app.skymodel.component import Component
from uvlab.app.skymodel.sky_model import SkyModel

AS = math.pi / 648000  # radians per arcsec
MODEL = SkyModel(
    (
        Component("bright", "point", 150.123456789, 30.0512345678, (2.5, 0.1, -0.2, 0.05),
                  1.5e9, -0.7),
        Component("blob", "gaussian", 359.99, -89.5, (0.3, 0.01, 0.02, -0.03), 1.4e9, 0.0,
                  20.0, 8.0, 35.0),
        Component("flat", "point", 0.001, 0.0, (1.0, 0.0, 0.0, 0.0), 1.0e8, 1.25),
    ),
    "test",
)  # fmt: skip


def _columns(path):
    from casacore import tables

    with tables.table(str(path), ack=False) as tab:
        cols = {c: [tab.getcell(c, i) for i in range(tab.nrows())] for c in tab.colnames()}
        kw = {c: tab.getcolkeywords(c) for c in ("Reference_Direction", "Reference_Frequency")}
        return cols, kw, tab.info()["type"]


def test_columns_hold_the_components(tmp_path):
    path = write_casa_cl(MODEL, tmp_path / "out.cl")
    cols, kw, kind = _columns(path)
    assert kind == "Component List"
    assert kw["Reference_Direction"]["QuantumUnits"] == ["rad", "rad"]
    assert kw["Reference_Direction"]["MEASINFO"]["type"] == "direction"
    assert kw["Reference_Frequency"]["QuantumUnits"] == ["Hz"]
    assert cols["Shape"] == ["Point", "Gaussian", "Point"]
    assert cols["Label"] == ["bright", "blob", "flat"]
    assert cols["Direction_Frame"] == ["J2000"] * 3
    assert cols["Flux_Unit"] == ["Jy"] * 3 and cols["Flux_Polarisation"] == ["Stokes"] * 3
    for c, flux, direction in zip(MODEL, cols["Flux"], cols["Reference_Direction"]):
        np.testing.assert_array_equal(flux, np.array(c.stokes, complex))
        # RA/Dec to 1e-9 arcsec: the radians are the degrees' exact conversion
        assert abs(math.degrees(direction[0]) - c.ra_deg) * 3600 < 1e-9
        assert abs(math.degrees(direction[1]) - c.dec_deg) * 3600 < 1e-9
    assert cols["Spectrum_Shape"] == ["Spectral Index", "Constant", "Spectral Index"]
    assert [list(p) for p in cols["Spectral_Parameters"]] == [[-0.7], [], [1.25]]
    assert cols["Reference_Frequency"] == [1.5e9, 1.4e9, 1.0e8]
    assert list(cols["Shape_Parameters"][0]) == []
    np.testing.assert_allclose(
        cols["Shape_Parameters"][1], [20 * AS, 8 * AS, math.radians(35.0)], rtol=1e-15
    )


def test_reads_back_to_the_same_model(tmp_path):
    back = read_component_list(write_casa_cl(MODEL, tmp_path / "out.cl"))
    for a, b in zip(MODEL, back):
        assert (a.name, a.kind, a.stokes, a.ref_freq_hz) == (b.name, b.kind, b.stokes,
                                                              b.ref_freq_hz)  # fmt: skip
        assert b.spectral_index == pytest.approx(a.spectral_index, abs=1e-15)
        assert abs(a.ra_deg - b.ra_deg) * 3600 < 1e-9 and abs(a.dec_deg - b.dec_deg) * 3600 < 1e-9
        assert (b.major_arcsec, b.minor_arcsec, b.pa_deg) == pytest.approx(
            (a.major_arcsec, a.minor_arcsec, a.pa_deg), rel=1e-12
        )


def test_cli_convert_refuses_then_overwrites_with_force(tmp_path):
    out = tmp_path / "sky.cl"
    rc, text, _ = run_cli("sky", "convert", "teaching", str(out), "--format", "casa-cl")
    assert rc == 0 and "casa-cl format" in text
    first = len(read_component_list(out))
    rc, _, err = run_cli("sky", "convert", "teaching", str(out), "--format", "casa-cl")
    assert rc == 1 and "already exists" in error_line(err) and "sky.cl" in error_line(err)
    rc, _, _ = run_cli(
        "sky", "convert", "random", str(out), "--format", "casa-cl", "--n", "7", "--force"
    )
    assert rc == 0 and len(read_component_list(out)) == 7 != first
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sky.cl"]  # no build folder left


def test_a_curved_spectrum_is_refused(tmp_path):
    curved = Component("c", "point", 10.0, 20.0, (1.0, 0, 0, 0), 1e9, 0.0,
                       spectral_terms=(-0.7, 0.1))  # fmt: skip
    with pytest.raises(SkyModelError, match="curved spectrum"):
        write_casa_cl(SkyModel((curved,), "x"), tmp_path / "c.cl")
    assert not (tmp_path / "c.cl").exists()


@pytest.mark.casa
def test_casa_componentlist_reads_it(tmp_path):
    casatools = pytest.importorskip("casatools")
    path = write_casa_cl(MODEL, tmp_path / "out.cl")
    cl = casatools.componentlist()
    cl.open(str(path))
    try:
        assert cl.length() == len(MODEL)
        for i, c in enumerate(MODEL):
            comp = cl.getcomponent(i)
            assert comp["shape"]["type"] == c.kind.capitalize()
            np.testing.assert_allclose(comp["flux"]["value"], c.stokes, rtol=0, atol=0)
            assert comp["flux"]["unit"] == "Jy"
            d = comp["shape"]["direction"]
            assert d["refer"] == "J2000" and d["m0"]["unit"] == d["m1"]["unit"] == "rad"
            ra = math.degrees(d["m0"]["value"]) % 360.0
            assert abs(ra - c.ra_deg) * 3600 < 1e-9
            assert abs(math.degrees(d["m1"]["value"]) - c.dec_deg) * 3600 < 1e-9
            spectrum = comp["spectrum"]
            freq = spectrum["frequency"]["m0"]
            assert freq["value"] * {"Hz": 1, "MHz": 1e6, "GHz": 1e9}[freq["unit"]] == (
                pytest.approx(c.ref_freq_hz, rel=1e-15)
            )
            if c.spectral_index:
                assert spectrum["type"] == "Spectral Index"
                assert spectrum["index"] == c.spectral_index
            else:
                assert spectrum["type"] == "Constant"
            if c.kind == "gaussian":
                s = comp["shape"]
                assert s["majoraxis"]["unit"] == "arcmin"
                assert s["majoraxis"]["value"] * 60 == pytest.approx(c.major_arcsec, rel=1e-12)
                assert s["minoraxis"]["value"] * 60 == pytest.approx(c.minor_arcsec, rel=1e-12)
                assert s["positionangle"]["value"] == pytest.approx(c.pa_deg, rel=1e-12)
    finally:
        cl.close()
