"""Polarised beam patterns (uvlab.app.instrument.beam_pattern): names, round trip, what is refused.

Oracles: the file names codex-africanus' ``beam_filenames`` documents for
``beam_$(corr)_$(reim).fits`` and ``beam_$(CORR)_$(REIM).fits``; the data written (a
round trip is exact); Montblanc's rule that a missing file is 0 for its element and part.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from astropy.io import fits

from uvlab.app.instrument.beam_cube import BeamCubeError, write_beam_cube
from uvlab.app.instrument.beam_pattern import (
    is_pattern,
    load_beam_pattern,
    pattern_filenames,
    pattern_of,
    write_beam_pattern,
)

AXES = ((-0.03, 0.01, 7), (-0.02, 0.01, 5), (1.0e9, 2e8, 2))


def random_jones(rng, shape=(2, 5, 7)):
    return rng.standard_normal((*shape, 2, 2)) + 1j * rng.standard_normal((*shape, 2, 2))


def test_file_names_follow_africanus():
    names = pattern_filenames("beam_$(corr)_$(reim).fits", "linear")
    assert names["xx", "re"] == "beam_xx_re.fits"
    assert names["xy", "im"] == "beam_xy_im.fits"
    assert names["yy", "im"] == "beam_yy_im.fits"
    assert len(names) == 8
    upper = pattern_filenames("beam_$(CORR)_$(REIM).fits", "circular")
    assert upper["rl", "re"] == "beam_RL_RE.fits" and upper["ll", "im"] == "beam_LL_IM.fits"
    assert pattern_filenames("a$$b_$(corr)$(reim).fits", "linear")["yx", "re"] == "a$b_yxre.fits"
    assert is_pattern("b_$(corr)_$(reim).fits") and not is_pattern("beam.fits")


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("b_$(corr).fits", "needs both"),
        ("b_$(reim).fits", "needs both"),
        ("b_$(corr)_$(reim)_$(chan).fits", "unknown placeholder"),
        ("b_$corr_$(corr)_$(reim).fits", "'\\$'"),
    ],
)
def test_bad_patterns(pattern, message):
    with pytest.raises(BeamCubeError, match=message) as info:
        pattern_filenames(pattern, "linear")
    assert pattern in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("feeds", ["linear", "circular"])
def test_round_trip(tmp_path, feeds):
    rng = np.random.default_rng(1)
    data = random_jones(rng)
    pattern = str(tmp_path / "b_$(corr)_$(reim).fits")
    written = write_beam_pattern(pattern, data, *AXES, feeds=feeds)
    assert len(written) == 8 and all(tmp_path.joinpath(w).is_file() for w in written)
    cube = load_beam_pattern(pattern)
    assert cube.jones and cube.feeds == feeds and cube.source == pattern
    np.testing.assert_array_equal(cube.data, data)
    assert cube.l_axis == pytest.approx(AXES[0]) and cube.freq_axis == pytest.approx(AXES[2])
    # on a node, sampling gives the 2×2 matrix there: (ν 1, m 3, l 4)
    lmn = np.array([[0.01, 0.01, math.sqrt(1 - 2e-4)]])
    e = cube.sample(lmn, [1.2e9])
    assert e.shape == (1, 1, 1, 1, 2, 2)
    np.testing.assert_allclose(e[0, 0, 0, 0], data[1, 3, 4], rtol=1e-10)


def test_missing_files_are_zero_but_the_diagonal_real_parts_are_required(tmp_path):
    rng = np.random.default_rng(2)
    data = random_jones(rng)
    pattern = str(tmp_path / "b_$(corr)_$(reim).fits")
    write_beam_pattern(pattern, data, *AXES)
    for name in ("xy_re", "xy_im", "yx_im", "yy_im"):
        (tmp_path / f"b_{name}.fits").unlink()
    cube = load_beam_pattern(pattern)
    want = data.copy()
    want[..., 0, 1] = 0
    want[..., 1, 0] = want[..., 1, 0].real
    want[..., 1, 1] = want[..., 1, 1].real
    np.testing.assert_array_equal(cube.data, want)
    (tmp_path / "b_yy_re.fits").unlink()
    with pytest.raises(BeamCubeError, match="no such file") as info:
        load_beam_pattern(pattern)
    assert str(tmp_path / "b_yy_re.fits") in str(info.value) and "\n" not in str(info.value)


def test_only_diagonal_real_files(tmp_path):
    """Two files, xx_re and yy_re: a real, leakage-free beam (what Montblanc assumes)."""
    e = np.random.default_rng(3).random((1, 5, 7))
    for corr, scale in (("xx", 1.0), ("yy", 0.5)):
        write_beam_cube(tmp_path / f"b_{corr}_re.fits", scale * e, *AXES[:2], (1.4e9, 1.0, 1))
    cube = load_beam_pattern(str(tmp_path / "b_$(corr)_$(reim).fits"))
    np.testing.assert_array_equal(cube.data[..., 0, 0], e)
    np.testing.assert_array_equal(cube.data[..., 1, 1], 0.5 * e)
    assert not np.any(cube.data[..., 0, 1]) and not np.any(cube.data[..., 1, 0])


def test_refused_sets_are_one_line_naming_the_file(tmp_path):
    rng = np.random.default_rng(4)
    pattern = str(tmp_path / "b_$(corr)_$(reim).fits")
    with pytest.raises(BeamCubeError, match="no beam file matches"):
        load_beam_pattern(pattern)
    write_beam_pattern(pattern, random_jones(rng), *AXES)
    # another grid: a shifted l axis, another step in m, fewer frequency planes
    for bad_axes, axis in (
        (((-0.02, 0.01, 7), AXES[1], AXES[2]), "l axis"),
        ((AXES[0], (-0.02, 0.011, 5), AXES[2]), "m axis"),
        ((AXES[0], AXES[1], (1.0e9, 2e8, 1)), "frequency axis"),
    ):
        shape = (bad_axes[2][2], 5, 7)
        write_beam_cube(tmp_path / "b_xy_im.fits", rng.random(shape), *bad_axes)
        with pytest.raises(BeamCubeError, match=axis) as info:
            load_beam_pattern(pattern)
        msg = str(info.value)
        assert str(tmp_path / "b_xy_im.fits") in msg and "same grid" in msg and "\n" not in msg
    # a non-finite value
    bad = rng.random((2, 5, 7))
    bad[1, 2, 3] = np.nan
    write_beam_cube(tmp_path / "b_xy_im.fits", bad, *AXES)
    with pytest.raises(BeamCubeError, match="non-finite") as info:
        load_beam_pattern(pattern)
    assert str(tmp_path / "b_xy_im.fits") in str(info.value)
    # no WCS
    fits.PrimaryHDU(np.ones((2, 5, 7))).writeto(tmp_path / "b_xy_im.fits", overwrite=True)
    with pytest.raises(BeamCubeError, match="WCS") as info:
        load_beam_pattern(pattern)
    assert str(tmp_path / "b_xy_im.fits") in str(info.value)
    # files of both bases
    write_beam_pattern(pattern, random_jones(rng), *AXES)
    write_beam_cube(tmp_path / "b_rr_re.fits", rng.random((2, 5, 7)), *AXES)
    with pytest.raises(BeamCubeError, match=r"linear .* and circular"):
        load_beam_pattern(pattern)


def test_writer_refuses_non_jones_data(tmp_path):
    with pytest.raises(ValueError, match=r"\(freq, m, l, 2, 2\)"):
        write_beam_pattern(str(tmp_path / "b_$(corr)_$(reim).fits"), np.ones((2, 5, 7)), *AXES)
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize(
    ("written", "picked", "want"),
    [
        ("b_$(corr)_$(reim).fits", "b_yx_im.fits", "b_$(corr)_$(reim).fits"),
        ("B$(CORR)$(REIM).fits", "BXXRE.fits", "B$(CORR)$(REIM).fits"),
        ("c$$_$(corr)_$(reim).fits", "c$_rr_re.fits", "c$$_$(corr)_$(reim).fits"),
        ("rr_$(corr)_$(reim).fits", "rr_xx_re.fits", "rr_$(corr)_$(reim).fits"),
    ],
)
def test_a_picked_file_names_its_set(tmp_path, written, picked, want):
    """What a file dialog returns becomes the pattern --primary-beam takes, and loads."""
    feeds = "circular" if "rr_re" in picked else "linear"
    data = random_jones(np.random.default_rng(3))
    write_beam_pattern(str(tmp_path / written), data, *AXES, feeds=feeds)
    pattern = pattern_of(str(tmp_path / picked))
    assert pattern == str(tmp_path / want)
    np.testing.assert_array_equal(load_beam_pattern(pattern).data, data)


def test_a_file_of_no_set_names_none(tmp_path):
    write_beam_cube(tmp_path / "beam.fits", np.ones((1, 5, 7)), *AXES[:2], (1e9, 1.0, 1))
    assert pattern_of(str(tmp_path / "beam.fits")) is None
    # a set's name, but without the diagonal's real parts beside it
    write_beam_cube(tmp_path / "b_xx_re.fits", np.ones((1, 5, 7)), *AXES[:2], (1e9, 1.0, 1))
    assert pattern_of(str(tmp_path / "b_xx_re.fits")) is None
