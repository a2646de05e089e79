"""Flux densities as the reports write them."""

import math

import pytest

from uvlab.app.outputs.quantities import format_jy


@pytest.mark.parametrize(
    "jy, text",
    [
        (2.5, "2.5 Jy"),
        (-1.0, "-1 Jy"),
        (0.0123, "12.3 mJy"),
        (1e-3, "1 mJy"),
        (2.7e-5, "27 µJy"),
        (0.0, "0 µJy"),
        (math.nan, "n/a Jy"),
        (math.inf, "n/a Jy"),
    ],
)
def test_a_flux_density_reads_in_its_unit(jy, text):
    assert format_jy(jy) == text
