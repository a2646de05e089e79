"""Gains tables (uvlab.app.instrument.gains_table): interpolation, feeds and refusals."""

from __future__ import annotations

import numpy as np
import pytest

from uvlab.app.instrument.gains_table import GainsTableError, read_gains_table

NAMES = ("a", "b")


def write(tmp_path, text):
    path = tmp_path / "g.txt"
    path.write_text(text)
    return path


def test_linear_interpolation_in_time_and_frequency(tmp_path):
    path = write(tmp_path, """# antenna time freq amp phase
a, 100, 1e9, 1.0, 0
a, 200, 1e9, 2.0, 40
a, 100, 2e9, 3.0, 0
a, 200, 2e9, 4.0, 80
b  *    *    0.5  -30
""")  # fmt: skip
    g = read_gains_table(path, NAMES).evaluate([150.0], [1.5e9], 2)
    assert g.shape == (1, 2, 1)
    # bilinear: amp (1 + 2 + 3 + 4)/4 = 2.5, phase (0 + 40 + 0 + 80)/4 = 30
    assert g[0, 0, 0] == pytest.approx(2.5 * np.exp(1j * np.radians(30.0)))
    assert g[0, 1, 0] == pytest.approx(0.5 * np.exp(-1j * np.radians(30.0)))


def test_feeds_give_diagonal_jones(tmp_path):
    path = write(tmp_path, "a * * 1 0 x\na * * 2 90 y\n1 * * 1 0\n")
    g = read_gains_table(path, NAMES).evaluate([0.0, 1.0], [1e9], 2)
    assert g.shape == (2, 2, 1, 2, 2)
    np.testing.assert_allclose(g[0, 0, 0], [[1, 0], [0, 2j]], atol=1e-15)
    np.testing.assert_allclose(g[1, 1, 0], np.eye(2))


def test_iso_times(tmp_path):
    path = write(tmp_path, "a 2025-03-20T00:00:00 * 1 0\na 2025-03-20T01:00:00 * 3 0\nb * * 1 0\n")
    t0 = 60754 * 86400.0  # MJD 60754 = 2025-03-20
    g = read_gains_table(path, NAMES).evaluate([t0 + 1800.0], [1e9], 2)
    assert abs(g[0, 0, 0]) == pytest.approx(2.0)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a * * 1 0\n", "no gains for antenna"),
        ("a * * 1 0\nb * * 1 0\nc * * 1 0\n", "'c' is not in the array"),
        ("a * * -1 0\nb * * 1 0\n", "amp must be"),
        ("a * * 1\nb * * 1 0\n", "expected"),
        ("a x * 1 0\nb * * 1 0\n", "time 'x'"),
        ("a 1 1e9 1 0\na 2 2e9 1 0\nb * * 1 0\n", "full grid"),
        ("a * * 1 0 z\nb * * 1 0\n", "feed"),
        ("a * * 1 0\na 5 * 1 0\nb * * 1 0\n", "mixes"),
    ],
)
def test_refused(tmp_path, text, message):
    with pytest.raises(GainsTableError, match=message) as info:
        read_gains_table(write(tmp_path, text), NAMES)
    assert "g.txt" in str(info.value)


def test_times_outside_the_table(tmp_path):
    table = read_gains_table(write(tmp_path, "a 10 * 1 0\na 20 * 1 0\nb * * 1 0\n"), NAMES)
    table.evaluate([12.0, 18.0], [1e9], 2)
    table.evaluate([9.0], [1e9], 2, tolerance_s=1.0)
    with pytest.raises(GainsTableError, match="times of antenna 0 cover 10–20"):
        table.evaluate([5.0, 15.0], [1e9], 2)
