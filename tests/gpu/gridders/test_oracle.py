"""The oracles and scenes the gridder tests share (tests/support), tested.

- :func:`~tests.support.oracles.dft_image` against the plain per-pixel sum;
- :func:`~tests.support.oracles.sky_vis`: a point source on a pixel peaks there;
- :func:`~tests.support.scenes.layout_uv`: a real track keeps baseline lengths.
"""

from __future__ import annotations

import numpy as np

from tests.support.oracles import C_LIGHT, dft_image, plain_dft, sky_vis
from tests.support.paths import ARRAYS
from tests.support.scenes import layout_uv, meerkat_spec
from uvlab.gpu.image_spec import ImageSpec


def test_dft_image_matches_plain_loop(rng):
    spec = ImageSpec(8, 1e-3)
    u, v, w = rng.normal(0, 200, (3, 50))
    wvis = rng.normal(size=50) + 1j * rng.normal(size=50)
    plain = plain_dft(u, v, wvis, spec)
    plain_w = plain_dft(u, v, wvis, spec, w=w)
    np.testing.assert_allclose(dft_image(u, v, wvis, spec, chunk=7), plain, atol=1e-10)
    np.testing.assert_allclose(dft_image(u, v, wvis, spec, w=w, chunk=16), plain_w, atol=1e-10)


def test_point_source_on_pixel_peaks_there():
    u, v, _ = layout_uv(n_times=4)
    spec = meerkat_spec(u, v, 32)
    img = dft_image(u, v, sky_vis(u, v, spec, [(5, -3, 1.0)]), spec) / u.size
    assert np.unravel_index(np.argmax(img), img.shape) == (16 - 3, 16 + 5)
    assert abs(img.max() - 1.0) < 1e-12


def test_layout_uv_is_a_real_track():
    u, v, w = layout_uv(n_times=3)
    # (u, v, w) is a rotation of each baseline: lengths are kept.
    enu = np.loadtxt(ARRAYS / "meerkat.cfg", usecols=(0, 1, 2))
    p, q = np.triu_indices(len(enu), 1)
    assert u.shape == (3 * p.size,)
    length = np.tile(np.linalg.norm(enu[p] - enu[q], axis=1), 3) * 1.4e9 / C_LIGHT
    np.testing.assert_allclose(np.sqrt(u**2 + v**2 + w**2), length, rtol=1e-12)
