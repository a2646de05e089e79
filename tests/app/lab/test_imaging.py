"""The imaging record: one set of names and defaults, older names still read."""

from __future__ import annotations

import pytest

from uvlab.app.lab.imaging import DEFAULT_NPIX, INTERACTIVE_THREADS, ImagingOptions


def test_defaults_and_the_gridder_parameters():
    o = ImagingOptions()
    assert o.npix == DEFAULT_NPIX == 512 and o.sigma == 2.0 and o.kernel_size == "eps"
    p = o.grid_params()
    assert (p.eps, p.support, p.exact, p.sigma) == (1e-5, 6, True, 2.0)
    assert p.threads == INTERACTIVE_THREADS and o.grid_params(threads=0).threads == 0
    by_support = ImagingOptions(kernel_size="support", support=5, oversample=32, sigma=1.5)
    p = by_support.grid_params()
    assert (p.support, p.oversample, p.sigma, p.exact, p.eps) == (5, 32, 1.5, False, None)
    assert not hasattr(by_support.image_spec(1e-5), "pad")  # σ has one home: GridParams
    assert ImagingOptions(algorithm="dft").grid_params() is None


def test_table_lookup_reaches_the_gridder_and_the_session():
    o = ImagingOptions(kernel_size="support", support=6, oversample=32, lookup="linear")
    p = o.grid_params()
    assert (p.lookup, p.exact, p.oversample) == ("linear", False, 32)
    assert ImagingOptions().lookup == "nearest" == ImagingOptions().grid_params().lookup
    assert ImagingOptions.from_dict(o.to_dict()) == o
    assert ImagingOptions.from_dict({"npix": 64}).lookup == "nearest"  # older files


def test_super_weight_and_rank_filter_reach_the_weighting_and_the_session():
    """WSClean's ``-super-weight`` and rank filter travel with the record (off by default:
    the filter's level 0, the super weight 1); older files without them read the defaults."""
    o = ImagingOptions(weighting="uniform", density_cells="wsclean", super_weight=2.0,
                       rank_filter=3.0, rank_filter_size=9)  # fmt: skip
    wt = o.weighting_spec()
    assert (wt.super_weight, wt.rank_filter, wt.rank_filter_size) == (2.0, 3.0, 9)
    assert ImagingOptions.from_dict(o.to_dict(), strict=True) == o
    old = ImagingOptions.from_dict({"npix": 64}).weighting_spec()
    assert (old.super_weight, old.rank_filter, old.rank_filter_size) == (1.0, 0.0, 16)


def test_older_names_are_read_and_unknown_keys_skipped_or_refused():
    old = {"npix": 64, "accuracy": "support", "support": 4, "padding": 1.25, "newer": 1}
    o = ImagingOptions.from_dict(old)
    assert (o.npix, o.kernel_size, o.support, o.sigma) == (64, "support", 4, 1.25)
    assert ImagingOptions.from_dict(o.to_dict()) == o
    with pytest.raises(ValueError, match="unknown key newer"):
        ImagingOptions.from_dict(old, strict=True)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"npix": 127}, "image size npix must be an even integer ≥ 2, got 127"),
        ({"npix": 64.0}, "even integer"),
        ({"cell_arcsec": 0.0}, "cell size must be > 0 arcsec"),
        ({"algorithm": "fast"}, "algorithm 'fast' is not one of dft, conv"),
        ({"kernel_size": 1e-5}, "kernel_size 1e-05 is not one of eps, support"),
        ({"eps": 1.5}, r"ε \(eps\) must lie in \(0, 1\)"),
        ({"algorithm": "pruned-nn", "oversample": 5}, "even oversampling β ≥ 4"),
        ({"weighting": "briggs", "robust": 3.0}, "robust"),
        ({"sigma": 5.0}, "σ must be in"),
        ({"robust": "0.5"}, "robust must be a number"),
        ({"lookup": "cubic"}, "lookup 'cubic' is not one of nearest, linear"),
        ({"super_weight": 0.5}, "super weight must be a finite number ≥ 1"),
        ({"super_weight": float("nan")}, "super_weight must be a finite number"),
        ({"rank_filter": 0.5}, r"rank filter level must be 0 \(off\) or"),
        ({"rank_filter_size": 16.0}, "rank filter size must be an integer"),
    ],
)
def test_bad_values_are_refused_in_one_line(changes, message):
    with pytest.raises(ValueError, match=message):
        ImagingOptions(**changes)
