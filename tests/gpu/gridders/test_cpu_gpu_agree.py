"""Every catalogue entry gives the same image with NumPy and with CuPy (issue 26).

The same record and the same GridParams on both devices: float64 agrees to
rounding (1e-9 of the peak), float32 to its precision (1e-4 of the peak).
Needs a CUDA device (``gpu`` marker; skipped without CuPy).
"""

import numpy as np
import pytest

from tests.support.oracles import sky_vis
from tests.support.scenes import PIXEL_SKY, layout_uv, meerkat_spec
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.gridders.registry import NAMES, algorithm

pytestmark = pytest.mark.gpu

#: One setting every entry reads what it needs from: ES ε = 1e-6, β = 16 (even).
PARAMS = GridParams.from_eps(1e-6, oversample=16)
#: How far the CuPy image may be from the NumPy one, as a fraction of the peak.
TOLERANCE = {"double": 1e-9, "single": 1e-4}


@pytest.fixture(scope="module")
def scene():
    u, v, _ = layout_uv(n_times=8)
    spec = meerkat_spec(u, v, 64)
    return u, v, sky_vis(u, v, spec, PIXEL_SKY), spec


@pytest.mark.parametrize("precision", ["double", "single"])
@pytest.mark.parametrize("name", NAMES)
def test_numpy_and_cupy_give_the_same_image(scene, name, precision):
    import cupy

    u, v, vis, spec = scene
    params = PARAMS.with_(precision=precision)
    record = algorithm(name)
    host = record.gridder(np)(u, v, vis, spec, params)
    args = (cupy.asarray(u), cupy.asarray(v), cupy.asarray(vis))
    dev = record.gridder(cupy)(*args, spec, params)
    got = cupy.asnumpy(dev).astype(np.float64)
    assert got.shape == host.shape
    assert np.abs(got - host).max() <= TOLERANCE[precision] * np.abs(vis).sum()
