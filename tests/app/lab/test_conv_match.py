"""conv_match: the exact-ES conv candidates, and what a match request may ask."""

from __future__ import annotations

import pytest

from tests.support.observations import SMALL_OBS
from uvlab.app.lab.conv_match import MATCH_SUPPORTS, ConvMatch, conv_candidate, same_conv
from uvlab.app.lab.imaging import ImagingOptions
from uvlab.app.lab.jobs import JobRequest


@pytest.mark.parametrize("support", MATCH_SUPPORTS)
def test_candidate_is_exact_es_of_that_support(support):
    base = ImagingOptions(npix=64, algorithm="hybrid", sigma=1.5, lookup="linear")
    o = conv_candidate(support, base)
    p = o.grid_params()
    assert (o.algorithm, o.npix, p.kernel, p.exact, p.sigma) == ("conv", 64, "es", True, 2.0)
    assert p.support == support and p.eps == pytest.approx(10.0 ** (1 - support))
    assert same_conv(o, conv_candidate(support, ImagingOptions()))
    assert not same_conv(o, conv_candidate(support + 1, base))
    table = ImagingOptions(kernel_size="support", support=support)
    assert not same_conv(table, o)


def test_describe_says_which_support_matches_or_that_none_does():
    o = conv_candidate(4, ImagingOptions())
    m = ConvMatch("hybrid", 2e-3, (2, 3, 4), (9e-2, 1e-2, 1e-3), (1e-3,) * 3, o, added=True)
    assert m.support == 4
    assert m.describe().startswith("conv ES S = 4 (ε = 1e-03) matches hybrid")
    none = ConvMatch("hybrid", 1e-12, MATCH_SUPPORTS, (1e-3,) * 9, (1e-3,) * 9, None)
    assert none.support is None and "no exact-ES conv up to S = 10" in none.describe()


def test_a_match_request_names_an_entry_that_is_not_exact_conv():
    entries = (ImagingOptions(algorithm="conv"), ImagingOptions(algorithm="hybrid"))
    ok = JobRequest("synthetic", ImagingOptions(), "cpu", SMALL_OBS, task="compare",
                    compare=entries, match=1)  # fmt: skip
    assert ok.match == 1
    table = (ImagingOptions(kernel="kb", kernel_size="support"), entries[1])
    JobRequest("synthetic", ImagingOptions(), "cpu", SMALL_OBS, task="compare",
               compare=table, match=0)  # fmt: skip
    for match, task in ((0, "compare"), (2, "compare"), (-1, "compare"), (1, "image")):
        with pytest.raises(ValueError):
            JobRequest("synthetic", ImagingOptions(), "cpu", SMALL_OBS, task=task,
                       compare=entries, match=match)  # fmt: skip
