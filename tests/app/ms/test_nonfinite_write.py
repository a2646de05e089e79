"""No non-finite visibility is ever written (issue 25, U4): the chunk is refused first.

A sky within the parsers' caps can still overflow: a power law of α = 100 about
ν0 = 1 MHz is (1400)^100 ≈ 1e314 at 1.4 GHz, inf in float64. ``uvlab predict``
(``--column DATA --overwrite``, the worst case) and ``uvlab simulate`` must refuse
with exit 1 and one line naming the component, and leave the MeasurementSet byte
for byte as it was (no new one for simulate). A component past a cap is refused
when the file is read, naming the file and line.
"""

from __future__ import annotations

import numpy as np
import pytest
from casacore import tables

from tests.support.cli import run_cli
from tests.support.ms_factory import data_digest

HEADER = "# uvlab sky model v1\n"
#: Finite, within every cap, and still inf once evaluated at 1.4 GHz.
STEEP = HEADER + "steep point 10.0 -30.0 1 0 0 0 100 1e6 0 0 0\n"
OBS = ("--array", "kat-7", "--ra", 10, "--dec", -30, "--ha-start", -0.5, "--ha-stop", 0.5,
       "--int-s", 600, "--device", "cpu")  # fmt: skip


@pytest.fixture(scope="module")
def small_ms(tmp_path_factory):
    folder = tmp_path_factory.mktemp("nonfinite")
    path = folder / "t.ms"
    code, _, err = run_cli("simulate", *OBS, "--sky", "point", "--out", path)
    assert code == 0, err
    return path


def _one_line(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    return lines[0]


def _digest(path):
    return {k: v for k, v in data_digest(path).items() if not k.endswith("table.lock")}


def test_predict_refuses_a_chunk_with_inf_and_leaves_data_unchanged(small_ms, tmp_path):
    sky = tmp_path / "steep.txt"
    sky.write_text(STEEP)
    t = tables.table(str(small_ms), ack=False)
    data = t.getcol("DATA")
    t.close()
    assert np.isfinite(data).all()
    before = _digest(small_ms)
    code, out, err = run_cli("predict", "--ms", small_ms, "--sky", sky, "--column", "DATA",
                             "--overwrite", "--device", "cpu")  # fmt: skip
    line = _one_line(err)
    assert code == 1 and out == ""
    assert line.startswith(f"uvlab predict: error: {small_ms}: DATA of rows 0–")
    assert "NaN or inf" in line and "sky component steep" in line
    assert "RuntimeWarning" not in err
    assert _digest(small_ms) == before
    t = tables.table(str(small_ms), ack=False)
    np.testing.assert_array_equal(t.getcol("DATA"), data)
    t.close()


def test_simulate_refuses_and_leaves_no_measurement_set(tmp_path):
    sky = tmp_path / "steep.txt"
    sky.write_text(STEEP)
    out = tmp_path / "new.ms"
    code, _, err = run_cli("simulate", *OBS, "--sky", sky, "--out", out)
    line = _one_line(err)
    assert code == 1 and "NaN or inf" in line and "sky component #1" in line, line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["steep.txt"]  # no MS, no build folder


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ("a point 10 -30 1e308 0 0 0 0 1.4e9 0 0 0", "line 2: I 1e+308 is beyond the physical"),
        ("a point 10 -30 1 0 0 -2e10 0 1.4e9 0 0 0", "line 2: V -2e+10 is beyond"),
        ("a gaussian 10 -30 1 0 0 0 0 1.4e9 1e300 1 0", "line 2: major axis 1e+300 is beyond"),
        ("a point 10 -30 1 0 0 0 1e300 1.4e9 0 0 0", "line 2: spectral_index 1e+300 is beyond"),
    ],
)
def test_values_past_the_caps_are_refused_naming_file_and_line(tmp_path, row, expected):
    sky = tmp_path / "sky.txt"
    sky.write_text(HEADER + row + "\n")
    code, _, err = run_cli("sky", "show", sky)
    assert code == 1 and f"sky.txt, {expected}" in _one_line(err)


def test_logarithmic_terms_past_the_cap_are_refused(tmp_path):
    sky = tmp_path / "ws.txt"
    sky.write_text(
        "Format = Name, Type, Ra, Dec, I, SpectralIndex, LogarithmicSI, ReferenceFrequency\n"
        "a,POINT,00:40:00,-30.00.00,1,[1e300,2],true,1.4e9\n"
    )
    code, _, err = run_cli("sky", "show", sky)
    assert code == 1 and "ws.txt, line 2: spectral term 1e+300 is beyond" in _one_line(err)
