"""What the steps of one synthetic job share, and how they predict a chunk of it (no Qt).

:class:`SyntheticRun` holds the request, its observation and image geometry, and the
inputs every chunk of the prediction reads (the rows, the sky about the phase centre,
the image sky's grid, the thermal noise's σ, the beams and gains of the components
predicted); its methods predict integrations of the components, of the image sky and
of the whole sky (:func:`uvlab.app.observing.predict_obs.predict_integrations`, as
``uvlab simulate`` predicts what it writes) and give the uv rows of the times so far.
:func:`~uvlab.app.lab.synthetic_source.iter_synthetic` drives it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from uvlab.app.lab.image_notes import outside_image_note
from uvlab.app.lab.jobs import Antennas, JobRequest, UvData
from uvlab.app.lab.samples import WorkCache, uv_rows

if TYPE_CHECKING:
    from uvlab.app.lab.corruptions import Corruptions
    from uvlab.app.observing.observation import Observation
    from uvlab.gpu.image_spec import ImageSpec
    from uvlab.gpu.sources import SourceArrays
    from uvlab.gpu.timing import StageTimer


@dataclass
class SyntheticRun:
    """What the steps of one synthetic job share: its request, observation and image.

    ``uvw`` (row, 3) m, ``flag`` (row,) and ``times`` (row,) are the observation's rows
    (time-major); ``noise_sigma`` is σ_I of the thermal noise per real/imaginary part, Jy
    (0: none); ``image`` the image sky's (model, grid) about the phase centre, or None;
    ``jones_for`` maps id(components) → their ObservationJones (the beam at their positions).
    """

    request: JobRequest
    cache: WorkCache
    cancelled: object
    dev: str
    xp: object  # the visibilities stay where they are predicted
    corrupt: Corruptions | None
    obs: Observation
    antennas: Antennas
    spec: ImageSpec
    sources: SourceArrays
    note: str | None
    uvw: np.ndarray
    flag: np.ndarray
    times: np.ndarray
    timer: StageTimer
    noise_sigma: float
    image: tuple | None
    jones_for: dict = field(default_factory=dict)

    @classmethod
    def start(cls, request, cache, cancelled, dev, corrupt, obs, antennas, spec) -> SyntheticRun:
        """The job's shared inputs, once its observation and image geometry are known."""
        from uvlab.gpu.backend import get_xp
        from uvlab.gpu.timing import StageTimer

        sources = request.sky.sources_for(obs.ra0_rad, obs.dec0_rad)
        note = outside_image_note(request.sky, spec, obs.ra0_rad, obs.dec0_rad)
        # CUDA events on the GPU: its prediction stays there, so the time is the device's too
        timer = StageTimer(gpu=dev == "gpu")
        return cls(
            request, cache, cancelled, dev, get_xp(device=dev), corrupt, obs, antennas, spec,
            sources, note, obs.uvw.reshape(-1, 3), obs.flag.reshape(-1), obs.time_rows(), timer,
            _noise_sigma(obs, corrupt), _image_grid(request, obs, cache),
        )  # fmt: skip

    @property
    def ntime(self) -> int:
        return self.obs.ntime

    @property
    def nbl(self) -> int:
        return self.obs.nbl

    @property
    def nchan(self) -> int:
        return self.obs.freq_hz.size

    def uv_until(self, t: int) -> UvData:
        """The uv rows of the first t times; all of them are kept for later jobs."""
        if t < self.ntime:
            return self._rows_until(t)
        return self.cache.derived(
            "uv", self.request.observation, lambda: self._rows_until(self.ntime)
        )

    def _rows_until(self, t: int) -> UvData:
        """The uv rows of the first ``t`` times."""
        obs, r = self.obs, t * self.nbl
        return uv_rows(
            self.uvw[:r],
            self.times[:r],
            np.tile(obs.ant1, t),
            np.tile(obs.ant2, t),
            obs.layout.nant,
            obs.freq_hz,
            ~self.flag[:r],
        )

    def predict(self, components, sl: slice):
        """Integrations ``sl`` of ``components``, left where predicted, timed as "predict".

        With the request's beam and gains (:class:`~uvlab.app.instrument.jones.ObservationJones`).
        """
        from uvlab.app.observing.predict_obs import predict_integrations

        corrupt = self.corrupt
        with self.timer.stage("predict"):
            jones = None
            if corrupt is not None and corrupt.jones.active:
                if id(components) not in self.jones_for:
                    from uvlab.app.instrument.jones import ObservationJones

                    self.jones_for[id(components)] = ObservationJones(
                        self.obs, components, corrupt.jones, "scalar"
                    )
                jones = self.jones_for[id(components)]
            return predict_integrations(
                self.obs, components, sl, smearing=self.request.smearing,
                dtype=self.request.imaging.dtype, device=self.dev, host=False, jones=jones,
            )  # fmt: skip

    def predict_image(self, sl: slice, cdtype):
        """Integrations ``sl`` of the image sky (degridded; no smearing), timed as "predict"."""
        from uvlab.app.observing.predict_obs import predict_image_integrations

        model, grid = self.image
        with self.timer.stage("predict"):
            v = predict_image_integrations(
                self.obs, model, grid, sl, ref_freq_hz=self.request.image_sky.ref_freq_hz,
                spectral_index=self.request.image_sky.spectral_index, device=self.dev,
            )  # fmt: skip
            return self.xp.asarray(v.astype(cdtype, copy=False))

    def predict_chunk(self, vis, sl: slice, cdtype) -> None:
        """Integrations ``sl`` of the whole sky into ``vis``: components, image sky, noise."""
        if self.sources.nsrc:
            vis[sl] = self.predict(self.sources, sl)
        if self.image is not None:
            vis[sl] += self.predict_image(sl, cdtype)
        if self.noise_sigma:  # linear in the sky: an edit later leaves the noise as it is
            from uvlab.app.lab.corruptions import add_noise

            add_noise(vis, sl, self.noise_sigma, self.corrupt.noise_seed, self.xp)


def _noise_sigma(obs: Observation, corrupt: Corruptions | None) -> float:
    """σ_I of the thermal noise per real/imaginary part, Jy (0: no noise)."""
    if corrupt is None or not corrupt.has_noise:
        return 0.0
    from uvlab.app.lab.corruptions import stokes_i_sigma

    return stokes_i_sigma(corrupt.sefd_jy, obs.chan_width_hz, obs.int_s)


def _image_grid(request: JobRequest, obs: Observation, cache: WorkCache) -> tuple | None:
    """The image sky on its own grid about the phase centre (model, grid), or None."""
    if request.image_sky is None:
        return None
    sky_img = request.image_sky
    ra0, dec0 = math.degrees(obs.ra0_rad), math.degrees(obs.dec0_rad)
    return cache.derived(
        "image-sky-grid", (sky_img, ra0, dec0), lambda: sky_img.native_grid(ra0, dec0)
    )
