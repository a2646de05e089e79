"""``uvlab image``'s CLEAN flags become the engine's CleanOptions (app/commands/clean_args.py)."""

from __future__ import annotations

from argparse import Namespace

import pytest

from uvlab.app.commands.clean_args import check_options, clean_options, clean_record
from uvlab.app.lab.state import CleanRecord
from uvlab.gpu.deconvolution.options import CleanOptions


def _args(**kw) -> Namespace:
    base = dict(
        niter=100, gain=0.2, mgain=0.7, threshold_jy=0.01, auto_threshold=3.0,
        auto_mask=5.0, deconvolver="cotton-schwab",
    )  # fmt: skip
    return Namespace(**{**base, **kw})


def test_the_flags_make_the_windows_record():
    want = CleanOptions(
        "cotton-schwab", niter=100, gain=0.2, mgain=0.7, threshold_jy=0.01,
        auto_threshold=3.0, auto_mask=5.0,
    )  # fmt: skip
    assert clean_options(_args()) == want and check_options(_args()) is None
    assert clean_record(_args(fits_mask="m.fits")) == CleanRecord(want, "m.fits")
    assert clean_record(_args()) == CleanRecord(want)


@pytest.mark.parametrize(
    ("kw", "flag"),
    [
        ({"niter": -1}, "--niter"),
        ({"gain": 1.5}, "--gain"),
        ({"mgain": 0.0}, "--mgain"),
        ({"threshold_jy": -1.0}, "--threshold-jy"),
        ({"auto_threshold": float("inf"), "auto_mask": None}, "--auto-threshold"),
        ({"auto_mask": 2.0}, "--auto-mask"),
        ({"multiscale_scales": (0.0, 4.0, 4.0)}, "--multiscale-scales"),
        ({"multiscale_scale_bias": 1.5}, "--multiscale-scale-bias"),
        ({"multiscale_small_scale_bias": -1.5}, "--multiscale-small-scale-bias"),
        ({"multiscale_small_scale_bias": float("nan")}, "--multiscale-small-scale-bias"),
    ],
)
def test_complaints_name_the_flag(kw, flag):
    assert check_options(_args(**kw)).startswith(flag + " ")


def test_multiscale_flags_make_the_record():
    args = _args(multiscale=True, multiscale_scales=(0.0, 4.0, 8.0), multiscale_scale_bias=0.5)
    opts = clean_options(args)
    assert opts.multiscale and opts.multiscale_scales == (0.0, 4.0, 8.0)
    assert opts.multiscale_scale_bias == 0.5 and opts.multiscale_small_scale_bias is None
    assert clean_options(_args(multiscale_small_scale_bias=0.0)).multiscale_small_scale_bias == 0


def test_scale_list_reads_commas():
    from uvlab.app.commands.clean_args import scale_list

    assert scale_list("0,4,8,16") == (0.0, 4.0, 8.0, 16.0)


def test_the_history_names_the_rule():
    from uvlab.app.commands.clean_args import clean_opts_text

    args = _args(multiscale=True, multiscale_scales=(0.0, 4.0), multiscale_scale_bias=0.6)
    assert clean_opts_text(args) == "scales=0,4 bias=0.6"
    args.multiscale_small_scale_bias = 0.0
    assert clean_opts_text(args) == "scales=0,4 tclean smallscalebias=0"
