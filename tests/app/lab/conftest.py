"""Fixtures for the lab's tests (no Qt): a small observation and the engine's own image."""

from __future__ import annotations

import pytest

from uvlab.app.observation import ObservationSpec

#: A small synthetic observation: KAT-7, 6 h at 10 min, two channels (36 × 21 rows).
SMALL_OBS = ObservationSpec(
    layout="kat-7",
    ra_deg=201.365,
    dec_deg=-43.019,
    ha_start_h=-3.0,
    ha_stop_h=3.0,
    int_s=600.0,
    freq_hz=1.4e9,
    chan_width_hz=2.0e6,
    nchan=2,
)


@pytest.fixture
def engine_image():
    """``engine_image(obs_spec, sky, spec, imaging)``: the image straight through the engine.

    Simulate, predict every time at once (with smearing), image with make_image:
    an independent path to what the GUI streams chunk by chunk.
    """

    def image(obs_spec, sky, spec, imaging, smearing=True):
        from uvlab.app.observation import simulate_observation
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
