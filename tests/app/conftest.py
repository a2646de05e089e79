"""Fixtures for the app's tests (the lab's and the window's): the engine's own image.

The small observation they share is :data:`tests.support.observations.SMALL_OBS`.
"""

from __future__ import annotations

import pytest


@pytest.fixture
def engine_image():
    """``engine_image(obs_spec, sky, spec, imaging)``: the image straight through the engine.

    Simulate, predict every time at once (with smearing), image with make_image:
    an independent path to what the GUI streams chunk by chunk.
    """

    def image(obs_spec, sky, spec, imaging, smearing=True):
        from uvlab.app.observing.observation import simulate_observation
        from uvlab.gpu.imaging.imager import make_image
        from uvlab.gpu.predict import Smearing, predict_antennas

        obs = simulate_observation(obs_spec)
        src = sky.to_source_arrays(obs.ra0_rad, obs.dec0_rad)
        sm = Smearing(obs.chan_width_hz, obs.int_s, obs.dec0_rad) if smearing else None
        vis = predict_antennas(obs.ant_uvw, obs.ant1, obs.ant2, obs.freq_hz, src, smearing=sm)
        nchan = obs.freq_hz.size
        return make_image(
            obs.uvw.reshape(-1, 3),
            obs.freq_hz,
            vis.reshape(-1, nchan),
            1.0,
            spec,
            flag=obs.flag.reshape(-1, 1),
            weighting=imaging.weighting_spec(),
            algorithm=imaging.algorithm,
            params=imaging.grid_params(),
        )

    return image
