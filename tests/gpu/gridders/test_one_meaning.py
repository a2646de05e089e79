"""One meaning per parameter: the support S is that kernel's support on the CPU too.

``conv`` and ``hybrid`` with the ES kernel of support S, evaluated exactly
at σ = 2, promise ``GridParams.accuracy()`` = 10^(1 − S) of the peak; S = 2
and S = 3 must give different images, each within its own promise of the
float64 direct DFT (measured: conv 1.3e-2 and 2.0e-3, hybrid 1.2e-2 and
2.0e-3). ``ducc`` chooses its kernel from ε and meets ε.
"""

import numpy as np
import pytest

from tests.support.oracles import dft_image, sky_vis
from tests.support.scenes import PIXEL_SKY, layout_uv, meerkat_spec
from uvlab.gpu import ducc_engine
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.gridders.registry import CATALOGUE, get_gridder


@pytest.fixture(scope="module")
def scene():
    u, v, _ = layout_uv(n_times=8)
    spec = meerkat_spec(u, v, 64)
    vis = sky_vis(u, v, spec, PIXEL_SKY)
    return u, v, vis, spec, dft_image(u, v, vis, spec), np.abs(vis).sum()


#: The catalogue entries whose image depends on uvlab's own support S.
SUPPORTED = [n for n, a in CATALOGUE.items() if "support" in a.uses and not a.host_only]


def test_the_supported_entries_are_the_gcf_gridders():
    assert set(SUPPORTED) == {"conv", "hybrid"}


@pytest.mark.parametrize("name", SUPPORTED)
def test_support_two_and_three_differ_each_within_its_promise(scene, name):
    u, v, vis, spec, ref, peak = scene
    images = {}
    for s in (2, 3):
        params = GridParams(support=s, exact=True, oversample=64)
        images[s] = get_gridder(name)(u, v, vis, spec, params)
        err = np.abs(images[s] - ref).max() / peak
        assert err <= params.accuracy(), (s, err)
    assert np.abs(images[2] - images[3]).max() > 3e-3 * peak


@pytest.mark.skipif(not ducc_engine.available(), reason="ducc0 not installed")
@pytest.mark.parametrize("eps", [1e-3, 1e-6, 1e-9])
def test_ducc_meets_its_eps(scene, eps):
    u, v, vis, spec, ref, peak = scene
    img = get_gridder("ducc")(u, v, vis, spec, GridParams.from_eps(eps))
    assert np.abs(img - ref).max() <= eps * peak
