"""What the widgets' tests share: the noise image the sky image view's tests show."""

from __future__ import annotations

import pytest

from tests.support.sky_views import N


@pytest.fixture
def img(rng):
    """An N × N image of unit Gaussian noise (N of :mod:`tests.support.sky_views`)."""
    return rng.normal(size=(N, N))
