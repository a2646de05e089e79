"""``uvlab image --wprojplanes``: w-projection from the command line, and its usage errors.

The scene of test_image_wstack_clean: a 1 Jy source 2.1° out on VLA-D at 150 MHz (a
4.3° field of 120″ cells), where the w-term takes 3 % off the plain dirty peak. With
``--wprojplanes -1`` (tclean's automatic count) conv's w-projected gridder and
degridder restore it, Cotton–Schwab included.
"""

from __future__ import annotations

import pytest

from tests.support.cli import error_line, run_cli
from tests.support.far_source import CELL_ARCSEC, NPIX, far_source_ms, peaks

IMAGE = ("--npix", NPIX, "--cell-arcsec", CELL_ARCSEC, "--no-png", "--device", "cpu",
         "--algorithm", "conv")  # fmt: skip


@pytest.fixture(scope="module")
def far_ms(tmp_path_factory):
    return far_source_ms(tmp_path_factory.mktemp("wproject"))


@pytest.mark.slow  # ~20 s on a loaded 2-core machine: the simulation and a CLEAN
def test_cotton_schwab_with_w_projection_restores_the_far_source(far_ms, tmp_path):
    """Measured (dirty, restored peak, model flux): 0.999, 0.999, 0.997; conv without a
    w-correction: 0.968, 0.968, 0.987 (and the warning this run does not print)."""
    prefix = tmp_path / "wproj"
    code, _, err = run_cli("image", "--ms", far_ms, *IMAGE, "--wprojplanes", -1, "--niter", 50,
                           "--deconvolver", "cotton-schwab", "--out", prefix)  # fmt: skip
    assert code == 0, err
    assert "corrects it" not in err  # no w-term warning: it is corrected
    dirty, restored, flux = peaks(prefix)
    assert dirty == pytest.approx(1.0, abs=0.01)
    assert restored == pytest.approx(1.0, abs=0.02)
    assert flux == pytest.approx(1.0, abs=0.03)


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (("--wprojplanes", 8, "--wstack"), "--wprojplanes does not combine with --wstack"),
        (("--wprojplanes", 8, "--algorithm", "hybrid"), "w-projection is conv's, not hybrid's"),
        (("--wprojplanes", -1, "--algorithm", "ducc"), "w-projection is conv's, not ducc's"),
        (("--wprojplanes", -2), "argument --wprojplanes: expected a whole number ≥ -1"),
        (("--wprojplanes", 2.5), "argument --wprojplanes: expected a whole number"),
    ],
)
def test_usage_errors_exit_2_in_one_line_before_reading(tmp_path, argv, expected):
    """Refused before the MS is opened (it does not exist here) and before any file."""
    code, _, err = run_cli("image", "--ms", tmp_path / "none.ms", *argv, "--out", tmp_path / "x")
    assert code == 2
    assert expected in error_line(err)
    assert not list(tmp_path.iterdir())


def test_compare_refuses_it_with_an_algorithm_that_has_none(tmp_path):
    argv = ("--algorithms", "conv,pruned-nn", "--wprojplanes", 4, "--out", tmp_path / "x")
    code, _, err = run_cli("compare", "--ms", tmp_path / "none.ms", *argv)
    assert code == 2
    assert "w-projection is conv's, not pruned-nn's" in error_line(err)


def test_its_kernels_default_to_eps_1e_3_unless_given():
    """CASA cuts its kernels at 1e-3; an ε given, or no --wprojplanes, is kept as before."""
    from types import SimpleNamespace

    from uvlab.app.commands.ms_imaging import grid_params

    flags = dict(kernel=None, support=None, oversample=None, lookup=None, precision="double")
    args = SimpleNamespace(**flags, eps=None, wstack=False, wprojplanes=-1)
    assert (grid_params(args).eps, grid_params(args).wprojplanes) == (1e-3, -1)
    args.eps = 1e-5
    assert grid_params(args).eps == 1e-5
    args.eps, args.wprojplanes = None, None
    assert (grid_params(args).eps, grid_params(args).wprojplanes) == (1e-6, 0)
