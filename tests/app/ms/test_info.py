"""``uvlab info``: text and JSON summaries of a MeasurementSet."""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys

import pytest
from astropy import units as u
from astropy.coordinates import Angle
from astropy.time import Time

from tests.support.ms_factory import make_ms, tree_digest
from uvlab.app.commands import info
from uvlab.app.ms import MSError


def _run(argv):
    parser = argparse.ArgumentParser(prog="uvlab")
    info.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    return args.func(args)


def test_info_text_on_lwasv(ms_copy, capsys):
    path = ms_copy("lwasv_4ant.ms")
    before = tree_digest(path)
    assert _run(["info", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Telescope       LWASV" in out
    assert "Antennas        4:" in out and "LWA001 LWA002 LWA003 LWA004" in out
    assert "Baselines       6 (autocorrelations present)" in out
    assert "Correlations    XX XY YX YY" in out
    assert "Data columns    DATA" in out and "Rows            10" in out
    when = Time(5040766819.119993 / 86400.0, format="mjd", scale="utc", precision=3)
    assert f"{when.isot} to {when.isot}" in out  # the one TIME of this MS
    ra = Angle(5.037063098970996 * u.rad).to_string(unit=u.hour, sep=":", precision=3)
    dec = Angle(0.5989124833138743 * u.rad).to_string(u.deg, sep=":", precision=2, alwayssign=True)
    assert f"{ra}  {dec}" in out  # FIELD::PHASE_DIR
    assert tree_digest(path) == before


def test_info_prints_the_ms_summary_text(ms_copy, capsys):
    from uvlab.app.ms import open_ms
    from uvlab.app.ms.format import format_info  # what the MS selector panel shows too

    path = ms_copy("paper_xy.ms")
    assert _run(["info", str(path)]) == 0
    assert capsys.readouterr().out == format_info(open_ms(path)) + "\n"


def test_info_json_parses(ms_copy, capsys):
    path = ms_copy("paper_xy.ms")
    assert _run(["info", str(path), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["telescope"] == "PAPER" and d["rows"] == 285
    assert d["correlations"] == {"0": ["XY"]}
    assert d["antennas"]["count"] == 64 and d["antennas"]["with_data"] == 6
    spw = d["spectral_windows"][0]
    assert spw["nchan"] == 11 and spw["first_freq_hz"] == 100e6
    assert d["fields"][0]["name"] == "zenith"
    assert d["time"]["integrations"] == 19


def test_info_lists_several_fields_and_windows(tmp_path, rng, capsys):
    ms = make_ms(tmp_path / "m.ms", rng, fields=(("A", 0.0, -math.pi / 6), ("B", math.pi, 0.0)),
                 field_iquv=((1, 0, 0, 0), (1, 0, 0, 0)), spw_nchan=(2, 3))  # fmt: skip
    _run(["info", str(ms.path)])
    out = capsys.readouterr().out
    assert "00:00:00.000  -30:00:00.00" in out and "12:00:00.000  +00:00:00.00" in out
    lines = [ln.split() for ln in out.splitlines()]
    assert ["1", "3", "1100.000000", "1000.000", "3.000000"] in lines


def test_info_error_is_an_msError(tmp_path):
    with pytest.raises(MSError, match="no such file or folder"):
        _run(["info", str(tmp_path / "missing.ms")])


def test_cli_prints_one_error_line(tmp_path, monkeypatch, capsys):
    from uvlab.app import cli

    monkeypatch.setattr(cli, "COMMANDS", ("info",))
    assert cli.main(["info", str(tmp_path / "missing.ms")]) == 1
    err = capsys.readouterr().err
    assert err == f"uvlab info: error: {tmp_path / 'missing.ms'}: no such file or folder\n"


def test_importing_the_command_and_package_stays_light():
    code = (
        "import sys, uvlab.app.commands.info, uvlab.app.ms, uvlab.app.ms.format; "
        "heavy = {'casacore', 'astropy'} & {m.split('.')[0] for m in sys.modules}; "
        "assert not heavy, heavy"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
